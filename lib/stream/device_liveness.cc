/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_liveness.h"

namespace gr {
namespace rdma {

device_liveness::device_liveness(std::chrono::nanoseconds lost_after)
    : d_lost_after_ns(lost_after.count())
{
}

int64_t device_liveness::now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void device_liveness::reset(int64_t now)
{
    answered(now);
}

void device_liveness::answered(int64_t now)
{
    // The time first: a reader that still sees the old failure sees a recent answer.
    d_last_answer_ns = now;
    d_failing = false;
    std::lock_guard<std::mutex> lock(d_mutex);
    d_failure.clear();
}

void device_liveness::failed(const std::string& why)
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_failure = why;
    }
    d_failing = true;
}

bool device_liveness::lost(int64_t now) const
{
    return d_failing.load(std::memory_order_relaxed) &&
           now - d_last_answer_ns.load(std::memory_order_relaxed) > d_lost_after_ns;
}

std::string device_liveness::last_failure() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_failure;
}

} // namespace rdma
} // namespace gr
