/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "metadata_monitor.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

const arg_table& metadata_arg_keys()
{
    // MD_INTERVAL_US is 32-bit microseconds: at most some 4295 s.
    // clang-format off
    static const arg_table t("metadata", {
        arg_key::flag("metadata", true, "the metadata channel (timestamps, device events); default: on when the device has CAP_METADATA"),
        arg_key::number("metadata_interval", 0, 4000, "0.1", "seconds", "seconds between the device's timestamp records; 0: none").hinted("0: no timestamps"),
    });
    // clang-format on
    return t;
}

metadata_request metadata_request::from_args(const device_args& args)
{
    const arg_table& k = metadata_arg_keys();
    metadata_request r;
    if (args.has(k["metadata"]))
        r.wanted = args.get_flag(k["metadata"]);
    r.interval_us = static_cast<uint32_t>(
        std::llround(args.get_double(k["metadata_interval"]) * 1e6));
    return r;
}

metadata_settings metadata_request::settle(const device_info& device) const
{
    const bool capable = device.has(regs::cap::metadata);
    if (wanted.value_or(capable) && !capable)
        throw std::invalid_argument(
            "device args: metadata=1, but the device does not send "
            "metadata (no METADATA capability); drop the key");
    metadata_settings s;
    s.enabled = wanted.value_or(capable);
    s.interval_us = interval_us;
    return s;
}

// ---- clock_refiner
// ---------------------------------------------------------------------

void clock_refiner::reset(const clock_estimate& start, int64_t host_ns)
{
    const int64_t error = static_cast<int64_t>(start.error_ns);
    d_lo = start.offset_ns - error;
    d_hi = start.offset_ns + error;
    d_hi_start = d_hi;
    d_start_host_ns = host_ns;
    d_count = 0;
    d_next = 0;
}

bool clock_refiner::add(uint64_t device_ns, int64_t arrival_ns)
{
    // The sample was taken before the record left, which was before it arrived.
    const int64_t bound = static_cast<int64_t>(device_ns) - arrival_ns;
    if (bound > d_hi_start + drift_allowance(arrival_ns))
        return false;
    if (bound > d_hi) { // the device drifted ahead of the upper end: move the interval
        d_lo += bound - d_hi;
        d_hi = bound;
    }
    d_bounds[d_next] = bound;
    d_next = (d_next + 1) % window;
    d_count = std::min(d_count + 1, window);
    return true;
}

clock_estimate clock_refiner::estimate() const
{
    int64_t lo = d_lo;
    for (size_t i = 0; i < d_count; i++)
        lo = std::max(lo, d_bounds[i]);
    // [offset - error, offset + error] covers [lo, hi]: round the error up.
    const uint64_t width = static_cast<uint64_t>(d_hi - lo);
    clock_estimate e;
    e.offset_ns = lo + static_cast<int64_t>(width / 2);
    e.error_ns = width - width / 2;
    return e;
}

// ---- metadata_monitor
// ------------------------------------------------------------------

int64_t clock_refiner::drift_allowance(int64_t host_ns) const
{
    const int64_t elapsed = std::max<int64_t>(0, host_ns - d_start_host_ns);
    return static_cast<int64_t>(static_cast<double>(elapsed) * max_drift);
}

metadata_monitor::metadata_monitor(std::shared_ptr<metadata_intake> intake,
                                   unsigned stream,
                                   bool rc)
    : d_intake(std::move(intake)), d_stream(stream), d_rc(rc)
{
}

void metadata_monitor::configure(axioe::client& device, uint32_t interval_us)
{
    d_started = false;
    d_intake->configure(device, interval_us, d_stream);
}

void metadata_monitor::start(rational rate,
                             uint64_t t0_ns,
                             uint64_t grace_ns,
                             const clock_estimate& start,
                             int64_t host_ns,
                             uint64_t sample_base,
                             uint64_t run_t0_ns)
{
    d_run_t0 = run_t0_ns ? run_t0_ns : t0_ns;
    d_base = sample_base;
    d_refiner.reset(start, host_ns);
    d_timeline = stream_clock(rate, t0_ns, 0, 0, 0);
    d_clock = stream_clock(rate, t0_ns, start.offset_ns, start.error_ns, grace_ns);
    d_last_poll = 0;
    // A run's reports and counts are its own: nothing of the last run carries over.
    d_queue.clear();
    d_rejected = d_t0_mismatch = d_timestamps = d_events = d_zero_substituted = 0;
    d_zero_substituted_ignored = 0;
    d_started = true;
}

void metadata_monitor::continue_at(uint64_t first, uint64_t t0_ns, rational rate)
{
    d_timeline.continue_at(first, t0_ns, rate);
    d_clock.continue_at(first, t0_ns, rate);
    d_base = first;
    d_run_t0 = t0_ns;
}

bool metadata_monitor::fits_run(const received_record& r, uint64_t end_sample) const
{
    // Its time says which run it belongs to; its samples must exist by its arrival
    // (give or take the drift the clock refiner accepts).
    const uint64_t expected = d_timeline.time_of(r.record.sample);
    const uint64_t diff = r.record.time_ns > expected ? r.record.time_ns - expected
                                                      : expected - r.record.time_ns;
    return diff <= time_tolerance_ns && end_sample >= r.record.sample &&
           end_sample <= d_clock.written_bound(r.arrival_ns +
                                               d_refiner.drift_allowance(r.arrival_ns));
}

