/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_burst_schedule.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace err = regs::tbq::error;
namespace op = regs::tbq::op;

// ---- The entry queue ------------------------------------------------------------------

void tx_entry_queue::open(uint64_t t0_ns, uint32_t rate_num, uint32_t rate_den)
{
    d_head = d_count = 0;
    d_open = true;
    d_rate_num = rate_num ? rate_num : 1;
    d_rate_den = rate_den ? rate_den : 1;
    d_pushed = state{};
    d_pushed.anchor_ns = t0_ns;
    d_taken = d_pushed;
}

void tx_entry_queue::close()
{
    d_head = d_count = 0;
    d_open = false;
}

uint32_t tx_entry_queue::check(const state& s, const tx_entry& e) const
{
    if (!d_open)
        return err::not_running;
    if (d_count == capacity)
        return err::full;
    if (e.op == op::start) {
        if (s.burst_open)
            return err::sequence;
        if (e.item != s.item)
            return err::item_order;
        // The earliest the burst after the last END can start: as far as known, which
        // is from the last timed START (a burst that started as soon as possible may
        // only have started later).
        using u128 = unsigned __int128;
        const uint64_t end =
            s.anchor_ns +
            static_cast<uint64_t>(
                (u128(s.offset) * d_rate_den * 1000000000u + d_rate_num - 1) /
                d_rate_num);
        if (e.time_ns != 0 && e.time_ns < end)
            return err::time_behind;
        return err::none;
    }
    if (!s.burst_open)
        return err::sequence;
    return e.item > s.item ? err::none : err::item_order;
}

void tx_entry_queue::apply(state& s, const tx_entry& e)
{
    if (e.op == op::start) {
        s.burst_open = true;
        s.item = e.item;
        if (e.time_ns) {
            s.anchor_ns = e.time_ns;
            s.offset = 0;
        }
        return;
    }
    s.burst_open = false;
    s.offset += e.item - s.item;
    s.item = e.item;
}

uint32_t tx_entry_queue::push(const tx_entry& e)
{
    const uint32_t error = check(d_pushed, e);
    if (error != err::none)
        return error;
    d_ring[(d_head + d_count++) % capacity] = e;
    apply(d_pushed, e);
    return err::none;
}

void tx_entry_queue::clear()
{
    d_head = d_count = 0;
    d_pushed = d_taken;
}

void tx_entry_queue::pop()
{
    if (d_count == 0)
        return;
    apply(d_taken, d_ring[d_head]);
    d_head = (d_head + 1) % capacity;
    d_count--;
}

// ---- The schedule
// ----------------------------------------------------------------------

void tx_burst_schedule::reset(uint64_t samples, bool queued, uint64_t spm)
{
    *this = tx_burst_schedule();
    d_spm = spm ? spm : 1;
    if (queued)
        return;
    burst b;
    b.end = samples ? samples : open;
    b.fixed = true;
    add(b);
    if (samples)
        d_ends[d_ends_count++] = (samples - 1) / d_spm;
}

bool tx_burst_schedule::can_start() const
{
    return d_count < capacity && d_ends_count + 1 < end_capacity;
}

bool tx_burst_schedule::can_end() const { return d_ends_count < end_capacity; }

void tx_burst_schedule::add(const burst& b)
{
    d_bursts[(d_head + d_count++) % capacity] = b;
}

int64_t tx_burst_schedule::offset_of(size_t i) const
{
    const burst& b = at(i);
    if (b.fixed)
        return b.offset;
    return static_cast<int64_t>(start_tick(i)) - static_cast<int64_t>(b.first);
}

uint64_t tx_burst_schedule::end_tick(size_t i) const
{
    const burst& b = at(i);
    if (b.end == open)
        return open;
    return static_cast<uint64_t>(static_cast<int64_t>(b.end) + offset_of(i));
}

uint64_t tx_burst_schedule::start_tick(size_t i) const
{
    const burst& b = at(i);
    if (b.fixed)
        return static_cast<uint64_t>(static_cast<int64_t>(b.first) + b.offset);
    // As soon as possible: right after the last burst before it that plays (a dropped
    // one takes no time).
    for (size_t j = i; j-- > 0;)
        if (!at(j).dropped)
            return end_tick(j);
    return d_last_end_tick;
}

uint64_t tx_burst_schedule::free_tick() const
{
    for (size_t j = d_count; j-- > 0;)
        if (!at(j).dropped)
            return end_tick(j);
    return d_last_end_tick;
}

void tx_burst_schedule::drop(burst& b)
{
    b.dropped = true;
    // What was READ before the drop is done when its READ completes.
    b.drop_from = std::max(b.first, d_r);
    b.handed = b.drop_from;
}

bool tx_burst_schedule::start_at(uint64_t tick, uint64_t time_ns, uint64_t ticks_now)
{
    burst b;
    b.first = d_next_first;
    b.time_ns = time_ns;
    b.fixed = true;
    b.offset = static_cast<int64_t>(tick) - static_cast<int64_t>(b.first);
    const bool late = tick < ticks_now || tick < free_tick();
    if (late)
        drop(b);
    add(b);
    return !late;
}

void tx_burst_schedule::start_asap(uint64_t ticks_now, uint64_t lead_ticks)
{
    burst b;
    b.first = d_next_first;
    if (free_tick() < ticks_now) { // the burst before it has played: a lead from now
        b.fixed = true;
        b.offset =
            static_cast<int64_t>(ticks_now + lead_ticks) - static_cast<int64_t>(b.first);
    }
    add(b);
}

