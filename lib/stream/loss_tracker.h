/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LOSS_TRACKER_H
#define INCLUDED_RDMA_STREAM_LOSS_TRACKER_H

#include "event_queue.h"
#include "placeholder.h"
#include "settle_check.h"
#include <gnuradio/rdma/rx_event.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace gr {
namespace rdma {

struct ring_geometry {
    uint8_t* ring = nullptr;  //!< slot 0 of the ring (double-mapped)
    size_t ring_items = 0;    //!< N
    size_t message_items = 0; //!< P: items per message slot; N is a multiple of P
    uint64_t burst_items = 0; //!< device items in a finite burst, 0: continuous
    size_t packet_items = 0;  //!< items per wire packet (a divisor of P; 0: P)
    //! reset() zeroes and arms only the burst's own items (a queued burst: its region
    //! of a ring whose other items may still be another burst's, unreleased); else the
    //! whole ring. `ring` may then point anywhere in the first copy of a double-mapped
    //! ring: the tracker reads [ring, ring + N items).
    bool own_items_only = false;
};

//! Exact per-run accounting: every device sample is counted once, as delivered or lost.
struct loss_counts {
    uint64_t delivered = 0;    //!< handed out, verified, not overwritten while unread
    uint64_t lost_gap = 0;     //!< handed out as zeros: message lost or slot unverifiable
    uint64_t lost_skipped = 0; //!< never handed out: the reader was lapped
    uint64_t lost_overwritten = 0; //!< handed out, then overwritten before released
    uint64_t lost_stopped = 0;     //!< never handed out: the stream was stopped first
    uint64_t lost() const
    {
        return lost_gap + lost_skipped + lost_overwritten + lost_stopped;
    }
};

/*!
 * Knows, without reading a packet header, which samples of the ring are real.
 *
 * Every message slot carries placeholders (placeholder.h), armed for the device message
 * that is to land there next. They sit at the start of the message's last packet: the
 * NIC executes a message's packets in order and drops the rest of a message after a
 * lost packet (UC) or has them resent (RC), so a message whose last packet landed
 * landed whole. One check per message, however many packets it takes: the host's cost
 * does not depend on the wire's packet size. Once a message is final (the device has sent
 * it and later messages of the link have landed: immediate data; or the clock says it
 * must have), its slot is checked: placeholder gone = landed, placeholder present = lost,
 * so the slot is zero-filled and reported. A slot is re-armed for its next message once
 * the consumer has released it, the reordering window has passed, and the device cannot
 * yet be writing the next message; a slot that could not be re-armed in time cannot prove
 * its next message, which is then delivered as zeros and reported (unverifiable).
 *
 * Overrun: a consumer more than half a ring behind the device is handed nothing more
 * until it has released what it holds (or has stopped releasing for half a ring of
 * device progress: it keeps history, say); then, if the next item is no longer in the
 * fresh half of the ring, the consumer skips whole rings (item k stays in slot k mod
 * N) and the skipped samples are reported. Samples handed out and then overwritten
 * before the consumer released them are reported as overwritten. In a finite burst,
 * only items the device will still write over are held back or skipped.
 *
 * Positions: device items (since sample 0) and consumer items (since start) differ by
 * `offset`, a multiple of N that grows at each skip. The caller supplies:
 *  - final_upto: device items known final (landed or lost);
 *  - written_bound: device items the device may have written (clock upper bound).
 * Pure logic on memory the caller owns; no clocks, no I/O: testable on a plain buffer.
 */
//! Told every run of samples counted lost_gap, by device item, as it is counted.
class gap_observer
{
public:
    virtual ~gap_observer() = default;
    virtual void on_gap(uint64_t device_item, uint64_t count) = 0;
};

class loss_tracker
{
public:
    loss_tracker(const ring_geometry& geometry, sample_format format);

    //! Start a run: draw a new mark, arm every slot for the first wrap.
    void reset();

    /*!
     * The NIC proved that messages [first, end) landed whole: on RC, every message
     * before a notification's (the responder takes packets in order only); on UC, a
     * notification's own message, completed with its full length. A mark still found in
     * such a message is not a loss but the samples themselves, equal to the mark by
     * chance (placeholder.h): they are delivered as received, counted
     * (imitations()) and reported (kind::notice, reason::mark_imitated). Call in
     * increasing order of \p first.
     */
    void prove_landed(uint64_t first_message, uint64_t end_message);
    //! Messages found holding the mark although proven landed.
    uint64_t imitations() const { return d_imitations; }
    //! The mark of this run (tests write it into a slot to play a signal that imitates
    //! it).
    const placeholder& mark() const { return d_mark; }

