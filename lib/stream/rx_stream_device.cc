/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device's side of an rx_stream's run: programming it, stopping it with a final
// count of what it emitted, and what the stream does when the device fails it (lost,
// stopped under us, in error) or the NIC does. The data path is in rx_stream_impl.cc.

#include "../util/parse_number.h"
#include "psn.h"
#include "rx_stream_impl.h"
#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

constexpr int64_t ns_per_ms = 1000000;
// A re-armed run starts this far ahead of the device's clock: time to program it.
constexpr int64_t rearm_lead_ns = 100 * ns_per_ms;

} // namespace

uint64_t rx_stream::impl::program_device(uint64_t start_time_ns, uint64_t first_message)
{
    const uint32_t psn = connect_qp();
    if (follows_share())
        return program_share(psn);
    // A device with a master clock makes the nearest rate it can (docs/radio.md,
    // "Sample rate"; configure_rx() warns): the stream's timeline is built on that one.
    const rational actual =
        d_device->configure_rx(d_plan.stream_index, run_setup(start_time_ns, psn));
    if (d_share_plan.split())
        split_stream();
    else
        ensure_unsplit();
    if (several_links())
        program_destinations();
    if (uint64_t(actual.num) * d_rate.den != uint64_t(d_rate.num) * actual.den) {
        d_rate = actual;
        d_plan.sample_rate = static_cast<double>(actual.num) / actual.den;
        d_signal.sample_rate = d_plan.sample_rate;
    }
    program_run_extras(first_message);
    if (d_share_plan.split())
        await_shares_ready();
    if (d_gate) // its sample 0 is the stream's first_message's first
        d_gate->arm(
            ring_items(), d_plan.message_items, first_message * d_plan.message_items);
    d_run_t0 = d_device->start_rx(d_plan.stream_index);
    return d_run_t0;
}

uint32_t rx_stream::impl::connect_qp()
{
    d_qp = d_pd->create_qp(
        d_plan.rc ? nic::qp_type::rc : nic::qp_type::uc, *d_cq, max_receives);
    d_qp->to_init(nic::access_remote_write);
    d_qp->post_receives(d_next_wr_id, max_receives);
    d_next_wr_id += max_receives;
    d_receives_posted = max_receives;
    const uint32_t psn = random_psn();
    const uint32_t device_qpn = d_device->client().read32(
        regs::rx_reg(d_plan.stream_index, regs::rx::source_qpn));
    // RC: the NIC ACKs to the link's RoCE port (d_link.roce), where the device listens.
    d_qp->to_rtr({ d_link.roce, device_qpn }, psn, d_plan.path_mtu);
    d_qp->to_rts(psn);
    open_destinations(device_qpn);
    return psn;
}

rx_setup rx_stream::impl::run_setup(uint64_t start_time_ns, uint32_t psn) const
{
    rx_setup setup;
    setup.destination = d_nic->roce_address();
    setup.dest_qpn = d_qp->qpn();
    setup.start_psn = psn;
    setup.rkey = d_mr->rkey();
    setup.va = reinterpret_cast<uintptr_t>(d_ring->base());
    setup.ring_bytes = d_ring->bytes();
    setup.payload_bytes = d_plan.payload_bytes;
    setup.path_mtu = d_plan.path_mtu;
    setup.notify_interval = d_plan.notify_interval;
    setup.rate_num = d_rate.num;
    setup.rate_den = d_rate.den;
    setup.format = d_plan.format;
    setup.num_samples = d_plan.queued ? regs::bq::queued_mode : d_plan.num_samples;
    setup.start_time_ns = start_time_ns;
    setup.transport = d_plan.rc ? regs::transport_type::rc : regs::transport_type::uc;
    setup.retx_window_bytes = d_plan.retx_window_bytes;
    if (several_links())
        setup.link_mask = (1u << d_link_plan.links) - 1;
    if (d_share_plan.split()) { // the other shares' hosts may reach any link
        setup.link_mask = (1u << std::max(d_info.num_links, 1u)) - 1;
        setup.num_samples = d_stream_samples; // the device counts the whole stream
    }
    return setup;
}