bool metadata_monitor::poll(int64_t host_ns, loss_tracker& tracker, stream_clock& clock)
{
    // (A wall clock stepped back makes it due at once rather than stalling it.)
    if (!d_started || (host_ns >= d_last_poll && host_ns - d_last_poll < poll_period_ns))
        return false;
    d_last_poll = host_ns;
    bool refined = false;
    const size_t n = d_intake->poll(d_stream, d_records.data(), d_records.size());
    for (size_t i = 0; i < n; i++) {
        received_record r = d_records[i];
        r.record.sample += d_base; // the device run's sample, as this stream counts
        switch (r.record.type) {
        case meta::record_type::stream_start:
            if (r.record.sample != d_base || r.record.time_ns != d_run_t0)
                d_t0_mismatch++;
            break;
        case meta::record_type::timestamp:
            if (fits_run(r, r.record.sample) &&
                d_refiner.add(r.record.time_ns, r.arrival_ns)) {
                d_timestamps++;
                refined = true;
            } else {
                d_rejected++;
            }
            break;
        case meta::record_type::stream_end:
            if (!fits_run(r, r.record.sample))
                d_rejected++;
            break;
        case meta::record_type::event:
            on_event(r, tracker);
            break;
        }
    }
    if (!refined)
        return false;
    const clock_estimate e = d_refiner.estimate();
    d_clock = d_clock.with_estimate(e.offset_ns, e.error_ns);
    clock = clock.with_estimate(e.offset_ns, e.error_ns);
    return true;
}

void metadata_monitor::on_event(const received_record& r, loss_tracker& tracker)
{
    const meta::record& m = r.record;
    const bool counted = m.code == meta::event_code::zero_substituted ||
                         m.code == meta::event_code::device_overflow;
    const uint64_t end =
        counted ? m.sample + std::min(m.value, UINT64_MAX - m.sample) : m.sample;
    if (!fits_run(r, end)) {
        d_rejected++;
        return;
    }
    if (m.code == meta::event_code::zero_substituted && !d_rc) {
        d_zero_substituted_ignored++; // a UC device sends no zeros in place of samples
        return;
    }
    d_events++;
    if (m.code == meta::event_code::zero_substituted) {
        // Not a report of its own: the samples become a gap where they are handed out.
        d_zero_substituted += m.value;
        tracker.mark_substituted(m.sample, m.value);
        return;
    }
    if (m.code == meta::event_code::device_overflow && !d_rc)
        // The device never sent them (UC; on RC it sends zeros instead): whatever their
        // slots hold is not the samples, even where a late packet of the previous lap
        // landed over the mark (a stalled path).
        tracker.mark_substituted(m.sample, m.value, rx_event::reason::device_overflow);
    rx_event e;
    e.type = rx_event::kind::device;
    e.cause =
        m.code == meta::event_code::fault_injected    ? rx_event::reason::fault_injected
        : m.code == meta::event_code::device_overflow ? rx_event::reason::device_overflow
                                                      : rx_event::reason::device_other;
    e.device_item = m.sample;
    e.item = m.sample >= tracker.offset() ? m.sample - tracker.offset() : 0;
    e.count = counted ? m.value : 0;
    e.code = m.code;
    e.value = m.value;
    queue(e);
}

void metadata_monitor::queue(const rx_event& e) { d_queue.push(e); }

bool metadata_monitor::poll_event(rx_event& out) { return d_queue.pop(out); }

void metadata_monitor::read_counters(std::map<std::string, uint64_t>& out,
                                     const loss_tracker& tracker) const
{
    const metadata_counts c = d_intake->counts();
    const clock_estimate e = d_refiner.estimate();
    out["metadata.port"] = d_intake->local_address().port();
    out["metadata.inbox_overflowed"] = d_intake->overflowed(d_stream);
    out["metadata.packets"] = c.packets;
    out["metadata.bad"] = c.bad;
    out["metadata.lost"] = c.lost;
    out["metadata.duplicates"] = c.duplicates;
    out["metadata.rejected"] = d_rejected;
    out["metadata.t0_mismatch"] = d_t0_mismatch;
    out["metadata.timestamps"] = d_timestamps;
    // Two's complement: static_cast<int64_t> in C++; v - 2**64 if v >= 2**63 in Python.
    out["metadata.clock_offset_ns"] = static_cast<uint64_t>(e.offset_ns);
    out["metadata.clock_error_ns"] = e.error_ns;
    out["metadata.events"] = d_events;
    out["metadata.events_discarded"] = d_queue.discarded();
    out["metadata.zero_substituted"] = d_zero_substituted;
    out["metadata.zero_substituted_ignored"] = d_zero_substituted_ignored;
    out["metadata.resyncs"] = c.resyncs;
    out["metadata.clock_shift_ns"] = static_cast<uint64_t>(d_refiner.shift_ns());
    out["metadata.substituted_unmatched"] = tracker.substitutions_unmatched();
}

} // namespace rdma
} // namespace gr