    /*!
     * Verify messages that became final, zero-fill the lost ones, re-arm what may be.
     * \p settled_upto: device items no packet of which can still land, because the
     * NIC has placed everything the device sent before them (a later notification on
     * the same in-order path proves it); UINT64_MAX: the same as \p final_upto (the
     * clock alone tells, as with notify=0). A slot is re-armed only once its message is
     * settled (by this frontier, or by the settle_check): a packet still on its way (a
     * starved software NIC holds its socket's backlog for as long as it is starved)
     * would otherwise land over the mark armed for the next lap and pass for it. With
     * a settle_check, a message not settled yet waits while later ones are re-armed,
     * until it is, or until the device may be writing its next lap (which then proves
     * nothing: unverifiable).
     */
    void on_progress(uint64_t final_upto,
                     uint64_t written_bound,
                     uint64_t settled_upto = UINT64_MAX);
    //! The consumer released consumer items below \p released.
    void on_release(uint64_t released, uint64_t written_bound);
    /*!
     * Consumer items from \p next that can be handed out now (contiguous in the ring).
     * May first skip rings when the device is about to lap \p next.
     */
    uint64_t deliverable(uint64_t next, uint64_t written_bound);
    //! The consumer hands out items [next, next + count): classify and report them.
    void commit(uint64_t next, uint64_t count);
    //! The device is done (burst complete): judge the items handed out and not yet
    //! released against its final position, as if released now.
    void settle(uint64_t written_bound);
    /*!
     * The run stopped and the device says it emitted \p emitted samples in all (its
     * final count): those it emitted past what was handed out or skipped will never be
     * handed out, and count as lost_stopped. A device count below that is recorded
     * (overaccounted()): the host declared samples final that the device says it never
     * produced (a device that failed the stream stops at once, and the host hears of it
     * only at its next heartbeat, its clock judging the missing samples lost
     * meanwhile). Those samples were not lost but never emitted: they move from
     * lost_gap and lost_skipped to outage_items(), with one device_outage report
     * (device_item: \p emitted; count: the samples moved), so that delivered + lost is
     * the device's count again.
     */
    void stopped(uint64_t emitted);
    /*!
     * The device's run ended early (it restarted, or was stopped by someone else) and a
     * new run continues the stream at device item \p to, a message boundary where the
     * new run's messages land as the stream's would (a multiple of the ring for a run
     * from message 0; any with RX_FIRST_MESSAGE = to / P), so that item k still lands
     * in slot k mod N. The consumer resumes there, with a time
     * mark. Of the items it skips, those below \p emitted_upto (what the old run
     * emitted, as far as the device told) count as lost_stopped; the rest, which no
     * device produced, as outage_items() (not lost: not emitted). Every slot is re-armed
     * for the new run's first wrap (evicting what the consumer still held there).
     */
    void jump(uint64_t to, uint64_t emitted_upto, uint64_t written_bound);
    //! Items of the stream's timeline no device produced (outages bridged by jump()).
    uint64_t outage_items() const { return d_outage_items; }
    //! Device items handed out or skipped so far: what the accounting covers.
    uint64_t accounted() const { return d_handed_out + d_offset; }
    uint64_t overaccounted() const { return d_overaccounted; }
    //! Of overaccounted(), the samples stopped() moved from lost to outage_items().
    uint64_t rebooked() const { return d_rebooked; }
    /*!
     * Device items [first, first + count) are not the device's samples although their
     * slots may look landed: the device sent them as zeros (RC: they had left its
     * retransmit buffer; docs/metadata.md, event zero_substituted), or never sent them
     * (UC: its FIFO overflowed, event device_overflow), so that what is there is
     * whatever landed late over the mark. They count as lost, reported as a gap with
     * \p cause. Not handed out yet: so classified (and zeroed) when handed out. Handed
     * out already: moved from delivered to lost and reported now, at their items. Items
     * counted lost already (gap, skipped, overwritten) are not counted twice.
     */
    void mark_substituted(uint64_t first,
                          uint64_t count,
                          rx_event::reason cause = rx_event::reason::zero_substituted);
    //! Substituted items that could not be classified: their slot held a later message
    //! already (reported more than a ring late), or too many ranges were pending.
    uint64_t substitutions_unmatched() const { return d_substitutions_unmatched; }

