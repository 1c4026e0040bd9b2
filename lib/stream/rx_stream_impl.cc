/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The running rx_stream: the queue pair, completions, progress and hand-out of
// verified items. Construction is in rx_stream_setup.cc.

#include "../util/rational_rate.h"
#include "rx_stream_impl.h"
#include "sdr_impl.h"
#include "stream_args.h"
#include <algorithm>
#include <random>
#include <stdexcept>
#include <thread>

namespace gr {
namespace rdma {


void rx_stream::impl::start(uint64_t start_time_ns)
{
    if (d_running)
        return;
    try {
        claim_and_start(start_time_ns);
    } catch (const std::exception& e) {
        // No run of this host's: the stream's counters on the device are another run's
        // (another host's, which refused us, or an earlier one), never this one's books.
        d_error = "RX stream " + std::to_string(d_plan.stream_index) +
                  " did not start: " + e.what();
        d_device_note = "this host's run did not start, so the device's counters are "
                        "not its own";
        d_final_known = false;
        throw;
    }
}

void rx_stream::impl::claim_and_start(uint64_t start_time_ns)
{
    // One stream object of this process runs an RX stream of the device at a time.
    d_claim = shared_device::claim_rx(d_dev, d_plan.stream_index);
    // The stream is this host's from before it is configured until after it stopped:
    // nobody else reads its keys or stops it meanwhile.
    try {
        if (follows_share())
            await_share_layout();
        d_ownership->claim();
    } catch (...) {
        d_claim.reset();
        throw;
    }
    try {
        start_run(start_time_ns);
    } catch (...) {
        d_ownership->release_quietly();
        d_claim.reset();
        throw;
    }
}

uint64_t rx_stream::impl::device_time_now() { return d_device->device_time_ns(); }

void rx_stream::impl::start_run(uint64_t start_time_ns)
{
    d_progress.reset(d_plan.payload_bytes / rdma::item_size(d_plan.format),
                     d_plan.num_samples,
                     d_plan.notify_interval,
                     static_cast<uint32_t>(rdma::item_size(d_plan.format)));
    reset_link_progress();
    if (d_probe)
        d_probe->reset();
    // Placeholders go in before the device may write anything.
    d_tracker->reset();
    d_read_position = 0;
    d_handed_out = 0;
    d_last_chunk = 0;
    d_completions = 0;
    d_handouts = 0;
    d_last_notification_awaited = false;
    d_end_fenced = false;
    d_last_handout_ns = INT64_MIN / 2;
    d_lateness.reset(static_cast<int64_t>(d_plan.latency_budget_s * 0.25e9));
    d_paths.reset();
    d_events.clear();
    d_carried.clear();
    d_error.clear();
    d_leader_stopped = false;
    d_device_note.clear();
    d_final_known = false;
    d_outage = false;
    d_run_base = 0;
    d_clock_estimate = d_device->estimate_clock();
    const int64_t host_now = host_time_ns();
    d_start_time_ns = program_device(start_time_ns);
    if (d_plan.queued) // the bursts queued before start() go to the device now
        start_queue();
    if (start_time_ns && d_start_time_ns != start_time_ns)
        throw std::runtime_error(
            "the device started RX stream " + std::to_string(d_plan.stream_index) +
            " at " + std::to_string(d_start_time_ns) +
            " ns, not at the START_TIME asked, " + std::to_string(start_time_ns));
    d_clock = stream_clock(d_rate,
                           d_start_time_ns,
                           d_clock_estimate.offset_ns,
                           d_clock_estimate.error_ns,
                           grace_ns())
                  .with_share(d_share);
    if (d_metadata)
        d_metadata->start(
            d_rate, d_start_time_ns, grace_ns(), d_clock_estimate, host_now);
    if (d_tunes)
        d_tunes->start();
    d_watch->start(owns_stream());
    start_link_watch();
    d_running = true;
}

void rx_stream::impl::stop()
{
    if (!d_running.exchange(false))
        return;
    d_cq->interrupt();
    d_watch->stop();
    stop_link_watch();
    const bool ours = settle_stop();
    // A new run gets a new QP: packets of this run still in flight then find no QP.
    d_qp->to_reset();
    close_destinations();
    drain_completions();
    d_qp.reset();
    if (ours)
        d_ownership->release_quietly();
    d_claim.reset();
}

void rx_stream::impl::drain_completions()
{
    nic::work_completion wc[32];
    while (d_cq->poll(wc, 32) > 0) {
    }
}

void rx_stream::impl::on_notification(const nic::work_completion& wc,
                                      uint64_t produced_bound)
{
    const uint64_t before = d_progress.landed_messages();
    if (d_progress.on_immediate(wc.imm_data, wc.byte_len, produced_bound) !=
        progress_tracker::verdict::accepted)
        return;
    // RC takes packets in order only: everything up to here landed. UC: this message
    // did, whole (its completion has its full length).
    const uint64_t end = d_progress.landed_messages();
    d_tracker->prove_landed(d_plan.rc ? before : end - 1, end);
    track_lateness(d_progress.landed());
    if (d_probe)
        d_probe->on_notification(d_progress.landed(), wc.written_ns);
}

void rx_stream::impl::pump_completions()
{
    nic::work_completion wc[32];
    int n;
    while ((n = d_cq->poll(wc, 32)) > 0) {
        // What the device can have produced by now bounds what a notification may claim.
        const uint64_t produced = d_clock.written_bound(host_time_ns());
        int own = n; // completions of d_qp: each consumed one of its receives
        for (int i = 0; i < n; i++) {
            if (several_links()) {
                const int d = destination_on_stream_cq(wc[i].qpn);
                own -= d == 0 ? 0 : 1;
                if (d >= 0)
                    on_destination_completion(unsigned(d), wc[i], produced);
                continue;
            }
            if (!d_qp || wc[i].qpn != d_qp->qpn())
                continue; // a queue pair of an earlier run
            if (wc[i].status == nic::wc_status::success) {
                if (d_plan.queued)
                    route_immediate(wc[i]); // to the burst whose message it names
                else
                    on_notification(wc[i], produced);
            } else {
                // The NIC failed the queue pair (RC: a NAK it could not recover from, an
                // access error; its receives are flushed): nothing more will land.
                fail(rx_event::reason::nic_error,
                     static_cast<uint64_t>(wc[i].status),
                     "the NIC " + d_nic->name() + " failed the stream's queue pair: " +
                         nic::to_string(wc[i].status));
            }
        }
        d_completions += n;
        // Every completion consumed a posted receive (the host posts nothing else).
        // Counted here rather than asked of the QP: a soft QP would take the lock its
        // NIC thread holds across a batch.
        d_receives_posted -= std::min(d_receives_posted, own);
    }
    pump_destination_cqs();
    post_destination_receives();
    if (d_qp && d_receives_posted < max_receives / 2 && !d_end_fenced) {
        const int more = max_receives - d_receives_posted;
        d_qp->post_receives(d_next_wr_id, more);
        d_next_wr_id += more;
        d_receives_posted = max_receives;
    }
}

void rx_stream::impl::await_last_notification()
{
    // The clock can declare the burst's end before the completion of its last message
    // (which always carries immediate data) is polled; wait for it, once and briefly,
    // so that the host's completion counters are final when the stream ends.
    if (d_last_notification_awaited)
        return;
    d_last_notification_awaited = true;
    const auto give_up = std::chrono::steady_clock::now() + last_notification_timeout;
    while (d_progress.landed() < d_plan.num_samples &&
           std::chrono::steady_clock::now() < give_up) {
        d_cq->wait(std::chrono::milliseconds(1));
        pump_completions();
        follow_links();
    }
    await_substitution_records();
    fence_unsettled_end();
}

void rx_stream::impl::await_substitution_records()
{
    // RC: the device names the samples it sent as zeros in metadata records, which may
    // still be on their way when the burst's last items are handed out (a busy
    // machine: issue 30 saw 34 816 zeros handed out as samples). Wait, briefly, for as
    // many as its counter says; what does not come is named in the log and counted.
    if (!d_plan.rc || !d_metadata)
        return;
    uint64_t substituted = 0;
    try {
        substituted = d_device->client().read64(
            regs::rx_reg(d_plan.stream_index, regs::rx::zero_substituted_lo));
    } catch (const std::exception&) {
        return; // the device does not answer: the watch will say so
    }
    const auto give_up = std::chrono::steady_clock::now() + substitution_records_wait;
    while (d_metadata->zero_substituted() < substituted &&
           std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        d_metadata->poll(host_time_ns(), *d_tracker, d_clock);
    }
    if (d_metadata->zero_substituted() < substituted)
        d_logger->warn("RX stream {}: the device sent {} samples as zeros, its records "
                       "named {}: the others may be handed out as samples",
                       d_plan.stream_index,
                       substituted,
                       d_metadata->zero_substituted());
}

void rx_stream::impl::fence_unsettled_end()
{
    // The clock ended the burst, and packets the NIC has not placed yet may still
    // land: over zeros a consumer is reading as a reported gap, with nothing left to
    // tell it (the stream hands out nothing more). No packet lands after the end: the
    // QPs go to RESET (UC; RC waits for the host's ACKs, and resends in order; a
    // queued burst's QP carries the next).
    if (d_plan.rc || d_plan.queued || settled_upto() >= d_plan.num_samples)
        return;
    d_end_fenced = true;
    if (d_qp)
        d_qp->to_reset();
    for (destination_qp& q : d_destinations)
        if (q.qp)
            q.qp->to_reset();
    d_logger->debug("RX stream {}: the burst ended by the clock before the NIC placed "
                    "everything; its queue pairs take nothing more",
                    d_plan.stream_index);
}

uint64_t rx_stream::impl::written_bound_at(int64_t now_ns) const
{
    const uint64_t clock = d_clock.written_bound(now_ns);
    return d_gate ? d_gate->written_bound(clock) : clock;
}

void rx_stream::impl::update_progress(uint64_t released)
{
    const int64_t now = host_time_ns();
    const uint64_t written = written_bound_at(now);
    // Final: what immediate data proved, or what the clock says must have landed. Not
    // the clock while the device is lost: it may have stopped, or be late. A paced
    // device's timeline runs slower than the clock: what it sent a second ago is final
    // (a notification lost), or a grace period ago with notify=0 (the clock alone).
    const uint64_t by_clock =
        d_gate ? d_gate->final_by(d_plan.notify_interval ? paced_quiet_ns
                                                         : int64_t(grace_ns()))
               : d_clock.final_by(now - d_lateness.late_ns());
    const uint64_t final_upto = known_final(
        d_outage ? d_progress.landed() : std::max(d_progress.landed(), by_clock));
    d_tracker->on_release(released, written);
    if (d_gate)
        d_gate->release(d_tracker->released_device());
    if (several_links())
        update_links_unwaited();
    d_tracker->on_progress(final_upto, written, settled_upto());
    note_links_final(final_upto);
    pass_links_final(final_upto);
}

uint64_t rx_stream::impl::settled_upto() const
{
    // Notify=0: only the clock tells, and a path must then deliver within the grace.
    if (d_plan.notify_interval == 0)
        return UINT64_MAX;
    // A notification proves that its path placed every packet sent before it: the
    // NIC places one path's packets in order (docs/loss-accounting.md). Over several
    // destinations, each path settles its own (the tracker's settle_check).
    return several_links() ? d_dest_progress.settled_messages() * d_plan.message_items
                           : d_progress.landed();
}

uint64_t rx_stream::impl::may_hand_out(uint64_t next, uint64_t ready)
{
    // Asked after what is ready was settled: a retune sent after this look takes
    // effect after every sample counted ready now (its tag can still be placed).
    if (ready && d_tunes && d_tunes->change_under_way())
        return 0;
    // The burst's last items: once handed out, nothing may land in them any more.
    if (ready && d_plan.num_samples && !d_plan.queued &&
        next + ready >= d_tracker->consumer_total())
        await_last_notification();
    return ready;
}

size_t rx_stream::impl::wait_items(uint64_t next,
                                   uint64_t released,
                                   std::chrono::microseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (d_running && !watch_device()) {
            if (run_ended_or_due(deadline))
                return 0;
            continue;
        }
        if (d_rate_change.pending)
            advance_rate_change();
        pump_completions();
        follow_links();
        if (d_metadata) // refines d_clock, marks substituted samples (~1 ms apart)
            d_metadata->poll(host_time_ns(), *d_tracker, d_clock);
        update_progress(released);
        const uint64_t written = written_bound_at(host_time_ns());
        const uint64_t ready = may_hand_out(next, d_tracker->deliverable(next, written));
        if (burst_over(next)) {
            await_last_notification();
            d_tracker->settle(
                written); // the device wrote its last sample: nothing changes now
            return 0;
        }
        const int64_t now = host_time_ns();
        if (d_running && gathering(next, ready, now)) {
            // work_interval=: let more items become final and hand them out in one go,
            // which saves this thread and every downstream block a wake-up each. One
            // sleep, not a wait for each completion, even past the caller's timeout: a
            // wake-up costs more than the interval (at most a quarter of the latency
            // budget) is worth.
            const int64_t due = d_last_handout_ns + d_plan.work_interval_ns;
            std::this_thread::sleep_for(std::chrono::nanoseconds(due - now));
            d_lateness.on_wake(due, host_time_ns());
            continue;
        }
        if (ready || !d_running) {
            if (ready) {
                d_last_handout_ns = now;
                d_handouts++;
            }
            return static_cast<size_t>(ready);
        }
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return 0;
        await_progress(next, left);
    }
}

bool rx_stream::impl::run_ended_or_due(std::chrono::steady_clock::time_point deadline)
{
    // The run ended (end_of_stream() says so), or the device is lost and the stream
    // waits for it: nothing new until it answers.
    const auto left = deadline - std::chrono::steady_clock::now();
    if (!d_error.empty() || d_leader_stopped || left.count() <= 0)
        return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        left, std::chrono::milliseconds(10)));
    return false;
}

