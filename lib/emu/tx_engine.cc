/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

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
constexpr uint32_t max_payload_bytes = 65536;
// A READ RESPONSE FIRST/LAST: BTH + AETH + payload + ICRC, behind IPv4 and UDP.
constexpr size_t response_overhead =
    wire::headroom + roce::bth_bytes + roce::aeth_bytes + roce::icrc_bytes;
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

uint32_t validate(const tx_descriptor& d, unsigned link_mtu)
{
    namespace ec = regs::error_code;
    const uint32_t fmt = static_cast<uint32_t>(d.format);
    if (fmt != regs::format::sc16 && fmt != regs::format::fc32 &&
        fmt != regs::format::sc8)
        return ec::bad_format;
    const size_t item = item_size(d.format);
    if (!roce::valid_path_mtu(d.path_mtu) || d.path_mtu + response_overhead > link_mtu)
        return ec::bad_mtu;
    if (d.payload_bytes == 0 || d.payload_bytes % item ||
        d.payload_bytes > max_payload_bytes)
        return ec::bad_payload;
    if (d.ring_bytes == 0 || d.ring_bytes % d.payload_bytes || d.va + d.ring_bytes < d.va)
        return ec::bad_ring;
    if (d.rate_num == 0 || d.rate_den == 0)
        return ec::bad_rate;
    if (d.host.ip() == 0 || d.host.port() == 0 || d.host_qpn == 0 ||
        d.host_qpn > 0xFFFFFF)
        return ec::bad_destination;
    if (d.link_mask != 1)
        return ec::bad_link;
    if (d.ctrl_va == 0 || d.ctrl_va % 8)
        return ec::bad_control_page;
    if (d.max_rd_atomic == 0 || d.max_rd_atomic > regs::tx::max_read_depth)
        return ec::bad_read_depth;
    return ec::none;
}

tx_engine::tx_engine(unsigned index,
                     wire& link,
                     ack_receiver& acks,
                     const device_clock* clock)
    : d_index(index),
      d_link(link),
      d_acks(acks),
      d_own_clock(clock ? nullptr : std::make_unique<device_clock>()),
      d_clock(clock ? *clock : *d_own_clock),
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
    d_end = d.num_samples ? d.num_samples : UINT64_MAX;
    d_messages = d.num_samples ? (d.num_samples + d_spm - 1) / d_spm : UINT64_MAX;
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
    d_ticks = d_k = 0;
    d_mode = mode::undecided;
    d_next_request = 0;
    d_committed = 0;
    d_control_not_before = 0;
    d_released = d_notified = 0;
    d_underflowing = false;
    d_probed = false;
    d_failed_logged = false;
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
                     &d_not_played })
        c->store(0);
    d_rtt_reg = 0;
    d_status = regs::status::running;
    d_thread.begin(lock);
    return regs::error_code::none;
}

void tx_engine::stop()
{
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
    d_status = done ? regs::status::done : 0;
}

int64_t tx_engine::tick_time(uint64_t tick) const
{
    return d_mono_t0 + duration_of(d_desc.rate_num, d_desc.rate_den, tick);
}

int64_t tx_engine::step(int64_t now)
{
    // What arrived first, then the converter up to now: a hardware converter and its
    // link run side by side, so the emulator's own scheduling delay (a step that comes
    // late) is charged to nobody. Data is taken as arriving when the step sees it.
    tx_requester::completion done[tx_requester::max_outstanding];
    const size_t n = d_rq->poll(now, done, tx_requester::max_outstanding);
    for (size_t i = 0; i < n; i++)
        handle(done[i], now);
    // Learn `committed` (and a first round trip) at once, not when sample 0 is due.
    if (!d_probed && !d_rq->control_outstanding()) {
        d_probed = true;
        d_rq->read(tx_requester::kind::control,
                   0,
                   d_desc.ctrl_va,
                   d_desc.ctrl_rkey,
                   regs::tx::control_bytes,
                   nullptr,
                   now);
    }
    const uint64_t ticks_now =
        now <= d_mono_t0
            ? 0
            : first_sample_at(
                  uint64_t(d_mono_t0), uint64_t(now), d_desc.rate_num, d_desc.rate_den);
    play(ticks_now);
    if (d_rq->failed() && !d_failed_logged) {
        d_failed_logged = true;
        d_logger->error("TX stream {}: the host NAKed a request fatally (its QP is in "
                        "ERROR): no more samples are fetched",
                        d_index);
    }
    advance_released(now);
    int64_t wake = std::min(d_rq->next_deadline(), now + max_sleep_ns);
    request(now, wake);
    // The next decision: the first tick of the message after the one playing.
    if (!burst_done()) {
        const uint64_t next_message_tick = (d_k / d_spm + 1) * d_spm + (d_ticks - d_k);
        wake = std::min(wake, tick_time(std::max(next_message_tick, d_ticks + 1)));
    }
    d_reads = d_rq->sample_reads();
    d_rereads = d_rq->rereads();
    return wake;
}

