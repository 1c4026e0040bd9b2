/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../meta/metadata_packet.h"
#include "rx_descriptor.h"
#include "tx_engine.h"
#include <gnuradio/rdma/ramp.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace gr {
namespace rdma {
namespace emu {

namespace {
// The converter FIFO: messages fetched ahead of the one playing, at most this many or
// this many bytes (a lead of 50 ms at 1 GB/s would need more: the FIFO caps the lead).
constexpr size_t max_fifo_messages = 1024;
constexpr size_t fifo_bytes = 16u << 20;
constexpr size_t min_fifo_messages = 32; // more than READs can be outstanding
// The engine looks at the converter at least this often.
constexpr int64_t max_sleep_ns = 100000;
// How long STOP waits for the last READ of the control page.
constexpr int64_t final_read_ns = 20000000;
// While the host commits nothing new, the control page is read at most this often.
constexpr int64_t min_control_interval_ns = 20000;

// Time \p samples take at num / den samples per second, rounded up to the ns.
int64_t duration_of(uint32_t num, uint32_t den, uint64_t samples)
{
    using u128 = unsigned __int128;
    return static_cast<int64_t>((u128(samples) * den * 1000000000u + num - 1) / num);
}

uint64_t load_le64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
} // namespace

tx_engine::tx_engine(unsigned index,
                     wire& link,
                     ack_receiver& acks,
                     const device_clock* clock,
                     metadata_sink* metadata)
    : d_index(index),
      d_link(link),
      d_acks(acks),
      d_own_clock(clock ? nullptr : std::make_unique<device_clock>()),
      d_clock(clock ? *clock : *d_own_clock),
      d_metadata(metadata),
      d_logger(make_logger("emulator TX" + std::to_string(index)))
{
    d_thread.launch("emu-tx" + std::to_string(index),
                    [this](stream_thread::lock_type& lock) { stream(lock); });
}

tx_engine::~tx_engine() { d_thread.shutdown(); }

uint32_t tx_engine::start(const tx_descriptor& d)
{
    stream_thread::lock_type lock = d_thread.lock();
    if (d_thread.running()) {
        d_status = (d_status.load() & (regs::status::running | regs::status::done)) |
                   regs::status::error |
                   (regs::error_code::busy << regs::status::error_shift);
        return regs::error_code::busy;
    }
    const uint32_t error = validate(d, d_link.mtu());
    if (error != regs::error_code::none) {
        d_status = regs::status::error | (error << regs::status::error_shift);
        return error;
    }
    d_thread.wait_idle(lock);
    d_desc = d;
    d_item = item_size(d.format);
    d_spm = d.payload_bytes / d_item;
    const bool finite = d.num_samples && !d.queued;
    d_end = finite ? d.num_samples : UINT64_MAX;
    d_messages = finite ? (d.num_samples + d_spm - 1) / d_spm : UINT64_MAX;
    d_ring_slots = d.ring_bytes / d.payload_bytes;
    const size_t fifo = std::clamp<size_t>(
        fifo_bytes / d.payload_bytes, min_fifo_messages, max_fifo_messages);
    d_slots.assign(fifo, slot{});
    d_buffers.assign(fifo * d.payload_bytes, 0);
    d_acks.clear_tx(d_index);
    d_rq = std::make_unique<tx_requester>(d_index, d, d_link, d_acks);
    d_payload_ns = duration_of(d.rate_num, d.rate_den, d_spm);
    update_lead();
    const uint64_t t0 = d.start_time_ns ? d.start_time_ns : d_clock.now() + d_lead_ns;
    d_mono_t0 = d_clock.oscillator_at(t0);
    d_paced = d_pacing && d_pacing->on.load(std::memory_order_acquire);
    d_sched.reset(finite ? d.num_samples : 0, d.queued, d_spm);
    d_mode = mode::undecided;
    d_next_tick = 0;
    d_committed = 0;
    d_control_not_before = 0;
    d_released = d_notified = 0;
    d_underflowing = false;
    d_probed = false;
    d_failed_logged = false;
    d_uf = d_late_run = open_report{};
    d_reports.reset();
    {
        std::lock_guard<std::mutex> q(d_queue_mutex);
        if (d.queued) // a queued run takes entries from now on, from an empty queue
            d_queue.open(t0, d.rate_num, d.rate_den);
        else
            d_queue.close();
    }
    d_start_time_ns = t0;
    for (auto* c : { &d_ticks_done,
                     &d_played,
                     &d_underflow,
                     &d_late,
                     &d_reads,
                     &d_rereads,
                     &d_checked,
                     &d_mismatches,
                     &d_fetched,
                     &d_notifies,
                     &d_not_played,
                     &d_dropped,
                     &d_idle,
                     &d_bursts_done,
                     &d_time_errors })
        c->store(0);
    d_rtt_reg = 0;
    d_pacer.reset(); // a run's rate starts with no credit and no debt
    d_status = regs::status::running;
    d_thread.begin(lock);
    return regs::error_code::none;
}

void tx_engine::stop()
{
    {
        std::lock_guard<std::mutex> q(d_queue_mutex);
        d_queue.close(); // STOP drops the queue
    }
    d_thread.stop();
    d_status = d_status.load() & ~regs::status::running;
}

tx_counters tx_engine::counters() const
{
    tx_counters c;
    c.samples_played = d_played.load();
    c.underflow_samples = d_underflow.load();
    c.late_zero_samples = d_late.load();
    c.reads = d_reads.load();
    c.rereads = d_rereads.load();
    c.lead_ns = d_lead_reg.load();
    c.rtt_ns = d_rtt_reg.load();
    c.check_samples = d_checked.load();
    c.check_mismatches = d_mismatches.load();
    c.samples_fetched = d_fetched.load();
    c.notifies_sent = d_notifies.load();
    c.samples_not_played = d_not_played.load();
    c.dropped_samples = d_dropped.load();
    c.idle_ticks = d_idle.load();
    c.bursts_done = d_bursts_done.load();
    c.time_errors = d_time_errors.load();
    return c;
}

void tx_engine::stream(stream_thread::lock_type& lock)
{
    while (d_thread.running()) {
        lock.unlock();
        const int64_t now = d_clock.oscillator_now();
        const int64_t wake = step(now);
        lock.lock();
        if (burst_done() || !d_thread.running())
            break;
        const int64_t sleep_ns = std::clamp<int64_t>(wake - now, 0, max_sleep_ns);
        if (sleep_ns > 0)
            d_thread.sleep(lock, std::chrono::nanoseconds(sleep_ns));
    }
    const bool done = burst_done();
    lock.unlock();
    finish();
    lock.lock();
    // An ERROR (the requester gave up) stays until the next START.
    d_status = (done ? regs::status::done : 0) |
               (d_status.load() & (regs::status::error | regs::status::error_mask));
}

int64_t tx_engine::tick_time(uint64_t tick) const
{
    return d_mono_t0 + duration_of(d_desc.rate_num, d_desc.rate_den, tick);
}

uint64_t tx_engine::device_time(uint64_t tick) const
{
    return time_at(d_start_time_ns.load(), tick, d_desc.rate_num, d_desc.rate_den);
}

int64_t tx_engine::step(int64_t now)
{
    // What arrived first, then the converter up to now: a hardware converter and its
    // link run side by side, so the emulator's own scheduling delay (a step that comes
    // late) is charged to nobody. Data is taken as arriving when the step sees it.
    d_step_now = now;
    tx_requester::completion done[tx_requester::max_outstanding];
    const size_t n = d_rq->poll(now, done, tx_requester::max_outstanding);
    for (size_t i = 0; i < n; i++)
        handle(done[i], now);
    uint64_t reread_item = 0, missing = 0;
    if (d_rq->take_reread(reread_item, missing))
        report(meta::event_code::tx_seq_error, reread_item, d_clock.now(), missing);
    // Learn `committed` (and a first round trip) at once, not when sample 0 is due.
    if (!d_probed && !d_rq->control_outstanding()) {
        d_probed = true;
        read_control(now);
    }
    const uint64_t ticks_now =
        now <= d_mono_t0
            ? 0
            : first_sample_at(
                  uint64_t(d_mono_t0), uint64_t(now), d_desc.rate_num, d_desc.rate_den);
    int64_t wake = std::min(d_rq->next_deadline(), now + max_sleep_ns);
    take_up(ticks_now, now, wake);
    play(ticks_now);
    if (d_rq->failed() && !d_failed_logged) {
        d_failed_logged = true;
        // TX_STATUS ERROR, as an RX stream's RC requester that gave up: the host must
        // hear it, not find underflow zeros to the end (docs/roce-wire.md).
        d_status = (d_status.load() & regs::status::running) | regs::status::error;
        if (d_rq->gave_up())
            d_logger->error("TX stream {}: the host's NIC left {} READs in a row "
                            "unanswered over {} s (its queue pair out of step: a READ "
                            "the host did not expect?): no more samples are fetched",
                            d_index,
                            tx_requester::retry_limit,
                            tx_requester::give_up_ns / 1000000000);
        else
            d_logger->error("TX stream {}: the host NAKed a request fatally (its QP is "
                            "in ERROR): no more samples are fetched",
                            d_index);
    }
    // Dropped items are done as the host commits them.
    uint64_t from = 0, to = 0;
    while (d_sched.take_dropped(d_committed, window() * d_spm, from, to))
        mark_done(from, to, true);
    d_dropped = d_sched.dropped(d_committed);
    advance_released(now);
    request(now, wake);
    if (!burst_done() && d_next_tick != tx_burst_schedule::open)
        wake = std::min(wake, tick_time(std::max(d_next_tick, d_sched.tick() + 1)));
    send_reports(now, false);
    wake = std::min(wake, d_reports.next_due());
    d_reads = d_rq->sample_reads();
    d_rereads = d_rq->rereads();
    d_pacer.report(d_rq->rereads());
    return wake;
}

uint64_t tx_engine::samples_in(uint64_t m) const
{
    if (d_end == UINT64_MAX)
        return d_spm;
    const uint64_t first = m * d_spm;
    return first >= d_end ? 0 : std::min(d_spm, d_end - first);
}

uint64_t tx_engine::window() const
{
    // A slot is taken for message m once message m - slots is played past and done.
    return std::min(d_sched.item() / d_spm, d_released) + d_slots.size();
}

bool tx_engine::decide(uint64_t piece_end, uint64_t ticks_now)
{
    const uint64_t k = d_sched.item();
    const uint64_t m = k / d_spm;
    slot& s = slot_of(m);
    if (s.message == m && s.fetched_end >= piece_end - m * d_spm &&
        (!d_underflowing || refilled(k))) {
        close_reports(true, false);
        d_underflowing = false;
        d_mode = mode::play;
        return true;
    }
    if (d_paced) {
        // emu_pace=consumer: the converter waits for the piece, committed and fetched;
        // its timeline stands still at this tick meanwhile (its samples keep their
        // nominal times, device_time()).
        d_mono_t0 =
            d_step_now - duration_of(d_desc.rate_num, d_desc.rate_den, d_sched.tick());
        return false;
    }
    if (piece_end <= d_committed && !d_underflowing) {
        // Committed, not here in time: zeros for the whole piece, which is done.
        d_mode = mode::late;
        mark_done(k, piece_end, false);
        d_sched.requested(piece_end);
        return true;
    }
    // Not committed: zeros while it is not; the host's samples wait. Once it is, the
    // converter waits on (still underflow) until its FIFO holds a lead time again, so
    // that the pieces after it are not late.
    d_underflowing = true;
    const uint64_t zeros = ticks_now - d_sched.tick();
    note_underflow(k, zeros);
    d_underflow += zeros;
    d_sched.underflow(zeros);
    return false;
}

bool tx_engine::refilled(uint64_t k) const
{
    // Fetched from k on: a lead time's worth of messages, or all that is committed.
    const uint64_t need = std::min<uint64_t>(
        std::max<int64_t>(1, (d_lead_ns + d_payload_ns - 1) / d_payload_ns),
        d_slots.size() - 1);
    const uint64_t end = d_sched.current_end();
    for (uint64_t x = k, n = 0; n < need; n++) {
        const uint64_t m = x / d_spm;
        const uint64_t piece_end = std::min((m + 1) * d_spm, end);
        if (x >= end || piece_end > d_committed)
            return true;
        const slot& s = d_slots[m % d_slots.size()];
        if (s.message != m || s.fetched_end < piece_end - m * d_spm)
            return false;
        x = (m + 1) * d_spm;
    }
    return true;
}

void tx_engine::play(uint64_t ticks_now)
{
    ramp_errors errors;
    uint64_t played = 0, late = 0;
    for (;;) {
        const tx_burst_schedule::event e = d_sched.next();
        const uint64_t tick = d_sched.tick();
        if (e.kind == tx_burst_schedule::what::time_error) {
            time_error(e.item, e.time_ns);
            continue;
        }
        if (e.kind == tx_burst_schedule::what::burst_ended) {
            close_reports(true, true); // an underflow at its END ends with it
            d_mode = mode::undecided;
            burst_ended(e);
            if (burst_done())
                break;
            continue;
        }
        if (e.kind == tx_burst_schedule::what::idle) {
            d_next_tick = e.until;
            if (tick >= ticks_now)
                break;
            const uint64_t n = std::min(e.until, ticks_now) - tick;
            d_sched.idle(n);
            d_idle += n;
            continue;
        }
        // A piece: decided once, at its first item. The next decision: the piece
        // after it (while underflowing, the engine looks again at its next step).
        const uint64_t k = d_sched.item();
        d_next_tick = tick + (e.piece_end - k);
        if (tick >= ticks_now)
            break;
        if (d_mode == mode::undecided && !decide(e.piece_end, ticks_now)) {
            d_next_tick = d_sched.tick() + (e.piece_end - k);
            break;
        }
        const uint64_t n = std::min(ticks_now - tick, e.piece_end - k);
        const uint64_t m = k / d_spm;
        if (d_mode == mode::play) {
            if (d_desc.emulation.check)
                check_ramp(
                    d_desc.format, k, buffer_of(m) + (k - m * d_spm) * d_item, n, errors);
            played += n;
        } else {
            note_late(k, n);
            late += n;
        }
        d_sched.consume(n, d_mode == mode::play ? n : 0);
        if (k + n == e.piece_end) {
            if (d_mode == mode::late)
                close_reports(false, true);
            d_mode = mode::undecided;
        }
    }
    d_played += played;
    d_late += late;
    if (d_desc.emulation.check) {
        d_checked += played;
        d_mismatches += errors.mismatches;
    }
    d_ticks_done = d_sched.tick();
}

void tx_engine::read_control(int64_t now)
{
    d_rq->read(tx_requester::kind::control,
               d_committed,
               d_desc.ctrl_va,
               d_desc.ctrl_rkey,
               regs::tx::control_bytes,
               nullptr,
               now);
}

void tx_engine::request(int64_t now, int64_t& wake)
{
    if (d_rq->failed())
        return;
    const int64_t lead = d_lead_ns;
    bool want_control = false;
    d_pacer.begin_pass(now, d_rq->rereads(), d_desc.payload_bytes);
    while (d_rq->reads_outstanding() < d_desc.max_rd_atomic && d_rq->can_send()) {
        tx_burst_schedule::piece p;
        if (!d_sched.next_piece(p))
            break;
        const uint64_t m = p.first / d_spm;
        if (m >= window()) // the FIFO is full
            break;
        const int64_t due = tick_time(p.tick) - lead;
        if (now < due) {
            wake = std::min(wake, due);
            break;
        }
        if (p.end > d_committed) {
            // Never a slot the host has not written in this lap: ask how far it is.
            want_control = true;
            break;
        }
        // Held to a rate below the converter's, the requester falls behind it: a piece
        // that plays within half a lead cannot be counted on to arrive, and plays late
        // whether READ or not. Not READ, its room goes to a piece that can arrive.
        // (After an underflow the converter waits for the data: nothing plays late.)
        if (d_pacer.limited() && !d_underflowing && !d_paced &&
            tick_time(p.tick) - now < lead / 2) {
            d_sched.requested(p.end);
            continue;
        }
        // Read the control page again while what is known still covers a lead time:
        // a lost control READ then costs no underflow while the host keeps up.
        const uint64_t lead_messages =
            uint64_t(lead / std::max<int64_t>(d_payload_ns, 1)) + 1;
        if (!d_rq->control_outstanding() && now >= d_control_not_before &&
            d_rq->reads_outstanding() + 1 < d_desc.max_rd_atomic &&
            d_committed < std::min((m + 2 * lead_messages + 1) * d_spm, d_end))
            read_control(now);
        if (!d_rq->can_send())
            break; // the control READ took the last room: this piece goes next step
        const uint64_t bytes = (p.end - p.first) * d_item;
        if (!d_pacer.allows(now, bytes)) {
            wake = std::min(wake, d_pacer.next_ns());
            break;
        }
        slot& s = slot_of(m);
        if (s.message != m) {
            s = slot{};
            s.message = m;
        }
        const uint64_t offset = p.first - m * d_spm;
        const uint64_t va =
            d_desc.va + (m % d_ring_slots) * d_desc.payload_bytes + offset * d_item;
        d_rq->read(tx_requester::kind::sample,
                   p.first,
                   va,
                   d_desc.rkey,
                   static_cast<uint32_t>((p.end - p.first) * d_item),
                   buffer_of(m) + offset * d_item,
                   now);
        d_pacer.took(now, bytes);
        d_sched.requested(p.end);
    }
    // Dropped items wait for the host's commits too.
    want_control = want_control || d_sched.drops_waiting();
    if (!want_control || d_rq->control_outstanding() || d_rq->failed() ||
        d_rq->reads_outstanding() >= d_desc.max_rd_atomic || !d_rq->can_send())
        return;
    if (now < d_control_not_before)
        wake = std::min(wake, d_control_not_before);
    else
        read_control(now);
}

void tx_engine::handle(const tx_requester::completion& c, int64_t now)
{
    if (c.what == tx_requester::kind::sample) {
        const uint64_t items = c.length / d_item;
        d_fetched += items;
        const uint64_t m = c.tag / d_spm;
        slot& s = slot_of(m);
        if (s.message == m) {
            s.fetched_end = std::max(s.fetched_end, c.tag + items - m * d_spm);
            mark_done(c.tag, c.tag + items, false);
        }
    } else if (c.what == tx_requester::kind::control) {
        const uint64_t committed = load_le64(c.control);
        const uint64_t run = load_le64(c.control + 8);
        // Another run's page counts as nothing committed; the count never goes back.
        const bool news = run == d_desc.run && committed > d_committed;
        if (news)
            d_committed = committed;
        d_control_not_before =
            news ? now : now + std::max(d_payload_ns / 2, min_control_interval_ns);
    }
    if (!c.resent && c.what != tx_requester::kind::notify)
        update_lead();
}

void tx_engine::mark_done(uint64_t first, uint64_t end, bool dropped)
{
    // [first, end) lies in one message. Fetched and late items come in item order:
    // those below the watermark were counted (a late piece's READ that completes after
    // all). Dropped items are never READ nor played: counted as they come.
    const uint64_t m = first / d_spm;
    slot& s = slot_of(m);
    if (s.message != m) {
        s = slot{};
        s.message = m;
    }
    const uint64_t a = first - m * d_spm, b = end - m * d_spm;
    if (dropped) {
        s.done += b - a;
        return;
    }
    if (b > std::max(a, s.counted))
        s.done += b - std::max(a, s.counted);
    s.counted = std::max(s.counted, b);
}

void tx_engine::update_lead()
{
    // lead = clamp(2 · rtt_p99 + payload_time, min, max); max wins over min.
    const int64_t p99 = d_rq ? d_rq->rtt().p99() : 0;
    const int64_t lead =
        std::min<int64_t>(std::max<int64_t>(2 * p99 + d_payload_ns, d_desc.min_lead_ns),
                          d_desc.max_lead_ns);
    // Every change by more than 10 % is a record: the host hears the adapted lead.
    if (lead != d_lead_ns && d_lead_ns != 0 &&
        std::abs(lead - d_lead_ns) * 10 > d_lead_ns)
        report(meta::event_code::tx_lead, d_sched.item(), d_clock.now(), uint64_t(lead));
    d_lead_ns = lead;
    d_lead_reg = static_cast<uint32_t>(std::min<int64_t>(lead, UINT32_MAX));
    d_rtt_reg = static_cast<uint32_t>(std::min<int64_t>(p99, UINT32_MAX));
}

void tx_engine::advance_released(int64_t now)
{
    while (d_released < d_messages) {
        const slot& s = slot_of(d_released);
        if (s.message != d_released || s.done < samples_in(d_released))
            break;
        d_released++;
    }
    // A notification every N messages done, and one when a message holding a burst's
    // last item is done.
    const uint64_t every = d_desc.notify_interval;
    while (d_rq->can_send()) {
        const uint64_t next = std::min((d_notified / every + 1) * every,
                                       d_sched.next_end_count(d_notified));
        if (next > d_released)
            break;
        d_rq->notify(static_cast<uint32_t>(next), now);
        d_notified = next;
        d_notifies++;
    }
}

void tx_engine::finish()
{
    // What the host committed and the converter did not take: from a last READ of the
    // control page, once the READs before it are answered (RC order). The wait is
    // bounded in real time (a test's oscillator may stand still).
    const int64_t start = monotonic_ns();
    bool asked = false;
    while (!d_rq->failed()) {
        const int64_t now = d_clock.oscillator_now();
        if (monotonic_ns() - start > final_read_ns)
            break;
        tx_requester::completion done[tx_requester::max_outstanding];
        const size_t n = d_rq->poll(now, done, tx_requester::max_outstanding);
        bool got = false;
        for (size_t i = 0; i < n; i++) {
            if (asked && done[i].what == tx_requester::kind::control)
                got = true;
            handle(done[i], now);
        }
        if (got)
            break;
        if (!asked && !d_rq->control_outstanding() &&
            d_rq->reads_outstanding() < d_desc.max_rd_atomic && d_rq->can_send()) {
            read_control(now);
            asked = true;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    const uint64_t committed = std::min(d_committed, d_end);
    const uint64_t dropped = d_sched.dropped(committed);
    const uint64_t taken = d_played.load() + d_late.load() + dropped;
    d_dropped = dropped;
    d_not_played = committed > taken ? committed - taken : 0;
    d_reads = d_rq->sample_reads();
    d_rereads = d_rq->rereads();
    // The zeros not reported yet, and every record waiting: the records' values add up
    // to the counters.
    close_reports(true, true);
    send_reports(d_clock.oscillator_now(), true);
}

} // namespace emu
} // namespace rdma
} // namespace gr
