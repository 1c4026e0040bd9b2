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
        const uint64_t mask = d_item == 4 ? 0xFFFFFFFFull : ~0ull;
        uint64_t w = 0;
        while (w == 0) // never a word of zeros: lost samples read as zeros
            w = ((uint64_t(source()) << 32) | source()) & mask;
        return w;
    };
    d_first = word();
    d_second = word();
}

void placeholder::set_mark(uint64_t first, uint64_t second)
{
    const uint64_t mask = d_item == 4 ? 0xFFFFFFFFull : ~0ull;
    if ((first & mask) == 0 || (second & mask) == 0)
        throw std::invalid_argument("placeholder: a mark word of zeros reads as lost");
    d_first = first & mask;
    d_second = second & mask;
}

} // namespace rdma
} // namespace gr