void rx_stream::impl::await_progress(uint64_t next, std::chrono::microseconds left)
{
    // Sleep until a completion, or until the clock makes the next message final.
    const uint64_t next_final =
        (d_tracker->device_item(next) / d_plan.message_items + 1) * d_plan.message_items;
    const int64_t until =
        d_clock.host_time_final(next_final) + d_lateness.late_ns() - host_time_ns();
    // Already final by the clock: what we wait for is the consumer releasing samples,
    // which nothing signals; look again in a millisecond. With clock-only progress
    // (notify=0) nothing else wakes us either: waking per packet would cost a wakeup
    // every few microseconds, so take a millisecond of packets at once.
    const int64_t shortest_us = d_plan.notify_interval ? 50 : 1000;
    const auto clock_wait = std::chrono::microseconds(
        until > 0 ? std::max<int64_t>(until / 1000, shortest_us) : 1000);
    const auto wait = std::min(left, clock_wait);
    const int64_t due = host_time_ns() + wait.count() * 1000;
    wait_completions(wait);
    d_lateness.on_wake(due, host_time_ns());
}

void rx_stream::impl::track_lateness(uint64_t landed)
{
    // How long after the clock allowed it the last notified sample was seen.
    d_lateness.on_notification(host_time_ns() - d_clock.host_time_final(landed));
}