void rx_stream::impl::program_run_extras(uint64_t first_message)
{
    // A run that continues the stream at another rate numbers its messages from there
    // (docs/radio.md, RX_FIRST_MESSAGE); a device without it starts every run at 0.
    if (first_message || d_info.has(regs::cap::burst_queue))
        d_device->client().write64(
            regs::rx_reg(d_plan.stream_index, regs::rx::first_message_lo), first_message);
    if (d_info.has(regs::cap::rate_control)) {
        d_device->client().write32(regs::ctrl_rate_limit_reg(d_plan.stream_index),
                                   d_plan.rate_limit_kib);
        d_watch->watch_rate(rate_need());
    }
    d_plan.controller.apply(d_dev->rates()); // ours to write now that we own the stream
    if (d_info.has(regs::cap::emulator)) {
        d_device->configure_signal(d_plan.stream_index, d_signal);
        d_device->configure_impairments(d_plan.stream_index, d_impairments);
        configure_emulated_links();
    }
    if (d_metadata)
        d_metadata->configure(d_device->client(), d_metadata_settings.interval_us);
}

bool rx_stream::impl::settle_stop()
{
    // STOP, then the device's final count: everything it emitted is accounted for,
    // what was never handed out as lost_stopped. Neither may throw out of stop(): a
    // device that does not answer is said, not fatal. Returns whether the stream is
    // still this host's (to release).
    if (follows_share())
        return settle_share_stop();
    const std::string where = "the device at " + d_device->address().to_string();
    if (d_watch->taken_over()) {
        // Another host's now: not ours to STOP, and its counters (the new owner's, or
        // those of whoever stops it next) are never this run's books.
        d_device_note = stream_ownership::lost_note();
        return false;
    }
    if (!send_stop(where))
        return false;
    if (!d_plan.queued && device_restarted())
        return true;
    read_final_books(where);
    if (d_rearms && d_device_note.empty())
        d_device_note = "the device restarted " + std::to_string(d_rearms) +
                        " time(s) in this run: its counters cover only its last run";
    return true;
}

bool rx_stream::impl::send_stop(const std::string& where)
{
    try {
        // A split finite burst whose share 0 is whole: the other shares' last blocks
        // may still be on their way, and STOP would cut them off.
        if (d_share_plan.split() && burst_over(d_tracker->handed_out()))
            await_stream_end(
                d_device->read_status(stream_direction::rx, d_plan.stream_index));
        d_device->stop_rx(d_plan.stream_index);
    } catch (const axioe::error& e) {
        if (e.code() != axioe::status::not_owner) {
            d_device_note = "STOP failed, so its final counters are unknown: " +
                            std::string(e.what());
            d_logger->error(
                "RX stream {}: {}: {}", d_plan.stream_index, where, d_device_note);
            return false;
        }
        // Taken over (or our lease lapsed and another host claimed it): the device
        // stopped our run when that happened, and its counters are the new owner's.
        d_device_note = stream_ownership::lost_note();
        d_logger->warn("RX stream {} of {}: {}; the device had already stopped this run",
                       d_plan.stream_index,
                       where,
                       d_device_note);
        return false;
    } catch (const std::exception& e) {
        d_device_note =
            "STOP failed, so its final counters are unknown: " + std::string(e.what());
        d_logger->error(
            "RX stream {}: {}: {}", d_plan.stream_index, where, d_device_note);
        return false;
    }
    return true;
}

void rx_stream::impl::read_final_books(const std::string& where)
{
    try {
        d_final = read_share_counters();
        d_final_known = true;
        if (d_plan.queued) {
            stop_queue(d_final.samples_emitted);
        } else {
            // The device writes no more: judge what the consumer still holds (released
            // or not, a consumer that ended reads nothing new) against what it wrote, so
            // that samples overwritten while held, and gap zeros the device wrote over,
            // are told now rather than never.
            d_tracker->settle(d_run_base + d_final.samples_emitted);
            d_tracker->stopped(d_run_base + d_final.samples_emitted);
            note_not_emitted();
        }
    } catch (const std::exception& e) {
        d_device_note =
            "its counters could not be read after STOP: " + std::string(e.what());
        d_logger->error(
            "RX stream {}: {}: {}", d_plan.stream_index, where, d_device_note);
    }
}

void rx_stream::impl::report(rx_event::reason why, uint64_t count, uint64_t value)
{
    rx_event e;
    e.type = why == rx_event::reason::nic_error ? rx_event::kind::notice
                                                : rx_event::kind::device;
    e.cause = why;
    e.item = d_tracker->handed_out();
    e.device_item = d_tracker->accounted();
    e.count = count;
    e.value = value;
    d_events.push(e);
}

