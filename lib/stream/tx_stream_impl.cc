/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The running tx_stream: the device armed, the producer's space and commits, the fetch
// notifications and the run's accounting. Construction is in tx_stream_setup.cc.

#include "../util/host_time.h"
#include "psn.h"
#include "tx_stream_impl.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

// What a fetch claim may exceed the clock's bound by: the READs in flight and one
// notification interval (messages), and this much time (scheduling, the clock's error).
constexpr int64_t fetch_slack_ns = 20000000;
// How much earlier than the host's clock estimate says the device may have taken START
// (the estimate is of a moment before it).
constexpr int64_t tx_stream_command_slack_ns = 1000000;
// How long stop() waits for the device's last notifications (they follow its STOP
// answer by a wire's delay at most).
constexpr std::chrono::milliseconds notify_drain_timeout(200);

} // namespace

void tx_stream::impl::start(uint64_t start_time_ns)
{
    if (d_running)
        return;
    // One tx_stream of this process runs a TX stream of the device at a time; the
    // stream is this host's on the device from before it is configured until after
    // it stopped: nobody else reads its keys or stops it meanwhile.
    d_claim = shared_device::claim_tx(d_dev, d_plan.stream_index);
    try {
        d_ownership->claim();
    } catch (...) {
        d_claim.reset();
        throw;
    }
    try {
        if (!d_fresh)
            begin_fresh();
        d_fresh = false;
        d_run++;
        d_page.begin_run(d_run); // committed 0 on the page, then the run number
        d_published = 0;
        // What was committed before START (a primed ring) is there from the start.
        publish();
        d_clock = d_device->estimate_clock();
        d_start_time_ns = program_device(start_time_ns);
        // Watched from START on: a reading before it would be the last run's counters.
        tx_record_reports::run run;
        run.t0_ns = d_start_time_ns;
        const int64_t command = d_start_host_ns + d_clock.offset_ns -
                                static_cast<int64_t>(d_clock.error_ns) -
                                tx_stream_command_slack_ns;
        run.command_ns = command > 0 ? static_cast<uint64_t>(command) : 1;
        run.rate = d_rate;
        run.min_lead_ns = d_plan.min_lead_ns;
        run.max_lead_ns = d_plan.max_lead_ns;
        d_watch->start(d_clock, d_ownership->enabled(), run);
        d_running = true;
        if (d_plan.queued) { // the bursts primed before START go to the device now
            d_bursts.run_started(d_start_time_ns, d_rate);
            push_bursts();
        } else { // one burst from item 0: a finite one ends at its samples
            d_log.started(0, 0, 0);
            if (d_plan.num_samples)
                d_log.ended(d_plan.num_samples);
        }
    } catch (...) {
        d_watch->stop();
        if (d_qp) {
            d_qp->to_reset();
            d_qp.reset();
        }
        d_ownership->release_quietly();
        d_claim.reset();
        throw;
    }
}

void tx_stream::impl::begin_fresh()
{
    d_fetch.reset(d_plan.message_items);
    d_committed = 0;
    d_published = 0;
    d_bursts.reset();
    d_log.reset();
    d_refused_since = d_last_try = 0;
    d_pushes = d_refusals = d_late_starts = d_timed_items = d_open_first = 0;
    d_open_timed = false;
    d_error.clear();
    d_final_known = false;
    d_final = tx_device_counters{};
    d_unseen = 0;
    d_notifications = 0;
    d_fresh = true;
}

uint64_t tx_stream::impl::program_device(uint64_t start_time_ns)
{
    const uint32_t psn = connect_qp();
    d_device->configure_tx(d_plan.stream_index, run_setup(start_time_ns, psn));
    if (d_info.has(regs::cap::emulator))
        d_device->configure_tx_emulation(d_plan.stream_index, d_plan.emulation);
    if (d_intake) // the records of this run come to the intake, none of an earlier one
        d_intake->configure_tx(
            d_device->client(), d_metadata.interval_us, d_plan.stream_index);
    if (d_info.has(regs::cap::rate_control) && d_info.has(regs::cap::tx))
        d_device->client().write32(regs::ctrl_tx_rate_limit_reg(d_plan.stream_index),
                                   d_plan.rate_limit_kib);
    d_plan.controller.apply(d_dev->rates()); // ours to write now that we own the stream
    d_start_host_ns = host_time_ns();
    if (d_pacing) // emu_pace=consumer (a test mode): this run waits for our samples
        d_pacing->on.store(true, std::memory_order_release);
    try {
        return d_device->start_tx(d_plan.stream_index);
    } catch (const std::runtime_error&) {
        // A start time already past is the sink's time_error (as gr-uhd's late command).
        const uint32_t status = d_device->client().read32(
            regs::tx_reg(d_plan.stream_index, regs::tx::status));
        const uint32_t code =
            (status & regs::status::error_mask) >> regs::status::error_shift;
        if (code == regs::error_code::start_time_passed) {
            tx_event e;
            e.type = tx_event::kind::time_error;
            e.value = code;
            e.time_ns = start_time_ns;
            d_watch->push(e);
        }
        throw;
    }
}

