/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "placeholder.h"
#include <random>
#include <stdexcept>

namespace gr {
namespace rdma {

placeholder::placeholder(sample_format format) : d_item(item_size(format)) { renew(); }

void placeholder::renew()
{
    std::random_device source;
    const auto word = [&] {
        const uint64_t mask = d_item == 8 ? ~0ull : 0xFFFFFFFFull;
        uint64_t w = 0;
        // Never a word of zeros, nor a first item of zeros (a one-item sc8 packet):
        // lost samples read as zeros.
        while (w == 0 || (w & 0xFFFF) == 0)
            w = ((uint64_t(source()) << 32) | source()) & mask;
        return w;
    };
    d_first = word();
    d_second = word();
}

void placeholder::set_mark(uint64_t first, uint64_t second)
{
    const uint64_t mask = d_item == 8 ? ~0ull : 0xFFFFFFFFull;
    if ((first & mask) == 0 || (second & mask) == 0 ||
        (d_item == 2 && (first & 0xFFFF) == 0))
        throw std::invalid_argument("placeholder: a mark word of zeros reads as lost");
    d_first = first & mask;
    d_second = second & mask;
}

} // namespace rdma
} // namespace gr
