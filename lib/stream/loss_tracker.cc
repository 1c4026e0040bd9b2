/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "loss_tracker.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace rdma {

const char* to_string(rx_event::kind k)
{
    switch (k) {
    case rx_event::kind::gap:
        return "gap";
    case rx_event::kind::overrun:
        return "overrun";
    case rx_event::kind::time:
        return "time";
    case rx_event::kind::device:
        return "device";
    case rx_event::kind::notice:
        return "notice";
    case rx_event::kind::tune:
        return "tune";
    case rx_event::kind::link:
        return "link";
    }
    return "unknown";
}

const char* to_string(rx_event::reason r)
{
    switch (r) {
    case rx_event::reason::none:
        return "none";
    case rx_event::reason::packet_lost:
        return "packet_lost";
    case rx_event::reason::unverifiable:
        return "unverifiable";
    case rx_event::reason::skipped:
        return "skipped";
    case rx_event::reason::overwritten:
        return "overwritten";
    case rx_event::reason::zero_substituted:
        return "zero_substituted";
    case rx_event::reason::fault_injected:
        return "fault_injected";
    case rx_event::reason::device_overflow:
        return "device_overflow";
    case rx_event::reason::device_other:
        return "device_other";
    case rx_event::reason::mark_imitated:
        return "mark_imitated";
    case rx_event::reason::gap_overwritten:
        return "gap_overwritten";
    case rx_event::reason::device_lost:
        return "device_lost";
    case rx_event::reason::device_back:
        return "device_back";
    case rx_event::reason::stream_stopped:
        return "stream_stopped";
    case rx_event::reason::stream_failed:
        return "stream_failed";
    case rx_event::reason::nic_error:
        return "nic_error";
    case rx_event::reason::rate_changed:
        return "rate_changed";
    case rx_event::reason::device_outage:
        return "device_outage";
    case rx_event::reason::link_down:
        return "link_down";
    case rx_event::reason::link_up:
        return "link_up";
    case rx_event::reason::schedule_changed:
        return "schedule";
    case rx_event::reason::rate_held:
        return "rate_held";
    case rx_event::reason::share_lost:
        return "share_lost";
    }
    return "unknown";
}

loss_tracker::loss_tracker(const ring_geometry& geometry, sample_format format)
    : d_geometry(geometry),
      d_mark(format),
      d_item(item_size(format)),
      d_packet_items(geometry.packet_items ? geometry.packet_items
                                           : geometry.message_items),
      // A quarter ring: late (reordered) messages land well within it, and it is far
      // shorter than the time left to re-arm a slot before its next message.
      d_reorder_messages(
          std::max<uint64_t>(1, geometry.ring_items / geometry.message_items / 4)),
      d_message_shift(geometry.message_items &&
                              (geometry.message_items & (geometry.message_items - 1)) == 0
                          ? __builtin_ctzll(geometry.message_items)
                          : -1),
      d_slots(geometry.message_items ? geometry.ring_items / geometry.message_items : 0)
{
    d_skip_consumer.reserve(64);
    d_skip_offset.reserve(64);
    d_deferred.reserve(d_slots.size());
    d_substituted.reserve(max_substitutions);
    if (!geometry.ring || geometry.message_items == 0 || geometry.ring_items == 0 ||
        geometry.ring_items % geometry.message_items ||
        geometry.message_items % d_packet_items)
        throw std::invalid_argument(
            "loss_tracker: the ring must hold whole messages of whole packets");
    reset();
}

uint64_t loss_tracker::items_in(uint64_t message) const
{
    const uint64_t first = message * d_geometry.message_items;
    if (!d_geometry.burst_items)
        return d_geometry.message_items;
    return first >= d_geometry.burst_items
               ? 0
               : std::min<uint64_t>(d_geometry.message_items,
                                    d_geometry.burst_items - first);
}

uint8_t* loss_tracker::slot_memory(uint64_t message) const
{
    return d_geometry.ring + slot_of(message) * d_geometry.message_items * d_item;
}

void loss_tracker::arm(size_t slot, uint64_t items)
{
    const uint64_t at = last_packet_at(items);
    d_mark.arm(slot_memory_at(slot) + at * d_item, items - at);
}

