/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for a TX stream's reports from the device's TX records
// (lib/stream/tx_record_reports.cc): what reaches the host's metadata socket, parsed,
// against a fixed run (bursts pushed, items published, a clock). The input: the final
// counters (32 bytes), then a run of 40-byte datagrams. Whatever they say, what is
// believed stays within what the device can have done, what is reported (through the
// tx_report_gate, as tx_watch does) never exceeds the counters, and once settled the
// reports add up to the counters exactly, what they did not cover counted as excess.
// abort() marks a broken invariant.

#include "meta/metadata_packet.h"
#include "stream/tx_record_reports.h"
#include "stream/tx_report_gate.h"
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

    // What was believed (taken), and what was reported (out of the gate).
    uint64_t underflow = 0, late = 0, dropped = 0, acked = 0;
    tx_report_gate::totals out;
    auto believe = [&](const tx_event& e) {
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
    };
    auto reported = [&](const tx_event& e) {
        switch (e.type) {
        case tx_event::kind::underflow:
            out.underflow += e.count;
            break;
        case tx_event::kind::late:
            out.late += e.count;
            break;
        case tx_event::kind::time_error:
            out.dropped += e.count;
            out.time_errors += e.bursts;
            break;
        case tx_event::kind::burst_ack:
            out.acks += e.bursts;
            break;
        default:
            break;
        }
        // Never beyond the device's own counters.
        require(out.underflow <= c.underflow_samples);
        require(out.late <= c.late_zero_samples);
        require(out.dropped <= c.dropped_samples);
        require(out.time_errors <= c.time_errors);
        require(out.acks <= c.bursts_done);
    };
    tx_report_gate gate;
    auto take = [&](const tx_event& e) {
        believe(e);
        if (gate.hold(e))
            reported(e);
        tx_event x;
        while (gate.release(c, x))
            reported(x);
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
            take(e);
        // Never beyond the device: zeros within its ticks, samples within its items.
        require(underflow + late <= 1000000 + 2);
        require(acked <= published);
    }
    require(rep.accepted() + rep.rejected() == records);
    tx_event e;
    while (rep.release(log, true, e))
        take(e);
    require(dropped <= published);
    tx_event rest[4];
    const size_t n = gate.settle(c, rest);
    require(n <= 4);
    for (size_t i = 0; i < n; i++) {
        require(rest[i].unattributed);
        reported(rest[i]);
    }
    // The reports add up to the counters, exactly; what the counters never covered
    // was held and dropped, and it is what was believed beyond them, at least.
    require(out.underflow == c.underflow_samples);
    require(out.late == c.late_zero_samples);
    require(out.dropped == c.dropped_samples);
    require(gate.released().underflow == c.underflow_samples);
    require(gate.excess() >= (underflow - std::min(underflow, c.underflow_samples)) +
                                 (late - std::min(late, c.late_zero_samples)) +
                                 (dropped - std::min(dropped, c.dropped_samples)));
    require(gate.settle(c, rest) == 0); // once
    return 0;
}
