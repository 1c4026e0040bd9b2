/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "latency_probe.h"
#include <chrono>

namespace gr {
namespace rdma {

namespace {
int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

latency_probe::latency_probe() : d_pending(pending_capacity) {}

void latency_probe::reset()
{
    d_pending_head = d_pending_tail = 0;
    d_last_landed = 0;
    d_notification.reset();
    d_age.reset();
    d_dropped = 0;
}

void latency_probe::on_notification(uint64_t landed, int64_t written_ns)
{
    // Stale or repeated notifications prove nothing new.
    if (written_ns == 0 || landed <= d_last_landed)
        return;
    d_last_landed = landed;
    if (d_pending_tail - d_pending_head == pending_capacity) {
        d_dropped++;
        return;
    }
    d_pending[d_pending_tail++ % pending_capacity] = { landed, written_ns };
}

void latency_probe::on_produced(uint64_t end, int64_t oldest_age_ns)
{
    d_age.record(oldest_age_ns);
    if (d_pending_head == d_pending_tail ||
        d_pending[d_pending_head % pending_capacity].landed > end)
        return;
    const int64_t now = steady_ns(); // the NIC's written_ns clock
    while (d_pending_head != d_pending_tail) {
        const pending& p = d_pending[d_pending_head % pending_capacity];
        if (p.landed > end)
            break;
        d_notification.record(now - p.written_ns);
        d_pending_head++;
    }
}

void latency_probe::export_counters(const std::string& prefix,
                                    std::map<std::string, uint64_t>& out) const
{
    d_notification.export_counters(prefix, out);
    out[prefix + "dropped"] = d_dropped;
    d_age.export_counters(prefix + "age.", out);
}

} // namespace rdma
} // namespace gr