bool loss_tracker::mark_present(size_t slot, uint64_t items) const
{
    const uint64_t at = last_packet_at(items);
    return d_mark.present(slot_memory_at(slot) + at * d_item, items - at);
}

void loss_tracker::reset()
{
    d_verify_cursor = d_rearm_cursor = d_commit_cursor = d_release_cursor = slot_cursor{};
    d_offset = 0;
    d_final_messages = 0;
    d_final_items = 0;
    d_settled_items = 0;
    d_released_device = 0;
    d_released_consumer = 0;
    d_rearm_next = 0;
    d_handed_out = 0;
    d_skip_from = d_skip_to = 0;
    d_hold_since_w = UINT64_MAX;
    d_release_moved_w = 0;
    d_skip_consumer.clear();
    d_skip_offset.clear();
    d_counts = loss_counts{};
    d_substituted.clear();
    d_substitutions_unmatched = 0;
    d_deferred.clear();
    d_open_valid = false;
    d_in_gap = false;
    d_events.clear();
    d_proof_head = d_proof_count = 0;
    d_imitations = 0;
    d_overaccounted = 0;
    d_rebooked = 0;
    d_outage_items = 0;
    d_skip_count = 0;
    d_mark.renew();
    // A fresh run sees no samples of the last one: blocks with history read the end of
    // the ring as the zeros before item 0.
    const uint64_t own =
        d_geometry.own_items_only && d_geometry.burst_items
            ? std::min<uint64_t>(d_geometry.burst_items, d_geometry.ring_items)
            : d_geometry.ring_items;
    std::memset(d_geometry.ring, 0, own * d_item);
    for (uint64_t p = 0; p < d_slots.size(); p++) {
        slot& s = d_slots[p];
        s = slot{};
        if (items_in(p)) {
            arm(slot_of(p), items_in(p));
            s.armed_for = p;
        }
    }
    // The time of the first item handed out (commit()): sample 0's, or, should the
    // device lap the reader before it got anything, the resumed sample's alone.
    d_resume_due = true;
}

void loss_tracker::evict(size_t index)
{
    // The device has lapped a message the consumer still holds (it could not let go of
    // it: a block's history, a decimator's remainder): it no longer holds the samples.
    slot& s = d_slots[index];
    if (!s.delivered)
        return;
    s.delivered = false;
    if (!s.counted)
        return;
    const uint64_t n = s.counted; // what is still counted delivered (or zeros) of it
    s.counted = 0;
    // Zeros handed out for a gap are lost already; what the consumer reads there now is
    // no longer zeros, so it is told again, without counting the samples twice.
    if (!s.as_zeros) {
        d_counts.delivered -= n;
        d_counts.lost_overwritten += n;
    }
    report_run(rx_event::kind::overrun,
               s.as_zeros ? rx_event::reason::gap_overwritten
                          : rx_event::reason::overwritten,
               s.consumer_item + s.first_counted,
               s.occupant * d_geometry.message_items + s.first_counted,
               n);
}

bool loss_tracker::still_zeros(size_t index, uint64_t message) const
{
    // Every item of the message: a late landing may bring samples that are zero where
    // a spot check would look (the ramp's first sample is 0), or only some of its
    // packets. Only gaps are checked, so this costs nothing while nothing is lost; and
    // samples that are all zeros are what the consumer was told, so they may pass.
    static const uint8_t zeros[256] = {};
    const uint8_t* p = slot_memory_at(index);
    for (uint64_t left = items_in(message) * d_item; left;) {
        const size_t n = std::min<uint64_t>(left, sizeof zeros);
        if (std::memcmp(p, zeros, n) != 0)
            return false;
        p += n;
        left -= n;
    }
    return true;
}

void loss_tracker::verify(uint64_t message, size_t index)
{
    slot& s = d_slots[index];
    uint8_t* memory = slot_memory_at(index);
    const uint64_t n = items_in(message);
    slot_state state = slot_state::unverifiable;
    if (s.armed_for == message) {
        state = mark_present(index, n) ? slot_state::lost : slot_state::landed;
        if (state == slot_state::lost && proven(message)) {
            // The samples equal the mark, yet the NIC says the message landed: believe
            // the NIC, and say so.
            state = slot_state::landed;
            d_imitations++;
            const uint64_t first = message * d_geometry.message_items;
            report_run(rx_event::kind::notice,
                       rx_event::reason::mark_imitated,
                       first >= d_offset ? first - d_offset : 0,
                       first,
                       n);
        }
    }
    // Never hand out unproven data: what did not land, or cannot be proven, is zeros.
    if (state != slot_state::landed)
        std::memset(memory, 0, n * d_item);
    s.occupant = message;
    s.state = state;
    s.delivered = false;
    s.as_zeros = state != slot_state::landed;
    s.counted = 0;
}