uint32_t tx_stream::impl::connect_qp()
{
    d_qp = d_pd->create_qp(nic::qp_type::rc, *d_cq, max_receives);
    // The device READs the ring and the page; it SENDs notifications, which need a
    // posted receive and no access right.
    d_qp->to_init(nic::access_remote_read);
    d_qp->post_receives(d_next_wr_id, max_receives);
    d_next_wr_id += max_receives;
    d_receives_posted = max_receives;
    const uint32_t psn = random_psn();
    const uint32_t device_qpn = d_device->client().read32(
        regs::tx_reg(d_plan.stream_index, regs::tx::source_qpn));
    d_qp->to_rtr({ d_link.roce, device_qpn }, psn, d_plan.path_mtu);
    d_qp->to_rts(random_psn());
    d_max_reads =
        std::clamp<unsigned>(d_qp->max_dest_rd_atomic(), 1, regs::tx::max_read_depth);
    return psn;
}

tx_setup tx_stream::impl::run_setup(uint64_t start_time_ns, uint32_t psn) const
{
    tx_setup setup;
    setup.host = d_nic->roce_address();
    setup.host_qpn = d_qp->qpn();
    setup.start_psn = psn;
    setup.rkey = d_ring_mr->rkey();
    setup.va = reinterpret_cast<uintptr_t>(d_ring->base());
    setup.ring_bytes = d_ring->bytes();
    setup.payload_bytes = d_plan.payload_bytes;
    setup.path_mtu = d_plan.path_mtu;
    setup.notify_interval = d_plan.notify_interval;
    setup.rate_num = d_rate.num;
    setup.rate_den = d_rate.den;
    setup.format = d_plan.format;
    setup.ctrl_rkey = d_page_mr->rkey();
    setup.start_time_ns = start_time_ns;
    setup.num_samples = d_plan.num_samples;
    setup.ctrl_va = reinterpret_cast<uintptr_t>(d_page.base());
    setup.max_rd_atomic = d_max_reads;
    setup.run = d_run;
    setup.min_lead_ns = d_plan.min_lead_ns;
    setup.max_lead_ns = d_plan.max_lead_ns;
    return setup;
}

void tx_stream::impl::stop()
{
    if (!d_running.exchange(false))
        return;
    d_cq->interrupt();
    d_watch->stop();
    if (d_plan.queued && d_error.empty()) {
        // The entries the device may still take, then everything committed: STOP
        // counts what was not played (its last READ of the control page).
        push_bursts();
        publish_items(d_committed);
    }
    const bool ours = settle_stop();
    if (!d_final_known)
        d_watch->abandon();
    drain_notifications();
    d_qp->to_reset();
    nic::work_completion wc[32];
    while (d_cq->poll(wc, 32) > 0) {
    }
    d_qp.reset();
    if (ours)
        d_ownership->release_quietly();
    d_claim.reset();
}

bool tx_stream::impl::settle_stop()
{
    // STOP, then the device's final counters: what it had not played is counted
    // not_played, and the last underflow and late zeros are reported. Neither may throw
    // out of stop(): a device that does not answer is said, not fatal. Returns whether
    // the stream is still this host's (to release).
    const std::string where = "the device at " + d_device->address().to_string();
    try {
        d_device->stop_tx(d_plan.stream_index);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner) {
            // Taken over (or our lease lapsed and another host claimed it): the device
            // stopped our run when that happened, and its counters are the new owner's.
            d_logger->warn("TX stream {} of {}: {}; the device had already stopped this "
                           "run",
                           d_plan.stream_index,
                           where,
                           stream_ownership::lost_note());
            return false;
        }
        d_logger->error("TX stream {}: {} could not be stopped, so its final counters "
                        "are unknown: {}",
                        d_plan.stream_index,
                        where,
                        e.what());
        return false;
    } catch (const std::exception& e) {
        d_logger->error("TX stream {}: {} could not be stopped, so its final counters "
                        "are unknown: {}",
                        d_plan.stream_index,
                        where,
                        e.what());
        return false;
    }
    try {
        d_final = d_device->read_tx_counters(d_plan.stream_index);
        d_final_known = true;
        d_watch->finish(d_final, host_time_ns());
        note_unseen_commits();
    } catch (const std::exception& e) {
        d_logger->error("TX stream {}: {} could not be read after STOP, so its final "
                        "counters are unknown: {}",
                        d_plan.stream_index,
                        where,
                        e.what());
    }
    return true;
}