bool rx_stream::impl::gathering(uint64_t next, uint64_t ready, int64_t now) const
{
    // Within the interval since items were last handed out; never for the end of a
    // burst (nothing more is coming), never once a quarter of the ring is waiting (the
    // consumer must keep up).
    return d_plan.work_interval_ns && now < d_last_handout_ns + d_plan.work_interval_ns &&
           next + ready < d_tracker->consumer_total() && ready < ring_items() / 4;
}

void rx_stream::impl::commit(uint64_t next, size_t count)
{
    d_tracker->commit(next, count);
    // The burst is handed out whole and nothing lands any more (wait_items() fenced
    // the NIC): judge now what the consumer holds, which a standalone reader may keep
    // without ever asking for more.
    if (d_last_notification_awaited && !d_plan.queued && burst_over(next + count))
        d_tracker->settle(written_bound_at(host_time_ns()));
    if (d_probe) // the age of the oldest item handed out
        d_probe->on_produced(d_tracker->device_item(next + count),
                             host_time_ns() -
                                 d_clock.host_time_of(d_tracker->device_item(next)));
}

bool rx_stream::impl::poll_event(rx_event& out)
{
    if (d_carried.pop(out)) // a queued burst's, final already
        return true;
    if (!d_tracker->poll_event(out) && !(d_metadata && d_metadata->poll_event(out)) &&
        !d_events.pop(out) &&
        !(d_tunes &&
          d_tunes->poll(d_tracker->handed_out(), d_tracker->offset(), d_clock, out)))
        return false;
    out.time_ns = d_clock.time_of(out.device_item);
    if (several_links() && out.type == rx_event::kind::gap)
        out.code = d_link_counts.links_of(out.device_item, out.count);
    // Queued: the current burst's items among the consumer's, and in the ring.
    out.item += d_consumer_base;
    out.device_item += d_ring_first;
    return true;
}