void loss_tracker::on_progress(uint64_t final_upto,
                               uint64_t written_bound,
                               uint64_t settled_upto)
{
    const uint64_t burst = d_geometry.burst_items ? d_geometry.burst_items : UINT64_MAX;
    const uint64_t P = d_geometry.message_items;
    const uint64_t S = d_slots.size();
    written_bound = capped(written_bound);
    final_upto = std::min(final_upto, burst);
    d_final_items = std::max(d_final_items, final_upto);
    d_settled_items = std::max(d_settled_items, std::min(settled_upto, d_final_items));
    const uint64_t target =
        d_final_items == burst ? (burst + P - 1) / P : d_final_items / P;
    // Before a skip's target the consumer reads nothing new: those slots are free.
    const uint64_t free_below = std::max(d_released_device, d_skip_to);
    while (d_final_messages < target) {
        const uint64_t p = d_final_messages;
        // Skipped messages are never handed out: nothing to check, nothing to zero.
        if (p * P >= d_skip_from && (p + 1) * P <= d_skip_to) {
            d_final_messages = std::min(target, d_skip_to / P);
            continue;
        }
        // Checking a slot may zero it: wait until the consumer released the slot's
        // previous message (until then the consumer may be reading it).
        if (p >= S && (p - S + 1) * P > free_below)
            break;
        // If the device may already be writing the slot's next message, the slot no
        // longer tells whether this one landed: unverifiable.
        const size_t index = slot_of(p, d_verify_cursor);
        if (d_slots[index].armed_for == p && written_bound > (p + S) * P)
            d_slots[index].armed_for = UINT64_MAX;
        evict(index); // held across a skip: the device wrote over it
        verify(p, index);
        d_final_messages++;
    }
    rearm_released(written_bound);
}

bool loss_tracker::settled(uint64_t message) const
{
    return message * d_geometry.message_items + items_in(message) <= d_settled_items ||
           (d_settle_check && d_settle_check->settled(message));
}

void loss_tracker::arm_next_lap(uint64_t p, uint64_t written_bound)
{
    const uint64_t next = p + d_slots.size();
    // written_bound is the caller's upper bound (clock error included): the device
    // cannot have started a message before having produced all of its samples.
    if (items_in(next) && written_bound <= next * d_geometry.message_items) {
        const size_t index = slot_of(p, d_rearm_cursor); // next's slot is p's
        evict(index); // held across a skip: the device is about to write over it
        arm(index, items_in(next));
        d_slots[index].armed_for = next;
    }
}

void loss_tracker::rearm_deferred(uint64_t written_bound)
{
    const uint64_t S = d_slots.size();
    size_t kept = 0;
    for (const uint64_t p : d_deferred) {
        if (written_bound > (p + S) * d_geometry.message_items)
            continue; // the device may be writing its next lap: that proves nothing
        if (settled(p))
            arm_next_lap(p, written_bound);
        else
            d_deferred[kept++] = p;
    }
    d_deferred.resize(kept);
}

void loss_tracker::rearm_released(uint64_t written_bound)
{
    const uint64_t P = d_geometry.message_items;
    const bool burst_final =
        d_geometry.burst_items && d_final_items == d_geometry.burst_items;
    const uint64_t free_below = std::max(d_released_device, d_skip_to);
    if (!d_deferred.empty())
        rearm_deferred(written_bound);
    while (d_rearm_next < d_final_messages) {
        const uint64_t p = d_rearm_next;
        if (p * P + items_in(p) > free_below)
            break;
        if (!burst_final && d_final_messages < p + d_reorder_messages)
            break;
        // A packet of p may still be on its way (judged by the clock, or skipped, while
        // the NIC had not placed it yet): armed now, the mark would be its to erase.
        if (!settled(p)) {
            if (!d_settle_check || d_deferred.size() == d_deferred.capacity())
                break;               // one path: nothing later is settled either
            d_deferred.push_back(p); // another destination's later ones may be
        } else {
            arm_next_lap(p, written_bound);
        }
        d_rearm_next++;
    }
}