void tx_stream::impl::note_unseen_commits()
{
    // The device accounts for the samples it knew committed (its last control page
    // READ). If the wire lost the READ it made at STOP, the host's last commits never
    // reached it: never fetched, never played, so not played, and said.
    const tx_device_counters& c = d_final;
    const uint64_t seen = c.samples_played + c.late_zero_samples + c.dropped_samples +
                          c.samples_not_played;
    if (seen >= d_committed)
        return;
    d_unseen = d_committed - seen;
    d_logger->warn("TX stream {}: the device's last word on what was committed was {} "
                   "samples short of the {} this host committed (its control page READ "
                   "at STOP did not come back); they are counted not played",
                   d_plan.stream_index,
                   d_unseen,
                   d_committed);
}

void tx_stream::impl::drain_notifications()
{
    // The device's last notifications may still be on the wire (or in the soft NIC's
    // queue) when STOP is answered: take them, so that what the host counts fetched is
    // the device's final word. Bounded: a notification lost for good is waited for no
    // longer than this, and fetched() stays at what did arrive.
    if (!d_final_known || !d_error.empty())
        return;
    const auto deadline = std::chrono::steady_clock::now() + notify_drain_timeout;
    for (;;) {
        pump_completions();
        if (d_notifications >= d_final.notifies_sent)
            return;
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            break;
        d_cq->wait(
            std::min<std::chrono::microseconds>(left, std::chrono::milliseconds(5)));
    }
    d_logger->warn("TX stream {}: {} of the device's {} fetch notifications arrived "
                   "before the stream stopped",
                   d_plan.stream_index,
                   d_notifications,
                   d_final.notifies_sent);
}

void tx_stream::impl::fail(tx_event::kind why, uint64_t value, const std::string& text)
{
    if (!d_error.empty())
        return;
    d_error = text;
    d_logger->error("TX stream {}: {}; the stream ends", d_plan.stream_index, text);
    tx_event e;
    e.type = why;
    e.value = value;
    d_watch->push(e);
}

void tx_stream::impl::fail_in_error(uint32_t status)
{
    const uint32_t code = (status & regs::status::error_mask) >> regs::status::error_shift;
    char hex[9];
    std::snprintf(hex, sizeof(hex), "%x", status);
    fail(tx_event::kind::stream_failed,
         status,
         "the device at " + d_device->address().to_string() + " reports TX stream " +
             std::to_string(d_plan.stream_index) + " in error (TX_STATUS 0x" + hex +
             ": " +
             (code ? std::string(regs::describe_error(code))
                   : std::string("its READ requester gave up: the host's NIC NAKed a "
                                 "READ fatally, or left its READs unanswered (a READ the "
                                 "host did not expect may have taken the queue pair's "
                                 "PSNs; with the soft NIC, nic.drop_stale_read counts what it dropped)")) +
             ")");
}

uint64_t tx_stream::impl::fetch_bound() const
{
    // The device fetches a sample at most max_lead before it plays it, and plays none
    // before START; the READs in flight and a notification interval more at most.
    const int64_t since =
        host_time_ns() - d_start_host_ns + d_plan.max_lead_ns + fetch_slack_ns;
    if (since <= 0)
        return 0;
    const double items = d_plan.sample_rate * (since * 1e-9);
    const uint64_t messages = d_max_reads + d_plan.notify_interval;
    // A burst with a time may be dropped (time_error): its items are done as soon as
    // they are committed, whenever that is.
    const uint64_t timed =
        d_timed_items +
        (d_open_timed ? d_published - std::min(d_published, d_open_first) : 0);
    return static_cast<uint64_t>(items) + messages * d_plan.message_items + timed;
}

