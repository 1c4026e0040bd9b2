/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rational_rate.h"
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

rational rational_rate(double rate)
{
    if (!(rate > 0) || rate >= 4294967296.0)
        throw std::invalid_argument(
            "sample rate " + std::to_string(rate) +
            " S/s cannot be programmed: expected 0 < rate < 2^32");
    rational best;
    for (uint32_t den = 1; den <= 1000000; den *= 10) {
        const double scaled = rate * den;
        if (scaled >= 4294967296.0)
            break;
        const double num = std::round(scaled);
        best = { static_cast<uint32_t>(num), den };
        if (std::fabs(num - scaled) <= 1e-12 * scaled)
            break;
    }
    if (best.num == 0)
        throw std::invalid_argument("sample rate " + std::to_string(rate) +
                                    " S/s is too small");
    return best;
}

} // namespace rdma
} // namespace gr