void rx_stream::impl::fail(rx_event::reason why, uint64_t value, const std::string& text)
{
    if (!d_error.empty())
        return; // the first failure ends the run; later ones follow from it
    d_error = text;
    d_logger->error("RX stream {}: {}; the stream ends", d_plan.stream_index, text);
    report(why, 0, value);
}

bool rx_stream::impl::device_restarted()
{
    // RX_START_TIME reads the time the run's START used until it is written again, and
    // 0 on a device that restarted: a restart during the run (the STOP then reached a
    // device that had forgotten it) leaves counters of another run, or of none, which
    // are never this run's books (docs/loss-accounting.md).
    uint64_t t0 = 0;
    try {
        t0 = d_device->client().read64(
            regs::rx_reg(d_plan.stream_index, regs::rx::start_time_lo));
    } catch (const std::exception& e) {
        d_device_note =
            "its start time could not be read after STOP: " + std::string(e.what());
        d_logger->error("RX stream {}: {}", d_plan.stream_index, d_device_note);
        return true;
    }
    if (t0 == d_run_t0)
        return false;
    d_device_note = "the device restarted during the run (RX_START_TIME reads " +
                    std::to_string(t0) + ", not this run's " + std::to_string(d_run_t0) +
                    "): its counters are another run's, so the samples it emitted are "
                    "not known";
    d_logger->warn("RX stream {}: {}", d_plan.stream_index, d_device_note);
    return true;
}

void rx_stream::impl::note_not_emitted()
{
    // A device that failed the stream stopped at once; the host heard of it at its
    // next heartbeat, its clock judging the missing samples lost meanwhile. The final
    // count says they never existed (loss_tracker::stopped).
    const uint64_t over = d_tracker->overaccounted();
    if (!over)
        return;
    const uint64_t rebooked = d_tracker->rebooked();
    d_logger->warn("RX stream {}: the host had judged {} samples lost past the {} the "
                   "device emitted (its final count): {} of them were never emitted, and "
                   "count so (host.outage_items, a device_outage report){}",
                   d_plan.stream_index,
                   over,
                   d_final.samples_emitted,
                   rebooked,
                   rebooked == over ? std::string()
                                    : "; " + std::to_string(over - rebooked) +
                                          " could not be placed: the books do not add "
                                          "up by that much");
}

uint64_t rx_stream::impl::rate_need() const
{
    // Sample bytes per second, as the device counts its demand (the converter's rate
    // times the item size on the wire); the host's own limit is its choice, no hold.
    const double bytes = d_plan.sample_rate * d_plan.payload_bytes /
                         static_cast<double>(d_plan.message_items);
    const uint64_t need = static_cast<uint64_t>(bytes);
    const uint64_t limit = uint64_t(d_plan.rate_limit_kib) * regs::ctrl::rate_unit;
    return limit && limit < need ? limit : need;
}

void rx_stream::impl::report_rate_hold()
{
    // Once per hold that began, and a line when it ends (device_watch, rate_hold).
    const uint32_t begun = d_watch->holds_begun();
    if (begun != d_holds_reported) {
        d_holds_reported = begun;
        d_rate_holds++;
        const uint64_t held = d_watch->held_bytes_per_s();
        const uint64_t need = rate_need();
        d_logger->warn("RX stream {}: the device at {} holds it to {} bytes/s (CTRL_RATE), "
                       "below the {} bytes/s its samples need: the device drops the rest "
                       "(device_overflow gaps). Its controller (ctrl_policy) gives it no "
                       "more: a link cut, a capacity or other streams' shares",
                       d_plan.stream_index,
                       d_device->address().to_string(),
                       held,
                       need);
        report(rx_event::reason::rate_held, need, held);
    }
    const uint32_t ended = d_watch->holds_ended();
    if (ended != d_hold_ends_reported) {
        d_hold_ends_reported = ended;
        d_logger->info("RX stream {}: the device no longer holds it below its rate",
                       d_plan.stream_index);
    }
}

