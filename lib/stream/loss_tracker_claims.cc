/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the NIC or the device says about messages beside their slots: proofs that
// messages landed (a mark imitated by the samples), and samples that are not the
// device's although their slots look landed (zeros it substituted, samples it never
// sent).

#include "loss_tracker.h"
#include <algorithm>

namespace gr {
namespace rdma {

void loss_tracker::mark_substituted(uint64_t first,
                                    uint64_t count,
                                    rx_event::reason cause)
{
    const uint64_t P = d_geometry.message_items;
    uint64_t end = first + count < first ? UINT64_MAX : first + count;
    if (d_geometry.burst_items)
        end = std::min(end, d_geometry.burst_items);
    if (first >= end)
        return; // nothing, or past the end of the burst
    // Device items below this were handed out or skipped.
    const uint64_t handed = d_handed_out + d_offset;
    for (uint64_t k = first; k < std::min(end, handed);) {
        const uint64_t p = k / P;
        const uint64_t run_end = std::min({ end, handed, (p + 1) * P });
        slot& s = d_slots[slot_of(p)];
        if (s.occupant != p) {
            d_substitutions_unmatched += run_end - k; // the slot has moved on
        } else if (s.state == slot_state::landed && s.counted) {
            // Handed out as samples, yet they were not. (Lost ones count no more.)
            const uint64_t n = std::min<uint64_t>(run_end - k, s.counted);
            s.counted -= static_cast<uint32_t>(n);
            d_counts.delivered -= n;
            d_counts.lost_gap += n;
            report_run(rx_event::kind::gap, cause, s.consumer_item + (k - p * P), k, n);
        }
        k = run_end;
    }
    if (end > handed)
        add_substitution(std::max(first, handed), end, cause);
}

void loss_tracker::add_substitution(uint64_t first, uint64_t end, rx_event::reason cause)
{
    // Merge with every range it overlaps or touches; keep the list sorted.
    size_t at = 0;
    while (at < d_substituted.size() && d_substituted[at].end < first)
        at++;
    size_t last = at;
    while (last < d_substituted.size() && d_substituted[last].first <= end) {
        first = std::min(first, d_substituted[last].first);
        end = std::max(end, d_substituted[last].end);
        last++;
    }
    if (last > at) {
        d_substituted[at] = { first, end, d_substituted[at].cause };
        d_substituted.erase(d_substituted.begin() + at + 1, d_substituted.begin() + last);
    } else if (d_substituted.size() < max_substitutions) {
        d_substituted.insert(d_substituted.begin() + at, { first, end, cause });
    } else {
        d_substitutions_unmatched += end - first;
    }
}

uint64_t loss_tracker::cut_at_substitution(uint64_t device_item,
                                           uint64_t count,
                                           rx_event::reason& cause)
{
    // Ranges behind the hand-out point were skipped or fell in lost messages.
    size_t behind = 0;
    while (behind < d_substituted.size() && d_substituted[behind].end <= device_item)
        behind++;
    d_substituted.erase(d_substituted.begin(), d_substituted.begin() + behind);
    cause = rx_event::reason::none;
    if (d_substituted.empty())
        return count;
    const substitution& r = d_substituted.front();
    if (r.first <= device_item) {
        cause = r.cause;
        return std::min(count, r.end - device_item);
    }
    return std::min(count, r.first - device_item);
}

void loss_tracker::prove_landed(uint64_t first_message, uint64_t end_message)
{
    if (end_message <= first_message)
        return;
    if (d_proof_count) {
        item_range& last = d_proofs[(d_proof_head + d_proof_count - 1) % max_proofs];
        if (first_message <= last.end) { // RC: each proof extends the last
            last.end = std::max(last.end, end_message);
            return;
        }
    }
    if (d_proof_count == max_proofs) {
        d_proof_head = (d_proof_head + 1) % max_proofs;
        d_proof_count--;
    }
    d_proofs[(d_proof_head + d_proof_count) % max_proofs] = { first_message,
                                                              end_message };
    d_proof_count++;
}

bool loss_tracker::proven(uint64_t message)
{
    // Messages are verified in order: proofs that end before this one are spent.
    while (d_proof_count && d_proofs[d_proof_head].end <= message) {
        d_proof_head = (d_proof_head + 1) % max_proofs;
        d_proof_count--;
    }
    return d_proof_count && d_proofs[d_proof_head].first <= message;
}

} // namespace rdma
} // namespace gr
