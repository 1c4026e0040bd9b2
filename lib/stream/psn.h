/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PSN_H
#define INCLUDED_RDMA_STREAM_PSN_H

#include <cstdint>
#include <random>

namespace gr {
namespace rdma {

//! A fresh 24-bit starting PSN for a new queue pair: packets of an earlier run (or
//! forged at a guessed PSN) then do not fit the new one's sequence.
inline uint32_t random_psn()
{
    std::random_device rd;
    return rd() & 0xFFFFFF;
}

} // namespace rdma
} // namespace gr

#endif
