/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the plain POSIX benchmark programs (bench_ideal_rx, bench_ideal_tx) share: a
// clock reading, the fatal error, and the CPU reading at one point of the stream.

#ifndef INCLUDED_RDMA_BENCH_POSIX_H
#define INCLUDED_RDMA_BENCH_POSIX_H

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace bench {

inline double now_s(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

//! One reading of a window: the time, the thread's CPU and the bytes moved so far.
struct snapshot {
    double t = 0, cpu = 0;
    uint64_t bytes = 0;
    bool taken = false;
};

//! Takes \p s once, the first time \p t reaches \p at.
inline void take_at(snapshot& s, double t, double at, uint64_t bytes)
{
    if (!s.taken && t >= at)
        s = { t, now_s(CLOCK_THREAD_CPUTIME_ID), bytes, true };
}

[[noreturn]] inline void fail(const char* program, const char* what)
{
    std::fprintf(stderr, "%s: %s: %s\n", program, what, std::strerror(errno));
    std::exit(1);
}

} // namespace bench

#endif