uint64_t tx_engine::samples_in(uint64_t m) const
{
    if (d_end == UINT64_MAX)
        return d_spm;
    const uint64_t first = m * d_spm;
    return first >= d_end ? 0 : std::min(d_spm, d_end - first);
}

bool tx_engine::committed_covers(uint64_t m) const
{
    return m * d_spm + samples_in(m) <= d_committed;
}

bool tx_engine::decide(uint64_t m, uint64_t ticks_now)
{
    slot& s = slot_of(m);
    if (s.message == m && s.fetched && (!d_underflowing || refilled(m))) {
        d_underflowing = false;
        d_mode = mode::play;
        return true;
    }
    if (committed_covers(m) && !d_underflowing) {
        // Committed, not here in time: zeros for the whole message, which is done.
        d_mode = mode::late;
        if (s.message != m) {
            s = slot{};
            s.message = m;
        }
        s.late = true;
        d_next_request = std::max(d_next_request, m + 1);
        return true;
    }
    // Not committed: zeros while it is not; the host's samples wait. Once it is, the
    // converter waits on (still underflow) until its FIFO holds a lead time again, so
    // that the messages after it are not late.
    d_underflowing = true;
    d_underflow += ticks_now - d_ticks;
    d_ticks = ticks_now;
    return false;
}

bool tx_engine::refilled(uint64_t m) const
{
    // Fetched from m on: a lead time's worth of messages, or all that is committed.
    const uint64_t need = std::min<uint64_t>(
        std::max<int64_t>(1, (d_lead_ns + d_payload_ns - 1) / d_payload_ns),
        d_slots.size() - 1);
    for (uint64_t j = m; j < m + need; j++) {
        if (j >= d_messages || !committed_covers(j))
            return true;
        const slot& s = d_slots[j % d_slots.size()];
        if (s.message != j || !s.fetched)
            return false;
    }
    return true;
}

void tx_engine::play(uint64_t ticks_now)
{
    ramp_errors errors;
    uint64_t played = 0, late = 0;
    while (d_ticks < ticks_now && !burst_done()) {
        const uint64_t m = d_k / d_spm;
        const uint64_t offset = d_k % d_spm;
        if (d_mode == mode::undecided && !decide(m, ticks_now))
            break;
        const uint64_t n = std::min(ticks_now - d_ticks, samples_in(m) - offset);
        if (d_mode == mode::play) {
            if (d_desc.emulation.check)
                check_ramp(d_desc.format, d_k, buffer_of(m) + offset * d_item, n, errors);
            played += n;
        } else {
            late += n;
        }
        d_k += n;
        d_ticks += n;
        if (d_k % d_spm == 0 || d_k == d_end)
            d_mode = mode::undecided;
    }
    d_played += played;
    d_late += late;
    if (d_desc.emulation.check) {
        d_checked += played;
        d_mismatches += errors.mismatches;
    }
    d_ticks_done = d_ticks;
}

