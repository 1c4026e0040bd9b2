/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sigmf_rotation.h"
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gr {
namespace rdma {

sigmf_rotation::sigmf_rotation(const std::string& path,
                               uint64_t rotate_bytes,
                               double rotate_seconds,
                               size_t item_size)
    : d_path(path),
      // At least the bytes asked for: whole items, rounded up.
      d_items(rotate_bytes / item_size + (rotate_bytes % item_size != 0)),
      d_seconds(rotate_seconds)
{
}

std::string sigmf_rotation::base(unsigned index) const
{
    if (!rotating())
        return d_path;
    char number[16];
    std::snprintf(number, sizeof number, "-%04u", index);
    return d_path + number;
}

uint64_t sigmf_rotation::limit(double rate) const
{
    uint64_t items = d_items ? d_items : unlimited;
    if (d_seconds > 0) {
        const double by_time = std::floor(d_seconds * rate);
        // Beyond 2^63 items is no limit anyone reaches.
        const uint64_t n = by_time >= 9.2e18
                               ? unlimited
                               : std::max<uint64_t>(1, static_cast<uint64_t>(by_time));
        items = std::min(items, n);
    }
    return items;
}

} // namespace rdma
} // namespace gr