bool rx_stream::impl::burst_over(uint64_t next) const
{
    return d_plan.num_samples && next >= d_tracker->consumer_total();
}

bool rx_stream::impl::end_of_stream(uint64_t next) const
{
    // Queued bursts end nothing: more may come until stop().
    return !d_error.empty() || d_leader_stopped || (!d_plan.queued && burst_over(next));
}

rx_stream::accounting rx_stream::impl::counts() const
{
    const loss_counts& c = d_tracker->counts();
    accounting a;
    a.delivered = c.delivered;
    a.lost_gap = c.lost_gap;
    a.lost_skipped = c.lost_skipped;
    a.lost_overwritten = c.lost_overwritten;
    a.lost_stopped = c.lost_stopped;
    if (d_plan.queued) { // and the bursts before the current one, and after it
        const loss_counts& r = d_retired_counts;
        a.delivered += r.delivered;
        a.lost_gap += r.lost_gap;
        a.lost_skipped += r.lost_skipped;
        a.lost_overwritten += r.lost_overwritten;
        a.lost_stopped += r.lost_stopped + d_stopped_waiting;
    }
    return a;
}

rx_stream::chunk rx_stream::impl::recv(size_t max_items,
                                       std::chrono::microseconds timeout)
{
    return d_plan.queued ? recv_queued(max_items, timeout)
                         : recv_items(max_items, timeout);
}