void tx_engine::request(int64_t now, int64_t& wake)
{
    if (d_rq->failed())
        return;
    const int64_t lead = d_lead_ns;
    while (d_rq->reads_outstanding() < d_desc.max_rd_atomic && d_rq->can_send()) {
        const uint64_t m = d_next_request;
        if (m >= d_messages)
            break;
        if (m * d_spm < d_k) { // its first sample has played (as late zeros)
            d_next_request++;
            continue;
        }
        if (m >= d_k / d_spm + d_slots.size()) // the FIFO is full
            break;
        const int64_t due = tick_time(m * d_spm + (d_ticks - d_k)) - lead;
        if (now < due) {
            wake = std::min(wake, due);
            break;
        }
        if (!committed_covers(m)) {
            // Never a slot the host has not written in this lap: ask how far it is.
            if (d_rq->control_outstanding())
                break;
            if (now < d_control_not_before) {
                wake = std::min(wake, d_control_not_before);
                break;
            }
            d_rq->read(tx_requester::kind::control,
                       d_committed,
                       d_desc.ctrl_va,
                       d_desc.ctrl_rkey,
                       regs::tx::control_bytes,
                       nullptr,
                       now);
            break;
        }
        // Read the control page again while what is known still covers a lead time:
        // a lost control READ then costs no underflow while the host keeps up.
        const uint64_t lead_messages =
            uint64_t(lead / std::max<int64_t>(d_payload_ns, 1)) + 1;
        if (!d_rq->control_outstanding() && now >= d_control_not_before &&
            d_rq->reads_outstanding() + 1 < d_desc.max_rd_atomic &&
            !committed_covers(std::min(m + 2 * lead_messages, d_messages - 1)))
            d_rq->read(tx_requester::kind::control,
                       d_committed,
                       d_desc.ctrl_va,
                       d_desc.ctrl_rkey,
                       regs::tx::control_bytes,
                       nullptr,
                       now);
        slot& s = slot_of(m);
        s = slot{};
        s.message = m;
        s.requested = true;
        const uint64_t va = d_desc.va + (m % d_ring_slots) * d_desc.payload_bytes;
        d_rq->read(tx_requester::kind::sample,
                   m,
                   va,
                   d_desc.rkey,
                   static_cast<uint32_t>(samples_in(m) * d_item),
                   buffer_of(m),
                   now);
        d_next_request++;
    }
}

void tx_engine::handle(const tx_requester::completion& c, int64_t now)
{
    if (c.what == tx_requester::kind::sample) {
        d_fetched += samples_in(c.tag);
        slot& s = slot_of(c.tag);
        if (s.message == c.tag && !s.late) // a late message's data comes too late
            s.fetched = true;
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

void tx_engine::update_lead()
{
    // lead = clamp(2 · rtt_p99 + payload_time, min, max); max wins over min.
    const int64_t p99 = d_rq ? d_rq->rtt().p99() : 0;
    const int64_t lead =
        std::min<int64_t>(std::max<int64_t>(2 * p99 + d_payload_ns, d_desc.min_lead_ns),
                          d_desc.max_lead_ns);
    if (lead != d_lead_ns && d_lead_ns != 0 &&
        std::abs(lead - d_lead_ns) * 10 > d_lead_ns)
        d_logger->debug("TX stream {}: lead {} us (READ round trip p99 {} us)",
                        d_index,
                        lead / 1000,
                        p99 / 1000);
    d_lead_ns = lead;
    d_lead_reg = static_cast<uint32_t>(std::min<int64_t>(lead, UINT32_MAX));
    d_rtt_reg = static_cast<uint32_t>(std::min<int64_t>(p99, UINT32_MAX));
}

void tx_engine::advance_released(int64_t now)
{
    while (d_released < d_messages) {
        const slot& s = slot_of(d_released);
        if (s.message != d_released || !(s.fetched || s.late))
            break;
        d_released++;
    }
    // A notification every N messages done, and one after the burst's last.
    const uint64_t every = d_desc.notify_interval;
    while (d_rq->can_send()) {
        uint64_t next = (d_notified / every + 1) * every;
        if (next > d_released) {
            if (d_released != d_messages || d_notified == d_messages)
                break;
            next = d_messages;
        }
        d_rq->notify(static_cast<uint32_t>(next), now);
        d_notified = next;
        d_notifies++;
    }
}

void tx_engine::finish()
{
    // What the host committed and the converter did not take: from a last READ of the
    // control page, once the READs before it are answered (RC order).
    const int64_t start = d_clock.oscillator_now();
    bool asked = false;
    while (!d_rq->failed()) {
        const int64_t now = d_clock.oscillator_now();
        if (now - start > final_read_ns)
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
            d_rq->read(tx_requester::kind::control,
                       d_committed,
                       d_desc.ctrl_va,
                       d_desc.ctrl_rkey,
                       regs::tx::control_bytes,
                       nullptr,
                       now);
            asked = true;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    const uint64_t committed = std::min(d_committed, d_end);
    const uint64_t taken = d_played.load() + d_late.load();
    d_not_played = committed > taken ? committed - taken : 0;
    d_reads = d_rq->sample_reads();
    d_rereads = d_rq->rereads();
}

} // namespace emu
} // namespace rdma
} // namespace gr