void tx_stream::impl::pump_completions()
{
    // After stop() the device answered STOP and the final read on this thread, which
    // the watch (stopped) never saw: its verdicts are the run's, not the drain's.
    const bool watched = d_running.load();
    const int64_t now = device_liveness::now_ns();
    if (watched && d_error.empty() && d_watch->lost(now)) {
        const device_liveness& device = d_watch->liveness();
        const uint64_t silent_ms = (now - device.last_answer_ns()) / 1000000;
        const std::string why = device.last_failure();
        fail(tx_event::kind::device_lost,
             silent_ms,
             "the device at " + d_device->address().to_string() +
                 " has not answered for " + std::to_string(silent_ms) + " ms" +
                 (why.empty() ? "" : " (" + why + ")"));
    }
    if (const uint32_t status = d_watch->error_status();
        watched && status && d_error.empty())
        fail_in_error(status);
    if (watched && d_watch->stopped() && d_error.empty())
        fail(tx_event::kind::stream_stopped,
             0,
             "TX stream " + std::to_string(d_plan.stream_index) +
                 " no longer runs on the device at " + d_device->address().to_string() +
                 " (stopped by another host, its lease lapsed, or the device restarted)");
    nic::work_completion wc[32];
    int n;
    while ((n = d_cq->poll(wc, 32)) > 0) {
        const uint64_t bound = fetch_bound();
        for (int i = 0; i < n; i++) {
            if (!d_qp || wc[i].qpn != d_qp->qpn()) {
                d_foreign_completions++; // a QP of an earlier run
                continue;
            }
            d_receives_posted = std::max(d_receives_posted - 1, 0);
            if (wc[i].status != nic::wc_status::success) {
                fail(tx_event::kind::nic_error,
                     static_cast<uint64_t>(wc[i].status),
                     "the NIC " + d_nic->name() + " failed the stream's queue pair: " +
                         nic::to_string(wc[i].status));
                continue;
            }
            d_notifications++;
            d_fetch.on_immediate(wc[i].imm_data, d_published, bound);
        }
    }
    if (d_qp && d_error.empty() && d_receives_posted < max_receives / 2) {
        const int more = max_receives - d_receives_posted;
        d_qp->post_receives(d_next_wr_id, more);
        d_next_wr_id += more;
        d_receives_posted = max_receives;
    }
}

tx_stream::space tx_stream::impl::wait_space(size_t min_items,
                                             std::chrono::microseconds timeout)
{
    const size_t N = ring_items();
    if (min_items > N)
        throw std::invalid_argument("wait_space: " + std::to_string(min_items) +
                                    " items asked, the ring holds " + std::to_string(N));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    space s;
    if (!d_running) {
        // Priming before start(): the free space of the next run, nothing to wait for.
        if (!d_fresh)
            begin_fresh();
        if (N - d_committed >= std::max<size_t>(min_items, 1)) {
            s.data = d_ring->base() + (d_committed % N) * rdma::item_size(d_plan.format);
            s.items = static_cast<size_t>(N - d_committed);
        }
        s.first_item = d_committed;
        return s;
    }
    while (d_running && d_error.empty()) {
        if (d_plan.queued)
            push_bursts(); // entries waiting for the device's time or room
        pump_completions();
        const uint64_t in_use = d_committed - d_fetch.fetched();
        const size_t free_items = static_cast<size_t>(N - in_use);
        if (free_items >= std::max<size_t>(min_items, 1)) {
            const size_t item = rdma::item_size(d_plan.format);
            s.data = d_ring->base() + (d_committed % N) * item;
            s.items = free_items;
            s.first_item = d_committed;
            return s;
        }
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            break;
        // Bounded, so that stop() from another thread and the device's errors are seen.
        d_cq->wait(
            std::min<std::chrono::microseconds>(left, std::chrono::milliseconds(10)));
    }
    s.first_item = d_committed;
    return s;
}

void tx_stream::impl::commit(size_t items)
{
    if (!d_running && !d_fresh)
        begin_fresh(); // priming the next run
    const uint64_t in_use = d_committed - d_fetch.fetched();
    if (items > ring_items() - in_use)
        throw std::invalid_argument("commit: " + std::to_string(items) +
                                    " items, but only " +
                                    std::to_string(ring_items() - in_use) +
                                    " are free (wait_space() says how many)");
    if (d_plan.num_samples && !d_plan.queued && d_committed + items > d_plan.num_samples)
        throw std::invalid_argument("commit: the burst holds " +
                                    std::to_string(d_plan.num_samples) + " samples");
    if (items == 0)
        return;
    if (d_plan.queued) {
        make_room();
        d_bursts.committing(d_committed); // their burst's START, if not given yet
    }
    d_committed += items;
    if (d_plan.queued && d_running)
        push_bursts();
    publish(); // release: the samples are visible before the count
}

bool tx_stream::impl::wait_fetched(std::chrono::microseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (d_running && d_error.empty()) {
        if (d_plan.queued)
            push_bursts();
        pump_completions();
        if (d_fetch.fetched() >= d_committed)
            return true;
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        d_cq->wait(
            std::min<std::chrono::microseconds>(left, std::chrono::milliseconds(10)));
    }
    return d_fetch.fetched() >= d_committed;
}

