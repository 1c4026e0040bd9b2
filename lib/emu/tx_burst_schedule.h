/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_BURST_SCHEDULE_H
#define INCLUDED_RDMA_EMU_TX_BURST_SCHEDULE_H

#include "../regs/register_map.h"
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! An entry of the TX burst queue as pushed (docs/register-map.md, "TX burst queue").
struct tx_entry {
    uint32_t op = 0;       //!< regs::tbq::op::start or end
    uint64_t item = 0;     //!< START: first item; END: one past the last
    uint64_t time_ns = 0;  //!< START: device time of its first sample; 0: at once
    int64_t pushed_at = 0; //!< the engine's oscillator time of the push (it sets it)
};

/*!
 * The entries pushed and not taken up yet, and the checks a push must pass (in the
 * order of docs/register-map.md). Each push is checked against the entries before it;
 * CLEAR drops the entries not taken up and checks the next push against those that
 * were. Pure: the TX engine guards it with a lock (pushes come from AXIoE).
 */
class tx_entry_queue
{
public:
    static constexpr size_t capacity = regs::tbq::emulator_capacity;

    //! A queued run starts at device time \p t0_ns, \p rate_num / \p rate_den items
    //! per second: empty, taking pushes.
    void open(uint64_t t0_ns, uint32_t rate_num, uint32_t rate_den);
    //! The run ends: entries dropped, pushes refused (not_running).
    void close();
    //! regs::tbq::error::none if queued, else why not (nothing queued).
    uint32_t push(const tx_entry& e);
    void clear();
    size_t size() const { return d_count; }
    //! The oldest entry, or null.
    const tx_entry* front() const { return d_count ? &d_ring[d_head] : nullptr; }
    //! The oldest entry is taken up.
    void pop();

private:
    // What the entries so far say about the next one.
    struct state {
        bool burst_open = false;
        uint64_t item = 0;      // the open burst's first item, or the last END's
        uint64_t anchor_ns = 0; // the last timed START's time (the run's start first)
        uint64_t offset = 0;    // items from the anchor to the last END
    };
    uint32_t check(const state& s, const tx_entry& e) const;
    static void apply(state& s, const tx_entry& e);

    std::array<tx_entry, capacity> d_ring{};
    size_t d_head = 0;
    size_t d_count = 0;
    bool d_open = false;
    uint32_t d_rate_num = 1;
    uint32_t d_rate_den = 1;
    state d_pushed; // after every entry pushed
    state d_taken;  // after every entry taken up
};

/*!
 * The plan of a TX run in converter ticks (tick 0 plays at TX_START_TIME) and host
 * items (items committed since START): which burst each item is in, when it plays, how
 * messages are cut into pieces, when the converter is idle, and which items are dropped
 * (docs/transmit.md, "Queued bursts"). A continuous run is one open burst from tick 0,
 * a finite one a burst of its samples from tick 0, a queued run the bursts whose
 * entries the engine takes up. Bursts are consecutive: each begins where the one
 * before it ended.
 *
 * It keeps three cursors: the converter's (tick and item), the request cursor (the
 * next item to READ) and, per dropped burst, how many of its items were handed out as
 * done. Pure (no clock, no I/O, no allocation): the engine converts ticks to times.
 */
class tx_burst_schedule
{
public:
    static constexpr uint64_t open = UINT64_MAX; //!< the END of a burst not ended yet
    static constexpr size_t capacity = 64;       //!< bursts taken up and not retired

    //! A run: queued (no burst yet), or one burst of \p samples items (0: continuous)
    //! from tick 0. \p spm: items per message.
    void reset(uint64_t samples, bool queued, uint64_t spm);

    // ---- Entries taken up (queued mode, in queue order) --------------------------
    //! Room for another START (a burst, and its END to come); else take it up later.
    bool can_start() const;
    //! Room for an END.
    bool can_end() const;
    //! A START with a time, first tick \p tick: false if that is a time_error (the
    //! tick is below \p ticks_now, or below the end of the burst before it as it now
    //! plays): the burst is kept, dropped.
    bool start_at(uint64_t tick, uint64_t time_ns, uint64_t ticks_now);
    //! A START with time 0: right after the burst before it if that end is not below
    //! \p ticks_now (the first burst of a run: tick 0), else at ticks_now + lead_ticks.
    void start_asap(uint64_t ticks_now, uint64_t lead_ticks);
    //! END of the open burst at item \p e; returns the END as it stands (never below
    //! what the converter took of the burst).
    uint64_t end(uint64_t e);

