/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_HASH_H
#define INCLUDED_RDMA_UTIL_HASH_H

#include <cstdint>

namespace gr {
namespace rdma {
//! SplitMix64's finalizer: a stateless hash, so that a message number or sample index
//! alone decides an impairment or a noise value (reproducible, no generator state).
inline uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

} // namespace rdma
} // namespace gr

#endif
