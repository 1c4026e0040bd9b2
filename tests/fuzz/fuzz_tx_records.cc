/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for a TX stream's reports from the device's TX records
// (lib/stream/tx_record_reports.cc): what reaches the host's metadata socket, parsed,
// against a fixed run (bursts pushed, items published, a clock). The input: the final
// counters (32 bytes), then a run of 40-byte datagrams. Whatever they say, the reports
// stay within what the device can have done, and once reconciled they add up to the
// counters, or to what was believed if that was more (counted as excess). abort()
// marks a broken invariant.

#include "meta/metadata_packet.h"
#include "stream/tx_record_reports.h"
#include <algorithm>
#include <cstdlib>

using namespace gr::rdma;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

uint64_t be(const uint8_t* p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

constexpr uint64_t t0 = 1700000000000000000ull;
constexpr uint64_t now = t0 + 1000000000; // a second into the run, 1 MS/s
constexpr uint64_t published = 5000;
constexpr size_t counters_bytes = 32;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < counters_bytes)
        return 0;
    tx_device_counters c;
    c.has_burst_counters = true;
    c.underflow_samples = be(data, 8);
    c.late_zero_samples = be(data + 8, 8);
    c.dropped_samples = be(data + 16, 8);
    c.bursts_done = be(data + 24, 4);
    c.time_errors = be(data + 28, 4);

    tx_burst_log log;
    log.started(0, 0, 0);
    log.ended(1000);
    log.started(1000, t0 + 2000000, t0 + 2000000);
    log.ended(3000);
    log.started(3000, t0 + 1000, t0 + 5000000); // sent late on purpose
    log.ended(4000);
    log.started(4000, 0, 0);
    log.published(published);
    tx_record_reports rep;
    tx_record_reports::run run;
    run.t0_ns = t0;
    run.rate = { 1000000, 1 };
    run.command_ns = t0 - 10000000;
    run.min_lead_ns = 200000;
    run.max_lead_ns = 50000000;
    rep.start(run);

    uint64_t underflow = 0, late = 0, dropped = 0, acked = 0, events = 0;
    auto add = [&](const tx_event& e) {
        if (!e.unattributed)
            require(e.item <= published);
        switch (e.type) {
        case tx_event::kind::underflow:
            underflow += e.count;
            break;
        case tx_event::kind::late:
            late += e.count;
            break;
        case tx_event::kind::time_error:
            dropped += e.count;
            break;
        case tx_event::kind::burst_ack:
            acked += e.count;
            break;
        default:
            break;
        }
        events++;
    };
    uint64_t records = 0;
    for (size_t at = counters_bytes; at + meta::packet_bytes <= size;
         at += meta::packet_bytes) {
        meta::record r;
        if (meta::parse(data + at, meta::packet_bytes, r) != meta::parse_status::ok)
            continue;
        records++;
        tx_event e;
        if (rep.take(r, now, log, e))
            add(e);
        // Never beyond the device: zeros within its ticks, samples within its items.
        require(underflow + late <= 1000000 + 2);
        require(acked <= published);
    }
    require(rep.accepted() + rep.rejected() == records);
    tx_event e;
    while (rep.release(log, true, e))
        add(e);
    require(dropped <= published);
    const uint64_t believed_u = underflow, believed_l = late, believed_d = dropped;
    tx_event rest[4];
    const size_t n = rep.reconcile(c, rest);
    require(n <= 4);
    for (size_t i = 0; i < n; i++) {
        require(rest[i].unattributed);
        add(rest[i]);
    }
    // The totals are the counters', or what was believed where that was more.
    require(underflow == std::max(c.underflow_samples, believed_u));
    require(late == std::max(c.late_zero_samples, believed_l));
    require(dropped == std::max(c.dropped_samples, believed_d));
    const uint64_t excess = (believed_u - std::min(believed_u, c.underflow_samples)) +
                            (believed_l - std::min(believed_l, c.late_zero_samples)) +
                            (believed_d - std::min(believed_d, c.dropped_samples));
    require(rep.excess() == excess);
    require(rep.reconcile(c, rest) == 0); // once
    return 0;
}
