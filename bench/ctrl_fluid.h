/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fluid model of bench/ctrl.py (docs/performance.md, "Software rate control"):
// streams offer rates, links serve at most their capacity. No packets, no network:
// it measures what the controller's decisions do to throughput, not the emulator.

#ifndef INCLUDED_RDMA_BENCH_CTRL_FLUID_H
#define INCLUDED_RDMA_BENCH_CTRL_FLUID_H

#include "emu/ctrl_event_queue.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace bench_ctrl {

using gr::rdma::emu::ctrl_max_links;
using gr::rdma::emu::ctrl_max_streams;

//! A stream's dequeue rate (bytes/s) and the parts of it each link carries.
struct fluid_offer {
    std::array<double, ctrl_max_streams> rate{};
    std::array<std::array<double, ctrl_max_links>, ctrl_max_streams> part{};
};

/*!
 * What each stream gets through, bytes/s: a link offered more than its capacity
 * serves it in proportion to what each stream offers it (a FIFO under overload drops
 * alike from every stream); otherwise all of it.
 */
inline std::array<double, ctrl_max_streams> fluid_serve(unsigned streams,
                                                        unsigned links,
                                                        const fluid_offer& o,
                                                        const double* capacity)
{
    std::array<double, ctrl_max_links> offered{};
    for (unsigned s = 0; s < streams; s++)
        for (unsigned l = 0; l < links; l++)
            offered[l] += o.rate[s] * o.part[s][l];
    std::array<double, ctrl_max_links> served{};
    for (unsigned l = 0; l < links; l++)
        served[l] = offered[l] > capacity[l] ? capacity[l] / offered[l] : 1.0;
    std::array<double, ctrl_max_streams> got{};
    for (unsigned s = 0; s < streams; s++)
        for (unsigned l = 0; l < links; l++)
            got[s] += o.rate[s] * o.part[s][l] * served[l];
    return got;
}

//! xorshift64: the synthetic events are the same in every run of a seed.
struct random {
    uint64_t x;
    uint64_t next()
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    }
    double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
    //! Exponential with mean 1/rate: Poisson arrivals.
    double gap(double rate) { return -std::log(1.0 - uniform()) / rate; }
};

} // namespace bench_ctrl

#endif
