/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_record_reports.h"
#include <algorithm>

namespace gr {
namespace rdma {

namespace code = meta::event_code;

void tx_record_reports::start(const run& r)
{
    *this = tx_record_reports{};
    d_run = r;
}

uint64_t tx_record_reports::ticks_by(uint64_t time_ns) const
{
    // Ticks k of the run play at t0 + k / rate: those before time_ns, rounded up.
    using u128 = unsigned __int128;
    if (time_ns <= d_run.t0_ns)
        return 0;
    const u128 scale = u128(d_run.rate.den) * 1000000000u;
    return static_cast<uint64_t>(
        (u128(time_ns - d_run.t0_ns) * d_run.rate.num + scale - 1) / scale);
}

uint64_t tx_record_reports::duration_ns(uint64_t ticks) const
{
    using u128 = unsigned __int128;
    const u128 ns = u128(ticks) * d_run.rate.den * 1000000000u / d_run.rate.num;
    return ns > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(ns);
}

bool tx_record_reports::in_run(uint64_t time_ns, uint64_t now_ns) const
{
    return time_ns + time_tolerance_ns >= d_run.t0_ns &&
           time_ns <= now_ns + time_tolerance_ns;
}

bool tx_record_reports::check(const meta::record& r,
                              uint64_t now_ns,
                              const tx_burst_log& log) const
{
    const uint64_t published = log.published();
    // Entries are taken up, leads adapted and READs sent from START on, which may be
    // long before the first tick (a start time ahead).
    const uint64_t lead_before =
        d_run.t0_ns - std::min(d_run.t0_ns, uint64_t(d_run.max_lead_ns));
    const uint64_t command =
        std::min(d_run.command_ns ? d_run.command_ns : lead_before, lead_before);
    auto since_start = [&](uint64_t t) {
        return t + time_tolerance_ns >= command && t <= now_ns + time_tolerance_ns;
    };
    switch (r.code) {
    case code::tx_underflow:
    case code::tx_late: {
        // Zeros the converter played: no more than its ticks since the start, all of
        // them before now; a late piece's items were published.
        const uint64_t zeros = d_underflow + d_late;
        const uint64_t ticks = ticks_by(now_ns + time_tolerance_ns) + 1;
        const bool items = r.code == code::tx_underflow
                               ? r.sample <= published
                               : r.value <= published && r.sample <= published - r.value;
        return r.value > 0 && items && in_run(r.time_ns, now_ns) && r.value <= ticks &&
               zeros <= ticks - r.value &&
               r.time_ns + duration_ns(r.value) <=
                   now_ns + 2 * time_tolerance_ns + duration_ns(1);
    }
    case code::tx_burst_ack: {
        // At an END the host pushed. A record merged with later bursts' (the rate
        // bound) keeps the first END and time and adds their samples, so the samples
        // are bounded by the run's: every item plays once, in one burst, in a tick.
        const uint64_t ticks = ticks_by(now_ns + time_tolerance_ns) + 1;
        return r.sample <= published && log.ends_at(r.sample) &&
               in_run(r.time_ns, now_ns) && r.value <= published &&
               d_acked <= published - r.value && r.value <= ticks;
    }
    case code::tx_time_error: {
        // At a START the host pushed, with the very time it carried; found passed
        // since the run's start and before now. The device takes its STARTs up in
        // order and drops a burst once: a record for a burst at or before one already
        // dropped is not the device's (forged ones once counted a burst six times).
        tx_logged_burst b;
        return log.find(r.sample, b) && b.pushed_ns != 0 && r.time_ns == b.pushed_ns &&
               since_start(r.value) && b.first >= d_next_droppable;
    }
    case code::tx_lead:
        return r.value >= d_run.min_lead_ns && r.value <= d_run.max_lead_ns &&
               r.sample <= published && since_start(r.time_ns);
    case code::tx_seq_error:
        return r.value > 0 && r.sample <= published && since_start(r.time_ns);
    default:
        return false; // not a TX record
    }
}

bool tx_record_reports::take(const meta::record& r,
                             uint64_t now_ns,
                             const tx_burst_log& log,
                             tx_event& out)
{
    if (r.type != meta::record_type::event || !check(r, now_ns, log)) {
        d_rejected++;
        return false;
    }
    d_accepted++;
    out = tx_event{};
    out.item = r.sample;
    out.time_ns = r.time_ns;
    switch (r.code) {
    case code::tx_underflow:
        d_underflow += r.value;
        out.type = tx_event::kind::underflow;
        out.count = r.value;
        return true;
    case code::tx_late:
        d_late += r.value;
        out.type = tx_event::kind::late;
        out.count = r.value;
        return true;
    case code::tx_burst_ack:
        d_acks++;
        d_acked += r.value;
        out.type = tx_event::kind::burst_ack;
        out.count = r.value;
        out.bursts = 1;
        return true;
    case code::tx_lead:
        out.type = tx_event::kind::lead;
        out.value = r.value;
        return true;
    case code::tx_seq_error:
        out.type = tx_event::kind::seq_error;
        out.count = r.value;
        return true;
    default: // tx_time_error: check() let nothing else through
        break;
    }
    d_time_errors++;
    tx_logged_burst b;
    log.find(r.sample, b);
    d_next_droppable = b.first + 1;
    const held h{ b.first, b.requested_ns ? b.requested_ns : b.pushed_ns, r.value };
    if (b.end != tx_logged_burst::open) {
        report(h, b.end, out);
        return true;
    }
    if (d_held_count == held_capacity) { // room for the newest: the oldest goes now
        report(d_held[0], log.published(), out);
        std::copy(d_held.begin() + 1, d_held.begin() + d_held_count, d_held.begin());
        d_held[d_held_count - 1] = h;
        return true;
    }
    d_held[d_held_count++] = h;
    return false;
}

void tx_record_reports::report(const held& h, uint64_t end, tx_event& out)
{
    out = tx_event{};
    out.type = tx_event::kind::time_error;
    out.item = h.first;
    out.time_ns = h.requested_ns;
    out.value = h.found_ns;
    out.count = end > h.first ? end - h.first : 0;
    out.bursts = 1;
    d_dropped += out.count;
}

bool tx_record_reports::release(const tx_burst_log& log, bool all, tx_event& out)
{
    for (size_t i = 0; i < d_held_count; i++) {
        tx_logged_burst b;
        const bool known = log.find(d_held[i].first, b);
        if (!all && known && b.end == tx_logged_burst::open)
            continue;
        // Without an END (at STOP) the device drops what was published of it.
        const uint64_t end = known && b.end != tx_logged_burst::open
                                 ? b.end
                                 : std::max(log.published(), d_held[i].first);
        report(d_held[i], end, out);
        std::copy(
            d_held.begin() + i + 1, d_held.begin() + d_held_count, d_held.begin() + i);
        d_held_count--;
        return true;
    }
    return false;
}

bool tx_record_reports::complete(const tx_device_counters& c) const
{
    return d_held_count == 0 && d_underflow >= c.underflow_samples &&
           d_late >= c.late_zero_samples && d_dropped >= c.dropped_samples;
}

} // namespace rdma
} // namespace gr