rx_stream::chunk rx_stream::impl::recv_items(size_t max_items,
                                             std::chrono::microseconds timeout)
{
    chunk c;
    c.first_item = d_read_position;
    // Items handed out before and not released are handed out again, as they are; new
    // ones can only follow them (a skip, if any, happens there), and are committed.
    const uint64_t held = d_handed_out - d_read_position;
    const size_t fresh = wait_items(
        d_handed_out, d_read_position, held ? std::chrono::microseconds(0) : timeout);
    const size_t items = static_cast<size_t>(
        std::min<uint64_t>({ held + fresh, max_items, ring_items() }));
    if (d_read_position + items > d_handed_out) {
        commit(d_handed_out, d_read_position + items - d_handed_out);
        d_handed_out = d_read_position + items;
    }
    c.items = items;
    c.data = d_ring->base() +
             ((d_ring_first + d_tracker->device_item(d_read_position)) % ring_items()) *
                 rdma::item_size(d_plan.format);
    c.end_of_stream = end_of_stream(d_read_position + items);
    d_last_chunk = items;
    return c;
}

void rx_stream::impl::release(size_t items)
{
    if (items > d_last_chunk)
        throw std::invalid_argument("rx_stream::release(" + std::to_string(items) +
                                    "): only " + std::to_string(d_last_chunk) +
                                    " items were handed out by the last recv()");
    d_read_position += items;
    d_last_chunk -= items;
}

// ---- rx_stream: the public face ------------------------------------------------------

