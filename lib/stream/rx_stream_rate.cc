/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A rate change while streaming (docs/radio.md, "Continuing a stream in a new run"):
// a timed STOP ends the old run exactly at a message boundary, and a new run at the new
// rate continues the stream's messages from there, so that the consumer's items stay one
// sequence and nothing is lost. The consumer's thread advances it (wait_items()).

#include "../util/parse_number.h"
#include "rx_stream_impl.h"
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {
// How far ahead of the device the old run is stopped: time to push the command.
constexpr int64_t stop_lead_ns = 50000000;
// An item the stream chooses itself lies this much further ahead, so that the other
// channels of a block (rx_source) can still change at the same item: each of them pushes
// its own STOP after this one, and the device moves on meanwhile. Rounding up to a
// notification boundary alone left no room when notifications are close together.
constexpr int64_t join_lead_ns = 25000000;
// The new run starts this long after the stop by default: time to see the old run's
// last samples land and to program the new one.
constexpr uint64_t restart_gap_ns = 100000000;
// A device that has not stopped this long after its stop time has failed.
constexpr int64_t stop_timeout_ns = 1000000000;
} // namespace

rx_stream::rate_change
rx_stream::impl::change_rate(double rate, uint64_t at_item, uint64_t at_ns)
{
    check_rate_change(rate);
    const uint64_t item = rate_change_item(at_item);
    const uint64_t stop_ns = d_clock.time_of(item);
    const uint64_t t1 = at_ns ? at_ns : stop_ns + restart_gap_ns;
    if (t1 <= stop_ns)
        throw std::invalid_argument("change_rate: the new run must start after the old "
                                    "one stops, at " +
                                    std::to_string(stop_ns) + " ns");
    warn_if_notifications_sparse(rate);
    d_dev->radio().stop_rx_at(d_plan.stream_index, stop_ns);
    d_rate_change = { true, rate, rational_rate(rate), item, stop_ns, t1 };
    d_logger->info("RX stream {}: the rate changes to {} S/s at sample {} (device time "
                   "{} ns)",
                   d_plan.stream_index,
                   rate,
                   item,
                   t1);
    return { item, t1 };
}

void rx_stream::impl::check_rate_change(double rate) const
{
    if (!d_running)
        throw std::logic_error("change_rate: the stream is not running; give the rate "
                               "to the next stream instead");
    if (d_plan.num_samples || d_plan.queued)
        throw std::invalid_argument("change_rate: a finite burst keeps its rate (queued "
                                    "bursts too: stop and start at the new rate)");
    // The new run starts at a message other than 0: over several destinations only a
    // device with LINKS_CONTINUE can (docs/register-map.md, START error 14).
    if (several_links())
        check_links_continue("change_rate");
    // The hosts of the other shares follow one run of the device at one rate.
    if (d_share_plan.split())
        throw std::invalid_argument("change_rate: a stream split over several hosts "
                                    "(share=) keeps its rate: stop every share's host "
                                    "and start them at the new rate");
    if (d_rate_change.pending)
        throw std::logic_error("change_rate: the last change has not taken effect yet");
    if (!d_info.has(regs::cap::command_queue) || !d_info.has(regs::cap::burst_queue))
        throw std::runtime_error(
            "the device at " + d_device->address().to_string() +
            " cannot change the rate of a running stream (it lacks COMMAND_QUEUE or "
            "BURST_QUEUE, docs/radio.md): stop the stream and start it at the new rate");
    if (!(rate > 0) || rate > 4.0e9)
        throw std::invalid_argument("change_rate: sample rate " + format_number(rate) +
                                    " S/s is out of range (0, 4e9]");
    // The ring was sized for the first rate; at a higher one it holds less time, and
    // must still hold twice the grace period (packets are judged that late).
    const double ring_s = static_cast<double>(ring_items()) / rate;
    if (ring_s < 2 * d_plan.grace_s)
        throw std::invalid_argument("change_rate: at " + format_number(rate) +
                                    " S/s the ring holds " + format_number(ring_s) +
                                    " s, less than twice the grace period (" +
                                    format_number(d_plan.grace_s) +
                                    " s): open the stream with latency= sized "
                                    "for the highest rate it will run at");
}