void loss_tracker::judge_released(uint64_t p, size_t index, uint64_t written_bound)
{
    slot& s = d_slots[index];
    if (s.occupant != p || !s.delivered)
        return; // skipped, never handed out, or already reported as lost
    // Overwritten by the device's next lap, or (a gap) by the lost message itself,
    // landing later than its grace: either way not what the consumer was told.
    if (written_bound > (p + d_slots.size()) * d_geometry.message_items ||
        (s.as_zeros && !still_zeros(index, p)))
        evict(index);
    else
        s.delivered = false;
}

void loss_tracker::settle(uint64_t written_bound)
{
    on_release(d_handed_out, written_bound);
    // And the message the consumer holds part of: nothing is released later.
    const uint64_t device = d_handed_out + d_offset;
    if (device % d_geometry.message_items)
        judge_released(
            message_of(device), slot_of(message_of(device)), capped(written_bound));
}

void loss_tracker::on_release(uint64_t released, uint64_t written_bound)
{
    written_bound = capped(written_bound);
    released = std::min(released, d_handed_out);
    if (released > d_released_consumer)
        d_release_moved_w = written_bound;
    // Device position of the consumer's release point. Once everything handed out is
    // released, skipped samples count as released too.
    uint64_t offset = d_offset;
    for (size_t i = d_skip_consumer.size(); i-- > 0;) {
        if (released < d_skip_consumer[i])
            offset = i == 0 ? 0 : d_skip_offset[i - 1];
        else
            break;
    }
    const uint64_t device = released + offset;
    // Messages released since the last call: were they overwritten while unread?
    for (uint64_t p = message_of(d_released_device); p < message_of(device); p++)
        judge_released(p, slot_of(p, d_release_cursor), written_bound);
    d_released_device = std::max(d_released_device, device);
    d_released_consumer = std::max(d_released_consumer, released);
    if (released == d_handed_out)
        d_released_device = std::max(d_released_device, d_handed_out + d_offset);
    // Skips that lie wholly behind the release point no longer map anything.
    size_t obsolete = 0;
    while (obsolete + 1 < d_skip_consumer.size() &&
           d_skip_consumer[obsolete + 1] <= released)
        obsolete++;
    d_skip_consumer.erase(d_skip_consumer.begin(), d_skip_consumer.begin() + obsolete);
    d_skip_offset.erase(d_skip_offset.begin(), d_skip_offset.begin() + obsolete);
    if (d_open_valid) {
        report(d_open);
        d_open_valid = false;
    }
    rearm_released(written_bound);
}

uint64_t loss_tracker::deliverable(uint64_t next, uint64_t written_bound)
{
    const uint64_t N = d_geometry.ring_items;
    const uint64_t P = d_geometry.message_items;
    const uint64_t burst = d_geometry.burst_items ? d_geometry.burst_items : UINT64_MAX;
    written_bound = capped(written_bound);
    uint64_t k = next + d_offset;
    if (k >= burst)
        return 0;
    // Only what the device is still to write over can be lapped: near the end of a
    // burst, a late consumer simply reads the rest.
    const bool lappable = burst >= N && k < burst - N;
    // A consumer more than half a ring behind the device would read what it is handed
    // now only after the device overwrote it: hand out nothing until it has caught up
    // with what it holds. One that stops releasing before that (a block keeping
    // history, a decimator keeping a remainder never lets go of everything) is waited
    // for half a ring of the device's progress, not forever...
    // (Once the device has written its last sample, holding back protects nothing.)
    if (lappable && written_bound < burst && written_bound > d_released_device + N / 2 &&
        next > d_released_consumer) {
        if (d_hold_since_w == UINT64_MAX)
            d_hold_since_w = written_bound;
        if (written_bound <= std::max(d_hold_since_w, d_release_moved_w) + N / 2)
            return 0;
    } else {
        d_hold_since_w = UINT64_MAX;
    }
    // ... then resume in the fresh half of the ring, skipping whole rings so that item
    // k stays in slot k mod N (in a burst, no further than needed to be safe from
    // the device until its end).
    if (lappable && written_bound + P > k + N / 2) {
        uint64_t rings = (written_bound + P - (k + N / 2)) / N + 1;
        if (d_geometry.burst_items)
            rings = std::min(rings, (burst - N - k + N - 1) / N);
        const uint64_t to = k + rings * N;
        const uint64_t skipped = to - k;
        if (k != d_skip_to) // else it extends the last skip: nothing came in between
            d_skip_from = k;
        d_skip_to = to;
        note_skip(k, to);
        d_offset += skipped;
        d_skip_consumer.push_back(next);
        d_skip_offset.push_back(d_offset);
        d_counts.lost_skipped += skipped;
        report_run(rx_event::kind::overrun, rx_event::reason::skipped, next, k, skipped);
        k = to;
        if (k >= burst)
            return 0;
        // The resumed sample's time, once it is handed out: a consumer lapped again
        // before it gets anything skips again from the same item, and must find one
        // time there, the last one's (commit()).
        d_resume_due = true;
    }
    const uint64_t verified = std::min(burst, d_final_messages * P);
    return verified > k ? std::min<uint64_t>(verified - k, N) : 0;
}

