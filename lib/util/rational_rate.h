/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_RATIONAL_RATE_H
#define INCLUDED_RDMA_UTIL_RATIONAL_RATE_H

#include <cstdint>

namespace gr {
namespace rdma {

struct rational {
    uint32_t num = 0;
    uint32_t den = 1;
};

/*!
 * The sample rate as the device registers take it: num/den samples per second with
 * the smallest power-of-ten denominator (up to 10^6) that represents \p rate to within
 * one part in 10^12; otherwise the closest num/10^6 that fits. Throws
 * std::invalid_argument when rate is not in (0, 2^32).
 */
rational rational_rate(double rate);

} // namespace rdma
} // namespace gr

#endif
