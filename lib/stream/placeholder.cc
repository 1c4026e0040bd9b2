/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "placeholder.h"
#include <cstring>

namespace gr {
namespace rdma {

placeholder::placeholder(sample_format format) : d_item(item_size(format))
{
    if (format == sample_format::sc16) {
        d_first = 0x80008000ull;  // I = Q = -32768 (little-endian int16 pairs)
        d_second = 0x7FFF7FFFull; // I = Q = +32767
    } else {
        d_first = 0x7FC0DEAD7FC0DEADull;
        d_second = 0x7FC0BEEF7FC0BEEFull;
    }
}

} // namespace rdma
} // namespace gr