void loss_tracker::commit(uint64_t next, uint64_t count)
{
    const uint64_t P = d_geometry.message_items;
    const uint64_t end = next + count;
    if (d_resume_due && count) { // the start, a skip, a jump: where the stream resumes
        d_resume_due = false;
        d_in_gap = false; // told here: a landed first message needs no other time
        report_run(rx_event::kind::time, rx_event::reason::none, next, next + d_offset, 0);
    }
    for (uint64_t item = next; item < end;) {
        const uint64_t k = item + d_offset;
        const uint64_t p = message_of(k);
        uint64_t n = std::min(end - item, (p + 1) * P - k);
        slot& s = d_slots[slot_of(p, d_commit_cursor)];
        if (s.occupant != p)
            throw std::logic_error("loss_tracker: handing out an unverified message");
        rx_event::reason not_samples = rx_event::reason::none;
        if (s.state == slot_state::landed && !d_substituted.empty())
            n = cut_at_substitution(k, n, not_samples);
        if (not_samples != rx_event::reason::none) {
            // Landed, but not the samples: the device's zeros, or a late lap's over the
            // mark of a message the device never sent. Zeros, so that a gap always reads
            // as zeros.
            std::memset(slot_memory(p) + (k - p * P) * d_item, 0, n * d_item);
            d_in_gap = true;
            d_counts.lost_gap += n;
            report_run(rx_event::kind::gap, not_samples, item, k, n);
        } else if (s.state == slot_state::landed) {
            if (!s.delivered) // its first items handed out: where overwrites count from
                s.first_counted = static_cast<uint32_t>(k - p * P);
            d_counts.delivered += n;
            s.counted += static_cast<uint32_t>(n);
            s.delivered = true;
            s.consumer_item = p * P - d_offset;
            if (d_in_gap) { // a gap ends: the stream resumes, time-tagged
                d_in_gap = false;
                report_run(rx_event::kind::time, rx_event::reason::none, item, k, 0);
            }
        } else {
            // Handed out as zeros: should the device lap them before they are released,
            // the consumer must hear that they no longer are (evict()).
            if (!s.delivered)
                s.first_counted = static_cast<uint32_t>(k - p * P);
            s.counted += static_cast<uint32_t>(n);
            s.delivered = true;
            s.consumer_item = p * P - d_offset;
            d_in_gap = true;
            d_counts.lost_gap += n;
            report_run(rx_event::kind::gap,
                       s.state == slot_state::lost ? rx_event::reason::packet_lost
                                                   : rx_event::reason::unverifiable,
                       item,
                       k,
                       n);
        }
        item += n;
    }
    d_handed_out = end;
}

void loss_tracker::note_skip(uint64_t first, uint64_t end)
{
    if (d_skip_count && d_skips[d_skip_count - 1].end == first) {
        d_skips[d_skip_count - 1].end = end; // extends the last one
        return;
    }
    if (d_skip_count == kept_skips) { // the oldest goes
        std::copy(d_skips.begin() + 1, d_skips.end(), d_skips.begin());
        d_skip_count--;
    }
    d_skips[d_skip_count++] = item_range{ first, end };
}

