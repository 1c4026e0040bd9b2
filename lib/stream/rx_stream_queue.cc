/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Queued bursts (docs/radio.md, "Burst queue"): the device sends bursts into regions of
// the ring the host chose, at times it chose. Each burst is tracked as a finite run of
// its own: a progress tracker of its immediates, a loss tracker over the ring rotated to
// its first slot (arming only its own messages: earlier bursts may still be unreleased
// elsewhere in the ring) and a clock from its own time. The consumer's burst is swapped
// into the stream's single-run machinery, which serves it unchanged; the consumer's items
// are the bursts one after the other.

#include "rx_stream_impl.h"
#include <algorithm>
#include <stdexcept>
#include <thread>

namespace gr {
namespace rdma {

namespace {

using u128 = unsigned __int128;

uint64_t time_at(uint64_t anchor_ns, uint64_t k, rational r, bool round_up = false)
{
    const u128 ns = u128(k) * r.den * 1000000000u;
    return anchor_ns +
           static_cast<uint64_t>(round_up ? (ns + r.num - 1) / r.num : ns / r.num);
}

// The last offset, plus one, of circular range [b, b + lb) within [a, a + la) on a ring
// of n (both lengths at most n), measured from a; 0 if they do not meet.
uint64_t overlap_end(uint64_t a, uint64_t la, uint64_t b, uint64_t lb, uint64_t n)
{
    const uint64_t x = (b % n + n - a % n) % n; // b's start, from a's
    uint64_t end = 0;
    if (x < la)
        end = std::min(x + lb, la);
    if (x + lb > n) // it wraps to a's start
        end = std::max(end, std::min(x + lb - n, la));
    return end;
}

} // namespace

uint64_t rx_stream::impl::end_of(const burst_timeline& t) const
{
    // The time of the sample after the last, rounded up: what the device compares with.
    return time_at(t.anchor_ns, t.offset + t.samples, d_rate, true);
}

void rx_stream::impl::advance(burst_timeline& t, uint64_t time_ns, uint64_t samples)
{
    if (time_ns) {
        t.anchor_ns = time_ns;
        t.offset = 0;
    } else {
        t.offset += t.samples;
    }
    t.samples = samples;
}

std::unique_ptr<rx_stream::impl::burst_state>
rx_stream::impl::make_burst(uint64_t first_message, uint64_t samples)
{
    auto b = std::make_unique<burst_state>();
    b->first_message = first_message;
    b->samples = samples;
    const size_t item = rdma::item_size(d_plan.format);
    const uint64_t N = ring_items();
    ring_geometry g;
    // The ring is mapped twice back to back: N items from any slot are contiguous.
    g.ring = d_ring->base() + (first_message * d_plan.message_items % N) * item;
    g.ring_items = N;
    g.message_items = d_plan.message_items;
    g.packet_items = std::min(d_plan.payload_bytes, d_plan.path_mtu) / item;
    g.burst_items = samples;
    g.own_items_only = true;
    b->tracker = std::make_unique<loss_tracker>(g, d_plan.format);
    return b;
}

void rx_stream::impl::check_region_free(uint64_t first_item, uint64_t samples) const
{
    // The items not released yet: the current burst's from the read position, and every
    // burst waiting after it, in the order the consumer will get them.
    const uint64_t N = ring_items();
    uint64_t before = 0; // consumer items from the read position to a range's start
    uint64_t release = 0;
    for (size_t i = 0; i < d_bursts.size(); i++) {
        const burst_state& b = *d_bursts[i];
        uint64_t from = b.first_message * d_plan.message_items, count = b.samples;
        if (i == 0 && d_burst_current) {
            const uint64_t read = d_tracker->device_item(d_read_position);
            from += std::min(read, count);
            count -= std::min(read, count);
        }
        const uint64_t end = overlap_end(from, count, first_item, samples, N);
        if (end)
            release = before + end;
        before += count;
    }
    if (release)
        throw std::invalid_argument(
            "queue_burst: ring items " + std::to_string(first_item % N) + " .. " +
            std::to_string((first_item + samples - 1) % N) +
            " still hold items of earlier bursts not released: release " +
            std::to_string(release) +
            " more items first, or choose another region (first_item)");
}

uint64_t
rx_stream::impl::queue_burst(uint64_t samples, uint64_t at_ns, uint64_t first_item)
{
    if (!d_plan.queued)
        throw std::invalid_argument("queue_burst: this stream was not made for queued "
                                    "bursts: give rx_stream::queued as num_samples");
    const uint64_t P = d_plan.message_items;
    const uint64_t N = ring_items();
    if (samples == 0 || samples > N)
        throw std::invalid_argument("queue_burst: " + std::to_string(samples) +
                                    " samples is out of range 1 .. " + std::to_string(N) +
                                    " (the ring's items: a longer burst overwrites "
                                    "itself)");
    if (first_item % P)
        throw std::invalid_argument(
            "queue_burst: first_item " + std::to_string(first_item) +
            " is not on a message boundary: use a multiple of " + std::to_string(P) +
            " (payload_bytes() / item_size())");
    const uint64_t f = first_item ? first_item / P : d_bq_next_message;
    if (f < d_bq_next_message)
        throw std::invalid_argument(
            "queue_burst: first_item " + std::to_string(first_item) +
            " is behind the previous burst's region, which ends at item " +
            std::to_string(d_bq_next_message * P) + ": choose that or a later one");
    if (at_ns && d_bq_queued.known && at_ns < end_of(d_bq_queued))
        throw std::invalid_argument("queue_burst: device time " + std::to_string(at_ns) +
                                    " ns is before the end of the previous burst, " +
                                    std::to_string(end_of(d_bq_queued)) +
                                    " ns (0: right after it)");
    check_region_free(f * P, samples);
    const size_t waiting = d_bursts.size() - (d_burst_current ? 1 : 0);
    if (!d_running && waiting >= d_bq_capacity)
        throw std::runtime_error("queue_burst: the device's burst queue holds " +
                                 std::to_string(d_bq_capacity) +
                                 " bursts: queue more once the stream runs");

    std::unique_ptr<burst_state> b = make_burst(f, samples);
    b->time_ns = at_ns;
    if (d_running)
        push_burst(*b); // throws if the device refuses: nothing changed here
    d_bursts.push_back(std::move(b));
    d_bq_next_message = f + (samples + P - 1) / P;
    advance(d_bq_queued, at_ns, samples);
    if (at_ns)
        d_bq_queued.known = true;
    return f * P;
}

void rx_stream::impl::push_burst(burst_state& b)
{
    // Placeholders in its region before the device may write there; then the burst.
    b.tracker->reset();
    b.progress.reset(d_plan.message_items,
                     b.samples,
                     d_plan.notify_interval,
                     static_cast<uint32_t>(rdma::item_size(d_plan.format)));
    burst_timeline t = d_bq_pushed;
    advance(t, b.time_ns, b.samples);
    b.clock = stream_clock(d_rate,
                           time_at(t.anchor_ns, t.offset, d_rate),
                           d_clock_estimate.offset_ns,
                           d_clock_estimate.error_ns,
                           grace_ns());
    const unsigned s = d_plan.stream_index;
    const uint32_t w[regs::bq::push_words] = { regs::low_word(b.time_ns),
                                               regs::high_word(b.time_ns),
                                               regs::low_word(b.samples),
                                               regs::high_word(b.samples),
                                               regs::low_word(b.first_message),
                                               regs::high_word(b.first_message),
                                               regs::bq::op::push };
    try {
        d_device->client().write_atomic(
            regs::bq_reg(s, regs::bq::time_lo), w, regs::bq::push_words);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw std::runtime_error("the device at " + d_device->address().to_string() +
                                     ": RX stream " + std::to_string(s) +
                                     " belongs to another host now");
        const uint32_t status =
            d_device->client().read32(regs::bq_reg(s, regs::bq::status));
        static const char* const why[] = {
            "no error",
            "its queue is full (wait until the first waiting burst starts)",
            "no samples",
            "the first message is behind the previous burst's",
            "the time is before the previous burst's end",
            "another host owns the stream",
            "the stream does not run in queued mode"
        };
        const uint32_t code = regs::bq::last_error(status);
        throw std::runtime_error(
            "the device at " + d_device->address().to_string() +
            " refused the burst at message " + std::to_string(b.first_message) + ": " +
            (code < 7 ? why[code] : "error " + std::to_string(code)));
    }
    b.pushed = true;
    d_bq_pushed = t;
}

void rx_stream::impl::start_queue()
{
    // A new run: the bursts queued before start() go to the device, their times now
    // known (a seamless first burst starts at the run's start).
    d_retired_counts = loss_counts{};
    d_retired_samples = 0;
    d_stopped_waiting = 0;
    d_imm_unrouted = 0;
    d_consumer_base = 0;
    d_ring_first = 0;
    d_burst_current = false;
    d_plan.num_samples = 0;
    // The run's own tracker stands in between bursts: its start mark is no burst's.
    rx_event mark;
    while (d_tracker->poll_event(mark)) {
    }
    d_bq_capacity = regs::bq::capacity(
        d_device->client().read32(regs::bq_reg(d_plan.stream_index, regs::bq::status)));
    d_bq_pushed = burst_timeline{ true, d_start_time_ns, 0, 0 };
    d_bq_queued = d_bq_pushed;
    for (auto& b : d_bursts) {
        push_burst(*b);
        advance(d_bq_queued, b->time_ns, b->samples);
    }
}

bool rx_stream::impl::advance_burst()
{
    if (d_burst_current) {
        // The consumer's burst is current until every item of it is handed out and
        // released.
        if (!burst_over(d_handed_out) || d_read_position != d_handed_out)
            return true;
        burst_state& done = *d_bursts.front();
        rx_event e;
        while (poll_event(e)) // its own clock and items: before they are swapped out
            d_carried.push(e);
        const loss_counts& c = d_tracker->counts();
        d_retired_counts.delivered += c.delivered;
        d_retired_counts.lost_gap += c.lost_gap;
        d_retired_counts.lost_skipped += c.lost_skipped;
        d_retired_counts.lost_overwritten += c.lost_overwritten;
        d_retired_counts.lost_stopped += c.lost_stopped;
        d_retired_samples += done.samples;
        d_consumer_base += d_handed_out;
        std::swap(d_progress, done.progress);
        std::swap(d_tracker, done.tracker);
        std::swap(d_clock, done.clock);
        d_bursts.pop_front();
        d_burst_current = false;
        d_plan.num_samples = 0;
        d_ring_first = 0;
    }
    if (d_bursts.empty() || !d_bursts.front()->pushed)
        return false;
    burst_state& next = *d_bursts.front();
    std::swap(d_progress, next.progress);
    std::swap(d_tracker, next.tracker);
    std::swap(d_clock, next.clock);
    d_burst_current = true;
    d_plan.num_samples = next.samples;
    d_ring_first = next.first_message * d_plan.message_items;
    d_read_position = 0;
    d_handed_out = 0;
    d_last_chunk = 0;
    d_last_notification_awaited = false;
    return true;
}

void rx_stream::impl::route_immediate(const nic::work_completion& wc)
{
    // The immediate is the message's number (low 32 bits): the burst that holds it.
    const int64_t now = host_time_ns();
    for (size_t i = 0; i < d_bursts.size(); i++) {
        burst_state& b = *d_bursts[i];
        const uint32_t rel = wc.imm_data - static_cast<uint32_t>(b.first_message);
        if (!b.pushed || rel >= b.messages(d_plan.message_items))
            continue;
        const bool current = i == 0 && d_burst_current;
        progress_tracker& progress = current ? d_progress : b.progress;
        loss_tracker& tracker = current ? *d_tracker : *b.tracker;
        const stream_clock& clock = current ? d_clock : b.clock;
        const uint64_t before = progress.landed_messages();
        if (progress.on_immediate(rel, wc.byte_len, clock.written_bound(now)) !=
            progress_tracker::verdict::accepted)
            return;
        const uint64_t end = progress.landed_messages();
        tracker.prove_landed(d_plan.rc ? before : end - 1, end);
        if (current)
            track_lateness(progress.landed());
        return;
    }
    d_imm_unrouted++;
}

rx_stream::chunk rx_stream::impl::recv_queued(size_t max_items,
                                              std::chrono::microseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (!advance_burst()) {
            // No burst to hand out yet: keep the completions flowing.
            chunk c;
            c.first_item = d_consumer_base;
            if (d_running && !watch_device() && !d_error.empty()) {
                c.end_of_stream = true;
                return c;
            }
            if (d_running)
                pump_completions();
            const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0 || !d_running)
                return c;
            d_cq->wait(std::min(left, std::chrono::microseconds(1000)));
            continue;
        }
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        chunk c = recv_items(max_items, std::max(left, std::chrono::microseconds(0)));
        c.first_item += d_consumer_base;
        c.end_of_stream = !d_error.empty();
        // Nothing, because this burst is over: the next one, if it is there.
        if (c.items || c.end_of_stream || !burst_over(d_handed_out) ||
            d_read_position != d_handed_out ||
            std::chrono::steady_clock::now() >= deadline)
            return c;
    }
}

void rx_stream::impl::stop_queue(uint64_t emitted)
{
    // The device counts the samples of all bursts in the order it sent them: those
    // handed out whole come first, then the consumer's, then those it never reached.
    uint64_t left = emitted > d_retired_samples ? emitted - d_retired_samples : 0;
    for (size_t i = 0; i < d_bursts.size(); i++) {
        const burst_state& b = *d_bursts[i];
        if (!b.pushed)
            break;
        const uint64_t e = std::min(left, b.samples);
        left -= e;
        if (i == 0 && d_burst_current)
            d_tracker->stopped(e);
        else
            d_stopped_waiting += e;
    }
    d_bursts.clear();
    d_burst_current = false; // d_tracker keeps the last burst's counts
    d_bq_next_message = 0;
    d_bq_queued = burst_timeline{};
}

} // namespace rdma
} // namespace gr