void rx_stream::impl::begin_outage(int64_t now_ns)
{
    d_outage = true;
    d_outage_since_ns = d_watch->last_answer_ns();
    const uint64_t silent_ms = (now_ns - d_outage_since_ns) / ns_per_ms;
    const std::string why = d_watch->last_failure();
    const std::string text = "the device at " + d_device->address().to_string() +
                             " has not answered for " + std::to_string(silent_ms) +
                             " ms" + (why.empty() ? "" : " (" + why + ")");
    if (d_plan.end_on_device_loss) {
        fail(rx_event::reason::device_lost, silent_ms, text + " (on_device_loss=end)");
        return;
    }
    d_logger->warn("RX stream {}: {}; waiting for it (on_device_loss=wait)",
                   d_plan.stream_index,
                   text);
    report(rx_event::reason::device_lost, 0, silent_ms);
}

void rx_stream::impl::end_outage(int64_t now_ns)
{
    d_outage = false;
    const uint64_t outage_ms = (now_ns - d_outage_since_ns) / ns_per_ms;
    d_logger->info("RX stream {}: the device at {} answers again after {} ms",
                   d_plan.stream_index,
                   d_device->address().to_string(),
                   outage_ms);
    report(rx_event::reason::device_back, 0, outage_ms);
}

bool rx_stream::impl::owns_stream() const
{
    // A share's host owns its share; the stream is share 0's host's.
    return d_ownership->enabled() && !follows_share();
}

std::string rx_stream::impl::stopped_why() const
{
    // The device stops and frees an owned stream whose owner has been silent for its
    // lease: a process stopped (SIGSTOP) or starved that long did it to itself.
    const int64_t silence_ns = d_watch->longest_silence_ns();
    const int64_t lease_ns = static_cast<int64_t>(d_ownership->lease_ms()) * ns_per_ms;
    const std::optional<uint32_t> cause = d_watch->stop_cause();
    const bool lapsed = !cause || regs::stop_cause::how_of(*cause) ==
                                      regs::stop_cause::how::lapsed;
    if (owns_stream() && lapsed && silence_ns > lease_ns)
        return "this host's watch went " + std::to_string(silence_ns / ns_per_ms) +
               " ms without an exchange with the device, longer than its ownership "
               "lease (lease=" +
               format_number(lease_ns * 1e-9) +
               " s): the device stopped the run and freed the stream; a process stopped "
               "or starved that long loses its stream";
    if (cause) // RX_STOP_CAUSE (map 1.6): the device says
        return regs::describe_stop_cause(*cause);
    return "stopped by another host, its lease lapsed, or the device restarted";
}

bool rx_stream::impl::share_left()
{
    // RX_STOP_CAUSE (map 1.6) names a share whose host left, which stopped the stream
    // for every share: the host of each other share reports it (a device without it:
    // the others cannot tell that from share 0's STOP).
    const std::optional<uint32_t> cause = d_watch->stop_cause();
    if (!cause || !d_share_plan.split())
        return false;
    namespace sc = regs::stop_cause;
    unsigned share = 0;
    if (sc::kind_of(*cause) == sc::share_left)
        share = sc::share_of(*cause);
    else if (sc::kind_of(*cause) != sc::owner_left || d_share_plan.leads())
        return false; // share 0's host leaving is the stream's owner leaving
    const std::string stream = "RX stream " + std::to_string(d_plan.stream_index) +
                               " of the device at " + d_device->address().to_string();
    if (share == d_share_plan.share) { // this host's own share was freed
        fail(rx_event::reason::stream_stopped,
             share,
             stream + ": this host's share " + std::to_string(share) +
                 " was freed (" + stopped_why() + ")");
        return true;
    }
    fail(rx_event::reason::share_lost,
         share,
         stream + " was stopped for every share: " + regs::describe_stop_cause(*cause));
    return true;
}

bool rx_stream::impl::watch_device()
{
    if (!d_error.empty())
        return false;
    const int64_t now = device_watch::now_ns();
    switch (d_watch->current(now)) {
    case device_watch::state::ok:
        if (d_outage)
            end_outage(now);
        report_rate_hold();
        return true;
    case device_watch::state::lost:
        if (!d_outage)
            begin_outage(now);
        return false;
    case device_watch::state::stream_failed:
        fail_stream();
        return false;
    case device_watch::state::taken_over:
        // Never re-armed, whatever on_device_loss says: the stream is another host's.
        if (d_outage)
            end_outage(now);
        fail(rx_event::reason::stream_stopped,
             0,
             "RX stream " + std::to_string(d_plan.stream_index) + " of the device at " +
                 d_device->address().to_string() + " is another host's now: " +
                 stream_ownership::lost_note());
        return false;
    case device_watch::state::stream_stopped:
        break;
    }
    // Answering, but the stream is gone: stopped by another host, its ownership lease
    // lapsed, or the device restarted.
    if (d_outage)
        end_outage(now);
    return on_stream_gone();
}