void loss_tracker::stopped(uint64_t emitted)
{
    if (d_geometry.burst_items)
        emitted = std::min(emitted, d_geometry.burst_items);
    const uint64_t covered = accounted();
    if (emitted < covered) {
        d_overaccounted = covered - emitted;
        rebook_not_emitted(emitted, covered);
        return;
    }
    // Counted once: the tail now lies behind the accounting, as skipped samples do.
    d_counts.lost_stopped += emitted - covered;
    d_offset += emitted - covered;
}

void loss_tracker::rebook_not_emitted(uint64_t emitted, uint64_t covered)
{
    // Device items [emitted, covered) never existed: what the consumer skipped of them
    // was not skipped samples, what the clock handed out as zeros was no lost packet.
    // Delivered ones cannot be among them (nothing landed that was never sent, but for
    // an imitation of the mark, which stays in overaccounted()).
    uint64_t skipped = 0;
    for (size_t i = 0; i < d_skip_count; i++) {
        const uint64_t a = std::max(d_skips[i].first, emitted);
        const uint64_t b = std::min(d_skips[i].end, covered);
        skipped += b > a ? b - a : 0;
    }
    skipped = std::min(skipped, d_counts.lost_skipped);
    const uint64_t gap = std::min(covered - emitted - skipped, d_counts.lost_gap);
    d_counts.lost_skipped -= skipped;
    d_counts.lost_gap -= gap;
    d_rebooked = skipped + gap;
    d_outage_items += d_rebooked;
    if (!d_rebooked)
        return;
    if (d_open_valid) { // the reports before it go first
        report(d_open);
        d_open_valid = false;
    }
    rx_event e;
    e.type = rx_event::kind::device;
    e.cause = rx_event::reason::device_outage;
    e.item = d_handed_out;
    e.device_item = emitted;
    e.count = d_rebooked;
    e.value = emitted;
    report(e);
}

void loss_tracker::jump(uint64_t to, uint64_t emitted_upto, uint64_t written_bound)
{
    const uint64_t P = d_geometry.message_items;
    const uint64_t S = d_slots.size();
    const uint64_t k = accounted();
    if (to < k || to % P || written_bound > to)
        throw std::logic_error(
            "loss_tracker: a jump goes forward to a message boundary the device has not "
            "reached");
    const uint64_t lost = std::min(std::max(emitted_upto, k), to) - k;
    d_counts.lost_stopped += lost;
    d_outage_items += to - k - lost;
    const uint64_t next = d_handed_out;
    if (k != d_skip_to)
        d_skip_from = k;
    d_skip_to = to;
    d_skip_count = 0; // skips before the jump are the old run's, counted as they were
    d_offset += to - k;
    d_skip_consumer.push_back(next);
    d_skip_offset.push_back(d_offset);
    d_final_items = std::max(d_final_items, to);
    d_settled_items = std::max(d_settled_items, to); // the old run's QP is gone
    d_final_messages = std::max(d_final_messages, to / P);
    d_hold_since_w = UINT64_MAX;
    d_in_gap = false;
    // The new run writes every slot from its start (its message to/P in to/P's slot):
    // arm them all now, before it may. Nothing of the old run can land any more (its
    // queue pair is gone), so no reordering window is kept; what the consumer still
    // held in a slot is overwritten.
    d_verify_cursor = d_rearm_cursor = d_commit_cursor = d_release_cursor = slot_cursor{};
    for (uint64_t i = 0; i < S; i++) {
        const uint64_t m = to / P + i;
        const size_t index = slot_of(m);
        evict(index);
        slot& s = d_slots[index];
        s.occupant = UINT64_MAX;
        s.state = slot_state::pending;
        s.armed_for = UINT64_MAX;
        if (items_in(m)) {
            arm(index, items_in(m));
            s.armed_for = m;
        }
    }
    d_rearm_next = to / P;
    d_deferred.clear();
    d_released_device = std::max(d_released_device, to);
    d_resume_due = true; // its time at the first item handed out (commit())
}

uint64_t loss_tracker::consumer_total() const
{
    return d_geometry.burst_items ? d_geometry.burst_items - d_counts.lost_skipped
                                  : UINT64_MAX;
}

} // namespace rdma
} // namespace gr