bool tx_stream::impl::wait_played(std::chrono::microseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (d_running && d_error.empty()) {
        if (d_plan.queued)
            push_bursts();
        // Queued, entries still on the host (a late START waiting for its time, a full
        // queue) hold bursts the device has yet to play or drop.
        const bool all_pushed = !d_plan.queued || d_bursts.waiting() == 0;
        const uint64_t target = playable();
        const tx_device_counters c = d_device->read_tx_counters(d_plan.stream_index);
        if (all_pushed &&
            c.samples_played + c.late_zero_samples + c.dropped_samples >= target)
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        pump_completions(); // keep the receives posted meanwhile
        d_cq->wait(std::min<std::chrono::microseconds>(
            std::chrono::duration_cast<std::chrono::microseconds>(
                deadline - std::chrono::steady_clock::now()),
            std::chrono::milliseconds(5)));
    }
    return false;
}

tx_stream::accounting tx_stream::impl::counts()
{
    const tx_device_counters c = d_final_known || !d_running
                                     ? d_final
                                     : d_device->read_tx_counters(d_plan.stream_index);
    accounting a;
    a.host_committed = d_committed;
    a.played = c.samples_played;
    a.underflow = c.underflow_samples;
    a.late = c.late_zero_samples;
    a.dropped = c.dropped_samples;
    a.not_played = c.samples_not_played + (d_final_known ? d_unseen : 0);
    a.idle = c.idle_ticks;
    a.bursts_done = c.bursts_done;
    a.time_errors = c.time_errors;
    a.fetched = c.samples_fetched;
    a.reads = c.reads;
    a.rereads = c.rereads;
    a.lead_ns = c.lead_ns;
    a.rtt_ns = c.rtt_ns;
    a.final = d_final_known && !d_running;
    return a;
}

std::map<std::string, uint64_t> tx_stream::impl::read_counters()
{
    std::map<std::string, uint64_t> out;
    const tx_device_counters c =
        d_running ? d_device->read_tx_counters(d_plan.stream_index) : d_final;
    out["device.status"] = c.status;
    out["device.samples_played"] = c.samples_played;
    out["device.underflow_samples"] = c.underflow_samples;
    out["device.late_zero_samples"] = c.late_zero_samples;
    out["device.reads"] = c.reads;
    out["device.rereads"] = c.rereads;
    out["device.lead_ns"] = c.lead_ns;
    out["device.rtt_ns"] = c.rtt_ns;
    out["device.check_samples"] = c.check_samples;
    out["device.check_mismatches"] = c.check_mismatches;
    out["device.samples_fetched"] = c.samples_fetched;
    out["device.notifies_sent"] = c.notifies_sent;
    out["device.samples_not_played"] = c.samples_not_played;
    out["device.dropped_samples"] = c.dropped_samples;
    out["device.idle_ticks"] = c.idle_ticks;
    out["device.bursts_done"] = c.bursts_done;
    out["device.time_errors"] = c.time_errors;
    for (const auto& [name, value] : d_nic->read_counters())
        out["nic." + name] = value;
    out["host.committed"] = d_committed;
    out["host.unseen_commits"] = d_unseen;
    out["host.published"] = d_published;
    out["host.burst_pushes"] = d_pushes;
    out["host.burst_refusals"] = d_refusals;
    out["host.burst_entries_waiting"] = d_bursts.waiting();
    out["host.late_starts"] = d_late_starts;
    out["host.records"] = d_intake ? 1 : 0;
    out["host.records_accepted"] = d_watch->records_accepted();
    out["host.records_rejected"] = d_watch->records_rejected();
    out["host.records_excess"] = d_watch->records_excess();
    if (d_intake) {
        const metadata_counts m = d_intake->counts();
        out["metadata.packets"] = m.packets;
        out["metadata.bad"] = m.bad;
        out["metadata.lost"] = m.lost;
        out["metadata.duplicates"] = m.duplicates;
        out["metadata.unclaimed"] = d_intake->unclaimed();
        out["metadata.inbox_overflowed"] = d_intake->tx_overflowed(d_plan.stream_index);
    }
    out["host.fetched"] = d_fetch.fetched();
    out["host.notifications"] = d_notifications;
    out["host.implausible_fetch"] = d_fetch.implausible();
    out["host.stale_fetch"] = d_fetch.stale();
    out["host.foreign_completions"] = d_foreign_completions;
    out["host.reports_discarded"] = d_watch->discarded();
    out["host.failed_readings"] = d_watch->failed_readings();
    out["host.max_reads"] = d_max_reads;
    return out;
}

} // namespace rdma
} // namespace gr