void rx_stream::impl::fail_stream()
{
    const uint32_t status = d_watch->last_status();
    const uint32_t code =
        (status & regs::status::error_mask) >> regs::status::error_shift;
    fail(
        rx_event::reason::stream_failed,
        status,
        "the device at " + d_device->address().to_string() + " reports RX stream " +
            std::to_string(d_plan.stream_index) + " in error (RX_STATUS 0x" +
            [status] {
                char hex[9];
                std::snprintf(hex, sizeof(hex), "%x", status);
                return std::string(hex);
            }() +
            (code ? std::string(": ") + regs::describe_error(code)
                  : std::string(d_plan.rc ? ": its RC requester gave up (a fatal "
                                            "NAK, or retries exhausted)"
                                          : "")) +
            ")");
}

bool rx_stream::impl::on_stream_gone()
{
    if (share_left())
        return false;
    if (follows_share()) {
        // Share 0's host ends the stream for every share: this run ends with it, and
        // what was not handed out by then counts as stopped (settle_share_stop).
        if (!d_leader_stopped)
            d_logger->info("RX stream {}: share 0's host stopped the stream; {} ends",
                           d_plan.stream_index,
                           d_share_plan.name());
        d_leader_stopped = true;
        return false;
    }
    const std::string text = "RX stream " + std::to_string(d_plan.stream_index) +
                             " no longer runs on the device at " +
                             d_device->address().to_string() + " (" + stopped_why() + ")";
    if (d_plan.end_on_device_loss || d_plan.num_samples || d_items_in_slots ||
        d_plan.queued) {
        fail(rx_event::reason::stream_stopped,
             0,
             text + (d_plan.num_samples || d_plan.queued ? " (a burst is not re-armed)"
                     : d_items_in_slots
                         ? " (rx_source cannot re-arm it: GNU Radio's item k must "
                           "stay in ring slot k, and a new run starts at a ring "
                           "boundary; restart the flowgraph)"
                         : " (on_device_loss=end)"));
        return false;
    }
    d_logger->warn("{}; re-arming it (on_device_loss=wait)", text);
    report(rx_event::reason::stream_stopped);
    rearm();
    return d_error.empty();
}

void rx_stream::impl::rearm()
{
    // The stream continues with a new run of the device, at the first ring boundary (over
    // several links: window boundary) its clock has not reached with time to spare:
    // item k still lands in slot k mod N, and the new run's samples keep this stream's
    // timeline (its START_TIME is t0 + B/rate).
    try {
        if (several_links())
            check_links_continue("re-arming");
        d_watch->stop();
        const uint64_t emitted_upto = end_old_run();
        d_clock_estimate = d_device->estimate_clock();
        const int64_t host_now = host_time_ns();
        const int64_t device_now = host_now + d_clock_estimate.offset_ns;
        const uint64_t skipped_from = d_tracker->accounted();
        const uint64_t base = rearm_base(device_now, emitted_upto);
        const uint64_t t0 = restart_at(base, emitted_upto, host_now);
        d_rearms++;
        d_watch->start(owns_stream());
        const uint64_t outage = base - std::max(emitted_upto, skipped_from);
        d_logger->info("RX stream {}: re-armed; the stream continues at sample {} "
                       "(device time {} ns, {} ns ahead of its clock), after {} samples "
                       "no run of the device produced",
                       d_plan.stream_index,
                       base,
                       t0,
                       static_cast<int64_t>(t0) - device_now,
                       outage);
        report(rx_event::reason::device_outage, outage, base);
    } catch (const std::exception& e) {
        fail(rx_event::reason::stream_stopped,
             0,
             "re-arming RX stream " + std::to_string(d_plan.stream_index) +
                 " failed: " + e.what());
    }
}