    // ---- The converter -----------------------------------------------------------
    uint64_t tick() const { return d_tick; }
    uint64_t item() const { return d_k; }
    enum class what {
        idle,        //!< no burst until tick `until` (open: none known)
        piece,       //!< items [item(), piece_end) play from tick() on, if there
        burst_ended, //!< a burst ended at tick(): its END `item`, `played` samples
        time_error,  //!< a timed burst found with its first tick passed: dropped
    };
    struct event {
        what kind = what::idle;
        uint64_t until = open;
        uint64_t piece_end = 0;
        uint64_t item = 0;
        uint64_t played = 0;
        uint64_t time_ns = 0; //!< time_error: the START's time
    };
    //! What tick() holds. Passes ended and dropped bursts (one event at a time).
    event next();
    void idle(uint64_t ticks) { d_tick += ticks; }
    //! Underflow zeros in the burst that plays: it is shifted, no item taken.
    void underflow(uint64_t ticks);
    //! \p items taken by the converter, \p played of them played (not late).
    void consume(uint64_t items, uint64_t played);
    //! The END of the burst that plays (open: none yet, or no burst plays).
    uint64_t current_end() const;

    // ---- Requests ------------------------------------------------------------------
    struct piece {
        uint64_t first = 0;
        uint64_t end = 0;
        uint64_t tick = 0; //!< the tick its first item is due at, as planned now
    };
    //! The next piece to READ (never behind the converter, never of a dropped burst):
    //! false if that item is in no burst taken up.
    bool next_piece(piece& p);
    //! READs were sent up to item \p end; the converter gave up items below \p end.
    void requested(uint64_t end) { d_r = end > d_r ? end : d_r; }

    // ---- Accounting ----------------------------------------------------------------
    //! Items of dropped bursts below \p committed (TX_DROPPED_SAMPLES).
    uint64_t dropped(uint64_t committed) const;
    //! Hand out dropped items below \p committed and \p limit that were not READ, as
    //! [from, to); false when none is left.
    bool take_dropped(uint64_t committed, uint64_t limit, uint64_t& from, uint64_t& to);
    //! Some dropped burst has items not handed out yet (the engine must learn more of
    //! `committed`).
    bool drops_waiting() const;
    //! The count of messages done once the next message holding a burst's last item is
    //! done, above \p notified (open: none known).
    uint64_t next_end_count(uint64_t notified);

private:
    struct burst {
        uint64_t first = 0;
        uint64_t end = open;
        uint64_t time_ns = 0;
        int64_t offset = 0; // tick of item k = k + offset, once fixed
        bool fixed = false; // offset known: timed, started, or ASAP after a gap
        bool dropped = false;
        bool passed = false;    // the converter is past it
        uint64_t drop_from = 0; // dropped: items below were READ before the drop
        uint64_t handed = 0;    // dropped: handed out as done up to here
        uint64_t played = 0;
    };
    static constexpr size_t none = SIZE_MAX;
    static constexpr size_t end_capacity = 2 * capacity;

    burst& at(size_t i) { return d_bursts[(d_head + i) % capacity]; }
    const burst& at(size_t i) const { return d_bursts[(d_head + i) % capacity]; }
    void add(const burst& b);
    int64_t offset_of(size_t i) const; // tick - item of burst i, as planned now
    uint64_t end_tick(size_t i) const;
    uint64_t start_tick(size_t i) const;
    uint64_t free_tick() const; // where the next burst may start
    void drop(burst& b);
    void retire();

    uint64_t d_spm = 1;
    std::array<burst, capacity> d_bursts{};
    size_t d_head = 0;
    size_t d_count = 0;
    size_t d_cur = none;            // index (from d_head) of the burst that plays
    uint64_t d_tick = 0;            // converter: ticks evaluated
    uint64_t d_k = 0;               // converter: the next item
    uint64_t d_r = 0;               // the next item to READ
    uint64_t d_next_first = 0;      // the next burst's first item
    uint64_t d_last_end_tick = 0;   // the tick after the last burst that played
    uint64_t d_dropped_retired = 0; // items of dropped bursts retired
    std::array<uint64_t, end_capacity> d_ends{}; // messages holding a burst's last item
    size_t d_ends_head = 0;
    size_t d_ends_count = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