uint64_t rx_stream::impl::rate_change_item(uint64_t at_item) const
{
    const uint64_t P = d_plan.message_items;
    // Immediates of the new run fall where the old run's would have.
    const uint64_t step = P * std::max<uint64_t>(d_plan.notify_interval, 1);
    const int64_t now = host_time_ns();
    const uint64_t soonest =
        std::max(d_clock.written_bound(now + stop_lead_ns), d_tracker->accounted());
    const uint64_t chosen = std::max(
        d_clock.written_bound(now + stop_lead_ns + join_lead_ns), d_tracker->accounted());
    const uint64_t item = (chosen + step - 1) / step * step;
    if (at_item) {
        // Over several links the new run's epoch 0 begins at a window boundary.
        const uint64_t boundary = P * links_first_step();
        if (at_item % boundary || at_item < soonest)
            throw std::invalid_argument(
                "change_rate: item " + std::to_string(at_item) + " is not a " +
                (boundary == P ? "message boundary" : "notification window boundary") +
                " (a multiple of " + std::to_string(boundary) + ") at least " +
                std::to_string(soonest) + " (the device is there by the time the " +
                "STOP reaches it)");
        return at_item;
    }
    return item;
}

void rx_stream::impl::warn_if_notifications_sparse(double rate) const
{
    // Payload and notify stay those of the rate the stream started at (handout_pacing
    // chose them for it, or the args gave them): at a much lower rate notifications
    // come so far apart that the clock makes items final first, a grace late.
    if (!d_plan.notify_interval)
        return;
    const double spacing_s =
        static_cast<double>(d_plan.message_items) * d_plan.notify_interval / rate;
    if (spacing_s <= d_plan.grace_s)
        return;
    d_logger->warn("RX stream {}: at {} S/s a notification comes every {} ms (payload {} "
                   "B, notify {}, chosen at {} S/s): items wait for the clock instead, "
                   "up to {} ms; to keep them prompt, open the stream at the lowest rate "
                   "it will run at, or give payload= and notify= for that rate",
                   d_plan.stream_index,
                   rate,
                   format_number(spacing_s * 1e3),
                   d_plan.payload_bytes,
                   d_plan.notify_interval,
                   d_plan.sample_rate,
                   format_number(d_plan.grace_s * 1e3));
}

void rx_stream::impl::advance_rate_change()
{
    // Wait until the old run's last samples are final (landed or judged lost): then
    // nothing of it is in flight, and its queue pair may go.
    const int64_t now = host_time_ns();
    if (now < d_clock.host_time_final(d_rate_change.item) + d_lateness.late_ns())
        return;
    const uint32_t status =
        d_device->client().read32(regs::rx_reg(d_plan.stream_index, regs::rx::status));
    if (status & regs::status::running) {
        const int64_t late =
            now + d_clock.offset_ns() - static_cast<int64_t>(d_rate_change.stop_ns);
        if (late > stop_timeout_ns) {
            d_rate_change.pending = false;
            fail(rx_event::reason::stream_stopped,
                 0,
                 "the device at " + d_device->address().to_string() +
                     " did not stop RX stream " + std::to_string(d_plan.stream_index) +
                     " at the time asked, for a rate change");
        }
        return;
    }
    d_rate_change.pending = false;
    try {
        restart_at_new_rate();
    } catch (const std::exception& e) {
        fail(rx_event::reason::stream_stopped,
             0,
             "restarting RX stream " + std::to_string(d_plan.stream_index) +
                 " at the new rate failed: " + e.what());
    }
}

void rx_stream::impl::restart_at_new_rate()
{
    const rate_change_plan& c = d_rate_change;
    d_qp->to_reset();
    drain_completions();
    d_qp.reset();
    // Every message of the old run is final: each counts for its link before the new
    // run's schedule begins.
    note_links_final(c.item);
    reset_destination_qps();
    d_rate = c.ratio;
    d_plan.sample_rate = c.rate;
    d_signal.sample_rate = c.rate;
    const uint64_t t0 = program_device(c.t1_ns, c.item / d_plan.message_items);
    if (t0 != c.t1_ns)
        throw std::runtime_error("the device started at " + std::to_string(t0) +
                                 " ns, not at the START_TIME asked, " +
                                 std::to_string(c.t1_ns));
    // d_rate is what the device makes, which a master clock may round.
    d_clock.continue_at(c.item, c.t1_ns, d_rate);
    if (d_metadata)
        d_metadata->continue_at(c.item, c.t1_ns, d_rate);
    d_run_base = c.item;
    continue_links(c.item / d_plan.message_items);
    rx_event e;
    e.type = rx_event::kind::time;
    e.cause = rx_event::reason::rate_changed;
    e.device_item = c.item;
    e.item = c.item - d_tracker->offset();
    e.value = static_cast<uint64_t>(std::llround(d_plan.sample_rate * 1e3));
    d_events.push(e);
}

} // namespace rdma
} // namespace gr