    //! Consumer items of the run (burst minus skipped), UINT64_MAX when continuous.
    uint64_t consumer_total() const;
    uint64_t device_item(uint64_t consumer_item) const
    {
        return consumer_item + d_offset;
    }
    uint64_t offset() const { return d_offset; }
    //! Device items below this one are released by the consumer (or skipped).
    uint64_t released_device() const { return d_released_device; }
    //! Consumer items handed out so far (committed).
    uint64_t handed_out() const { return d_handed_out; }

    bool poll_event(rx_event& out);
    //! Who is told the gaps (null: nobody); it must outlive the tracker's use.
    void set_gap_observer(gap_observer* o) { d_gap_observer = o; }
    //! Who tells which messages are settled beyond settled_upto (null: nobody); it
    //! must outlive the tracker's use.
    void set_settle_check(const settle_check* c) { d_settle_check = c; }
    uint64_t events_discarded() const { return d_events.discarded(); }
    const loss_counts& counts() const { return d_counts; }

private:
    enum class slot_state : uint8_t { pending, landed, lost, unverifiable };
    // 40 bytes: every message touches its slot several times, and a ring's worth of
    // slots should stay in cache.
    struct slot {
        uint64_t armed_for = UINT64_MAX; // device message the placeholder guards
        uint64_t occupant = UINT64_MAX;  // device message last verified here
        uint64_t consumer_item = 0;      // consumer index of the message's first item
        uint32_t counted = 0;            // items of the message counted as delivered
        uint32_t first_counted = 0;      // the first of them, from the message's start
        slot_state state = slot_state::pending;
        bool delivered = false; // handed out (so it can be overwritten unread)
        bool as_zeros = false;  // ... as zeros, a gap: counted lost already
    };
    static_assert(sizeof(slot) == 40, "keep the slot table small");
    struct item_range {
        uint64_t first = 0;
        uint64_t end = 0;
    };

    // Walks through messages mostly one by one: a cursor per loop turns the slot
    // computation (a 64-bit modulo) into an increment.
    struct slot_cursor {
        bool valid = false;
        uint64_t message = 0;
        size_t slot = 0;
    };
    size_t slot_of(uint64_t message) const { return message % d_slots.size(); }
    size_t slot_of(uint64_t message, slot_cursor& c) const
    {
        if (c.valid && message == c.message + 1)
            c.slot = c.slot + 1 == d_slots.size() ? 0 : c.slot + 1;
        else if (!c.valid || message != c.message)
            c.slot = slot_of(message);
        c.valid = true;
        c.message = message;
        return c.slot;
    }
    uint64_t message_of(uint64_t item) const
    {
        return d_message_shift >= 0 ? item >> d_message_shift
                                    : item / d_geometry.message_items;
    }
    uint64_t items_in(uint64_t message) const;
    uint8_t* slot_memory(uint64_t message) const;
    uint8_t* slot_memory_at(size_t slot) const
    {
        return d_geometry.ring + slot * d_geometry.message_items * d_item;
    }
    //! Items from a message's start to its last packet's start, for a message of \p n.
    uint64_t last_packet_at(uint64_t n) const
    {
        return n ? (n - 1) / d_packet_items * d_packet_items : 0;
    }
    void arm(size_t slot, uint64_t items);
    bool mark_present(size_t slot, uint64_t items) const;
    uint64_t capped(uint64_t written_bound) const
    {
        return d_geometry.burst_items ? std::min(written_bound, d_geometry.burst_items)
                                      : written_bound;
    }
    void evict(size_t slot);
    void verify(uint64_t message, size_t slot);
    bool still_zeros(size_t index, uint64_t message) const;
    //! Message \p p (in slot \p index) is released: was it overwritten while held?
    void judge_released(uint64_t p, size_t index, uint64_t written_bound);
    void rearm_released(uint64_t written_bound);
    bool settled(uint64_t message) const;
    //! Arm message \p p's slot for its next lap, if the device cannot be writing it yet.
    void arm_next_lap(uint64_t p, uint64_t written_bound);
    void rearm_deferred(uint64_t written_bound);
    uint64_t
    cut_at_substitution(uint64_t device_item, uint64_t count, rx_event::reason& cause);
    void add_substitution(uint64_t first, uint64_t end, rx_event::reason cause);
    void report(const rx_event& e);
    void report_run(rx_event::kind type,
                    rx_event::reason cause,
                    uint64_t item,
                    uint64_t device_item,
                    uint64_t count);