uint64_t rx_stream::impl::end_old_run()
{
    // What the old run emitted, if the device still knows (its run was stopped, not
    // lost with a restart: then its start time is still ours).
    uint64_t emitted_upto = d_tracker->accounted();
    const rx_device_counters old = d_device->read_rx_counters(d_plan.stream_index);
    const uint64_t old_t0 = d_device->client().read64(
        regs::rx_reg(d_plan.stream_index, regs::rx::start_time_lo));
    const bool same_run = old_t0 == d_clock.time_of(d_run_base);
    if (same_run)
        emitted_upto = d_run_base + old.samples_emitted;
    else
        d_device_note = "the device restarted: how much of its earlier run it "
                        "emitted is unknown";
    d_qp->to_reset();
    drain_completions();
    d_qp.reset();
    reset_destination_qps();
    // A restarted device has forgotten its owners: the stream is claimed again.
    if (!same_run)
        d_ownership->claim();
    return emitted_upto;
}

uint64_t rx_stream::impl::rearm_base(int64_t device_now, uint64_t emitted_upto) const
{
    // One link: a ring boundary (the new run starts at message 0, in slot 0). Several
    // number the new run's messages from base: a window boundary, where its epoch 0
    // may begin.
    const stream_clock timeline(d_rate, d_start_time_ns, 0, 0, 0);
    const uint64_t N =
        several_links() ? d_plan.message_items * links_first_step() : ring_items();
    const uint64_t ahead = timeline.samples_at(device_now + rearm_lead_ns);
    if (ahead == 0)
        throw std::runtime_error("the device's clock is before this stream's start");
    return (std::max({ ahead, emitted_upto, d_tracker->accounted() }) + N - 1) / N * N;
}

uint64_t
rx_stream::impl::restart_at(uint64_t base, uint64_t emitted_upto, int64_t host_now)
{
    const stream_clock timeline(d_rate, d_start_time_ns, 0, 0, 0);
    const uint64_t start_time = timeline.time_of(base) + 1; // rounded up to a ns
    d_clock = stream_clock(d_rate,
                           d_start_time_ns,
                           d_clock_estimate.offset_ns,
                           d_clock_estimate.error_ns,
                           grace_ns());
    d_tracker->jump(base, emitted_upto, d_clock.written_bound(host_now));
    d_progress.rebase(base / d_plan.message_items);
    // The old run's messages count for their links; those of the outage, which no
    // run sent, for none.
    note_links_final(std::min(emitted_upto, base));
    d_link_counts.on_unsent(base / d_plan.message_items);
    d_run_base = base;
    // Over several links the new run numbers its messages from there; one link's
    // starts at 0, which lands in the same slots (base is a ring boundary).
    const uint64_t t0 =
        program_device(start_time, several_links() ? base / d_plan.message_items : 0);
    if (t0 != start_time)
        throw std::runtime_error("the device started at " + std::to_string(t0) +
                                 " ns, not at the START_TIME asked, " +
                                 std::to_string(start_time));
    if (d_metadata)
        d_metadata->start(
            d_rate, d_start_time_ns, grace_ns(), d_clock_estimate, host_now, base, t0);
    continue_links(base / d_plan.message_items);
    return t0;
}

std::vector<rx_stream::injected_fault> rx_stream::impl::read_injected_faults()
{
    if (!d_info.has(regs::cap::emulator))
        throw std::runtime_error("the device at " + d_device->address().to_string() +
                                 " is not an emulator: it injects no faults");
    // The log names the stream's messages, and is the stream owner's to read.
    if (d_share_plan.split())
        throw std::runtime_error("read_injected_faults: the fault log counts the whole "
                                 "stream's messages; this host has one share (share=): "
                                 "read it with a host of the whole stream");
    static const char* const kinds[] = {
        "none",     "drop",   "duplicate", "corrupt_icrc", "corrupt_payload",
        "bad_rkey", "bad_va", "delay",     "overflow"
    };
    const uint64_t spm = d_plan.payload_bytes / rdma::item_size(d_plan.format);
    std::vector<injected_fault> out;
    for (const auto& f : d_device->read_fault_log(d_plan.stream_index)) {
        injected_fault r;
        r.message = f.message;
        r.first_sample = f.message * spm;
        r.samples =
            d_plan.num_samples ? std::min(spm, d_plan.num_samples - r.first_sample) : spm;
        r.kind = f.kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[f.kind] : "unknown";
        out.push_back(r);
    }
    return out;
}

} // namespace rdma
} // namespace gr