uint64_t tx_burst_schedule::end(uint64_t e)
{
    if (d_count == 0 || at(d_count - 1).end != open)
        return d_next_first; // no open burst (the queue's checks make this unreachable)
    const size_t i = d_count - 1;
    burst& b = at(i);
    // What the converter took of the burst is the burst's (the host committed past
    // its END before pushing it).
    e = std::max(e, b.first);
    if (i == d_cur)
        e = std::max(e, d_k);
    b.end = e;
    d_next_first = e;
    if (e > b.first)
        d_ends[(d_ends_head + d_ends_count++) % end_capacity] = (e - 1) / d_spm;
    return e;
}

void tx_burst_schedule::underflow(uint64_t ticks)
{
    d_tick += ticks;
    if (d_cur != none)
        at(d_cur).offset += static_cast<int64_t>(ticks);
}

void tx_burst_schedule::consume(uint64_t items, uint64_t played)
{
    d_k += items;
    d_tick += items;
    if (d_cur != none)
        at(d_cur).played += played;
}

uint64_t tx_burst_schedule::current_end() const
{
    return d_cur == none ? open : at(d_cur).end;
}

tx_burst_schedule::event tx_burst_schedule::next()
{
    event ev;
    for (;;) {
        if (d_cur != none) {
            burst& b = at(d_cur);
            if (d_k < b.end) {
                ev.kind = what::piece;
                ev.piece_end = std::min((d_k / d_spm + 1) * d_spm, b.end);
                return ev;
            }
            b.passed = true;
            d_last_end_tick = d_tick;
            d_cur = none;
            ev.kind = what::burst_ended;
            ev.item = b.end;
            ev.played = b.played;
            retire();
            return ev;
        }
        size_t i = 0;
        while (i < d_count && at(i).passed)
            i++;
        if (i == d_count) {
            ev.kind = what::idle;
            ev.until = open;
            return ev;
        }
        burst& b = at(i);
        if (b.dropped) {
            if (b.end == open) { // it plays nothing, and nothing after it is known
                ev.kind = what::idle;
                ev.until = open;
                return ev;
            }
            b.passed = true;
            d_k = std::max(d_k, b.end);
            retire();
            continue;
        }
        const uint64_t start = start_tick(i);
        if (start < d_tick && b.time_ns != 0) {
            // Its time passed while the burst before it played on (underflow).
            drop(b);
            ev.kind = what::time_error;
            ev.item = b.first;
            ev.time_ns = b.time_ns;
            return ev;
        }
        if (start > d_tick) {
            ev.kind = what::idle;
            ev.until = start;
            return ev;
        }
        b.fixed = true;
        b.offset = static_cast<int64_t>(d_tick) - static_cast<int64_t>(b.first);
        d_k = b.first;
        d_cur = i;
    }
}

bool tx_burst_schedule::next_piece(piece& p)
{
    uint64_t r = std::max(d_r, d_k);
    for (size_t i = 0; i < d_count; i++) {
        const burst& b = at(i);
        if (b.end <= r)
            continue;
        r = std::max(r, b.first);
        if (b.dropped) {
            if (b.end == open)
                return false;
            r = b.end;
            continue;
        }
        d_r = r;
        p.first = r;
        p.end = std::min((r / d_spm + 1) * d_spm, b.end);
        p.tick = static_cast<uint64_t>(static_cast<int64_t>(r) + offset_of(i));
        return true;
    }
    return false;
}

uint64_t tx_burst_schedule::dropped(uint64_t committed) const
{
    uint64_t n = d_dropped_retired;
    for (size_t i = 0; i < d_count; i++) {
        const burst& b = at(i);
        if (b.dropped && committed > b.first)
            n += std::min(committed, b.end) - b.first;
    }
    return n;
}

bool tx_burst_schedule::take_dropped(uint64_t committed,
                                     uint64_t limit,
                                     uint64_t& from,
                                     uint64_t& to)
{
    for (size_t i = 0; i < d_count; i++) {
        burst& b = at(i);
        if (!b.dropped || b.handed >= b.end)
            continue;
        // Within one message at a time: the engine marks one slot per range.
        from = b.handed;
        to = std::min({ b.end, committed, limit, (from / d_spm + 1) * d_spm });
        if (to <= from)
            return false; // the later ones wait for these
        b.handed = to;
        retire();
        return true;
    }
    return false;
}

bool tx_burst_schedule::drops_waiting() const
{
    for (size_t i = 0; i < d_count; i++)
        if (at(i).dropped && at(i).handed < at(i).end)
            return true;
    return false;
}

uint64_t tx_burst_schedule::next_end_count(uint64_t notified)
{
    while (d_ends_count && d_ends[d_ends_head] + 1 <= notified) {
        d_ends_head = (d_ends_head + 1) % end_capacity;
        d_ends_count--;
    }
    return d_ends_count ? d_ends[d_ends_head] + 1 : open;
}

void tx_burst_schedule::retire()
{
    // A burst goes once the converter is past it and, if dropped, all its items were
    // handed out; what came before the one that plays goes first.
    while (d_count > 0 && at(0).passed && (!at(0).dropped || at(0).handed >= at(0).end)) {
        if (at(0).dropped)
            d_dropped_retired += at(0).end - at(0).first;
        d_head = (d_head + 1) % capacity;
        d_count--;
        if (d_cur != none)
            d_cur--;
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