    bool proven(uint64_t message);

    const ring_geometry d_geometry;
    placeholder d_mark;
    const size_t d_item;
    const size_t d_packet_items;
    const uint64_t
        d_reorder_messages;    // late messages may land this far behind the frontier
    const int d_message_shift; // log2(message_items) when a power of two (always, in
                               // use), else -1
    std::vector<slot> d_slots;
    slot_cursor d_verify_cursor, d_rearm_cursor, d_commit_cursor, d_release_cursor;

    uint64_t d_offset = 0;                // device item = consumer item + offset
    uint64_t d_final_messages = 0;        // messages below are verified
    uint64_t d_final_items = 0;           // device items below are final
    uint64_t d_settled_items = 0;         // device items below can no longer land
    uint64_t d_released_device = 0;       // device items below are released (or skipped)
    uint64_t d_released_consumer = 0;     // consumer items below are released
    uint64_t d_rearm_next = 0;            // messages below have had their re-arm decided
    uint64_t d_handed_out = 0;            // consumer items handed out so far
    uint64_t d_hold_since_w = UINT64_MAX; // written_bound when the hold began
    uint64_t d_release_moved_w = 0; // written_bound when the consumer last released more
    // Device items [d_skip_from, d_skip_to) of the latest skip (merged with the one
    // before when nothing came in between). Slots of earlier messages are the device's
    // again: what the consumer still holds there counts as overwritten.
    uint64_t d_skip_from = 0;
    uint64_t d_skip_to = 0;
    std::vector<uint64_t> d_skip_consumer; // consumer items where a skip took effect
    std::vector<uint64_t> d_skip_offset;   // the offset in effect from there on
    loss_counts d_counts;
    // Device items that are not the samples (mark_substituted()), not handed out yet:
    // sorted, disjoint, at most max_substitutions (reserved up front: no allocation
    // later).
    static constexpr size_t max_substitutions = 1024;
    // Messages the NIC proved landed, oldest first, not yet verified (a ring: no
    // allocation). Dropping the oldest when full only loses a proof: a possible imitation
    // is then reported as a loss, as before proofs existed.
    static constexpr size_t max_proofs = 64;
    std::array<item_range, max_proofs> d_proofs{};
    size_t d_proof_head = 0;
    size_t d_proof_count = 0;
    uint64_t d_imitations = 0;
    uint64_t d_overaccounted = 0;
    uint64_t d_rebooked = 0;
    uint64_t d_outage_items = 0;
    // The latest skips (device items, oldest first; merged when one extends the one
    // before): stopped() finds among them the skipped samples the device never emitted.
    static constexpr size_t kept_skips = 8;
    std::array<item_range, kept_skips> d_skips{};
    size_t d_skip_count = 0;
    void note_skip(uint64_t first, uint64_t end);
    void rebook_not_emitted(uint64_t emitted, uint64_t covered);
    struct substitution {
        uint64_t first = 0;
        uint64_t end = 0;
        rx_event::reason cause = rx_event::reason::zero_substituted;
    };
    std::vector<substitution> d_substituted;
    uint64_t d_substitutions_unmatched = 0;
    // A pending gap or overwrite report, extended while consecutive messages match.
    rx_event d_open;
    bool d_open_valid = false;
    bool d_in_gap = false; // the last item handed out was lost
    bool d_resume_due = false; // a skip or a jump: the next item handed out gets a time

    event_queue<4096> d_events;
    gap_observer* d_gap_observer = nullptr;
    const settle_check* d_settle_check = nullptr;
    // Messages released and past the reordering window, not settled yet: their
    // re-arm waits (at most a ring's worth; reserved up front).
    std::vector<uint64_t> d_deferred;
};

} // namespace rdma
} // namespace gr

#endif
