/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LINK_ACCOUNTING_H
#define INCLUDED_RDMA_STREAM_LINK_ACCOUNTING_H

#include "../regs/link_schedule.h"
#include "loss_tracker.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Which link carried what, for a stream spread over several destinations
 * (docs/links.md: "it attributes every lost message to its link exactly"): the
 * host.link<n>.messages and .lost_samples counters. The schedule names the
 * destination of every local message, the destination its link; so a message counts
 * for a link once it is final (landed or not), and lost items count for the links of
 * the messages they belong to. Attributed = the stream's own count, always: every item
 * is some link's, or unattributed when the schedule no longer knows its epoch.
 *
 * Called as the stream's frontier moves and as the loss tracker reports gaps; no
 * allocation.
 */
class link_accounting : public gap_observer
{
public:
    static constexpr unsigned max_links = 16;
    static constexpr unsigned max_destinations = regs::link_schedule::max_destinations;

    struct link_counts {
        uint64_t messages = 0;     //!< final local messages the schedule sent on it
        uint64_t lost_samples = 0; //!< items of its messages counted lost
    };

    /*!
     * A run over \p schedule (by reference: epochs added later apply), destination d
     * on link \p link_of[d] (< max_links), \p items_per_message items per message,
     * \p total_items of a finite burst (0: continuous; its last message may be short).
     */
    void reset(const regs::link_schedule& schedule,
               const std::array<uint8_t, max_destinations>& link_of,
               uint64_t items_per_message,
               uint64_t total_items = 0);

    //! Local messages below \p end are final: count each for its link (once).
    void on_final(uint64_t end);
    //! Local messages from the last final one up to \p end were sent by no run of the
    //! device (an outage a re-armed run skips): unattributed, not any link's.
    void on_unsent(uint64_t end);
    //! Items [first, first + count) (local items) were counted lost.
    void on_lost(uint64_t first, uint64_t count);
    //! The loss tracker's gaps (lost_gap): on_lost().
    void on_gap(uint64_t device_item, uint64_t count) override
    {
        on_lost(device_item, count);
    }

    const link_counts& counts(unsigned link) const { return d_links.at(link); }
    /*!
     * The links that carried the messages of items [first, first + count) (local
     * items): bit n for link n; bit 31 when the schedule no longer knows one.
     */
    uint32_t links_of(uint64_t first, uint64_t count) const;
    //! Messages whose epoch the schedule no longer keeps: no link can be named.
    uint64_t unattributed_messages() const { return d_unattributed_messages; }
    uint64_t unattributed_samples() const { return d_unattributed_samples; }
    uint64_t final_messages() const { return d_final; }

private:
    //! The link of local message \p m, or max_links when the schedule cannot say.
    unsigned link_of(uint64_t m) const;

    const regs::link_schedule* d_schedule = nullptr;
    std::array<uint8_t, max_destinations> d_link_of{};
    uint64_t d_items_per_message = 1;
    uint64_t d_total = 0;
    uint64_t d_final = 0;
    std::array<link_counts, max_links> d_links{};
    uint64_t d_unattributed_messages = 0;
    uint64_t d_unattributed_samples = 0;
};

} // namespace rdma
} // namespace gr

#endif