rx_stream::rx_stream(const std::string& args,
                     const std::string& format,
                     double sample_rate,
                     uint64_t num_samples)
    : d_impl(sdr::impl(args, rx_stream_arg_tables)
                 .rx(format, sample_rate, num_samples, sdr::args_stream))
{
}
rx_stream::rx_stream(std::unique_ptr<impl> impl) : d_impl(std::move(impl)) {}
rx_stream::~rx_stream() = default;
void rx_stream::start() { d_impl->start(0); }
void rx_stream::start_at(uint64_t device_time_ns) { d_impl->start(device_time_ns); }
uint64_t rx_stream::device_time_now() { return d_impl->device_time_now(); }
rx_stream::rate_change
rx_stream::change_rate(double rate, uint64_t at_item, uint64_t at_ns)
{
    return d_impl->change_rate(rate, at_item, at_ns);
}
uint64_t rx_stream::queue_burst(uint64_t num_samples, uint64_t at_ns, uint64_t first_item)
{
    return d_impl->queue_burst(num_samples, at_ns, first_item);
}
void rx_stream::keep_items_in_slots() { d_impl->keep_items_in_slots(); }
void rx_stream::stop() { d_impl->stop(); }
bool rx_stream::running() const { return d_impl->running(); }
namespace {
void refuse_queued(const rx_stream_plan& plan, const char* what)
{
    // A consumer of wait_items() reads item k in ring slot k; queued bursts land where
    // the host chose.
    if (plan.queued)
        throw std::logic_error(std::string("rx_stream::") + what +
                               ": queued bursts are consumed with recv() and release()");
}
} // namespace
size_t
rx_stream::wait_items(uint64_t next, uint64_t released, std::chrono::microseconds timeout)
{
    refuse_queued(d_impl->plan(), "wait_items");
    return d_impl->wait_items(next, released, timeout);
}
void rx_stream::commit(uint64_t next, size_t count)
{
    refuse_queued(d_impl->plan(), "commit");
    d_impl->commit(next, count);
}
bool rx_stream::poll_event(rx_event& out) { return d_impl->poll_event(out); }
bool rx_stream::end_of_stream(uint64_t next) const { return d_impl->end_of_stream(next); }
rx_stream::accounting rx_stream::counts() const { return d_impl->counts(); }
uint64_t rx_stream::burst_items() const
{
    return d_impl->plan().queued ? 0 : d_impl->plan().num_samples;
}
std::string rx_stream::error() const { return d_impl->error(); }
std::string rx_stream::device_note() const { return d_impl->device_note(); }
rx_stream::chunk rx_stream::recv(size_t max_items, std::chrono::microseconds timeout)
{
    return d_impl->recv(max_items, timeout);
}
void rx_stream::release(size_t items) { d_impl->release(items); }
uint8_t* rx_stream::ring_base() const { return d_impl->ring().base(); }
size_t rx_stream::ring_bytes() const { return d_impl->ring().bytes(); }
size_t rx_stream::ring_items() const { return d_impl->ring_items(); }
size_t rx_stream::item_size() const { return rdma::item_size(d_impl->plan().format); }
std::string rx_stream::format() const { return to_string(d_impl->plan().format); }
double rx_stream::sample_rate() const { return d_impl->plan().sample_rate; }
unsigned rx_stream::share_index() const { return d_impl->share().share(); }
unsigned rx_stream::share_count() const { return d_impl->share().shares(); }
uint64_t rx_stream::share_block_items() const
{
    return d_impl->share().split() ? d_impl->share().block_items() : 0;
}
bool rx_stream::hugepages() const { return d_impl->ring().hugepages(); }
bool rx_stream::memory_locked() const { return d_impl->ring().locked(); }
int rx_stream::numa_node() const { return d_impl->ring().numa_node(); }
std::string rx_stream::ring_notes() const { return d_impl->ring().notes(); }
size_t rx_stream::payload_bytes() const { return d_impl->plan().payload_bytes; }
unsigned rx_stream::path_mtu() const { return d_impl->plan().path_mtu; }
uint64_t rx_stream::start_time_ns() const { return d_impl->start_time_ns(); }
std::map<std::string, uint64_t> rx_stream::read_counters()
{
    return d_impl->read_counters();
}
std::vector<rx_stream::injected_fault> rx_stream::read_injected_faults()
{
    return d_impl->read_injected_faults();
}

} // namespace rdma
} // namespace gr
