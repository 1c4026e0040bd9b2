/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_DESTINATION_PROGRESS_H
#define INCLUDED_RDMA_STREAM_DESTINATION_PROGRESS_H

#include "../regs/link_schedule.h"
#include "settle_check.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * progress_tracker's rule for a stream spread over several destinations (host QPs over
 * device links; docs/links.md, "Notifications and finality"): only packets of one
 * destination are placed in order, so a notification on destination d for local
 * message i proves that d's messages up to i landed, and nothing about the others.
 * Each destination keeps its own frontier; the stream has landed up to the first
 * message whose destination's frontier has not passed it.
 *
 * As progress_tracker, nothing on the wire is believed beyond what the device can have
 * done: a notification must name a message the schedule sent to the QP it arrived on,
 * carry the message's whole length, and not claim samples the device cannot have
 * produced yet. Others are counted and ignored.
 */
class destination_progress : public settle_check
{
public:
    static constexpr unsigned max_destinations = regs::link_schedule::max_destinations;

    enum class verdict {
        accepted,          //!< the destination's frontier moved past the message
        stale,             //!< behind what already landed on it (or a repeat): ignored
        wrong_destination, //!< the schedule sent that message elsewhere: ignored
        wrong_length,      //!< the WRITE was not the whole message: ignored
        implausible,       //!< the device cannot have produced it yet: ignored
        held, //!< names a message beyond the schedule known yet: judged when it is
    };

    /*!
     * Begin a run over \p schedule (kept by reference: epochs added to it later apply),
     * \p items_per_message items per message, \p total_items local items of a finite
     * burst (0: continuous), an immediate window of \p notify_interval messages.
     */
    void reset(const regs::link_schedule& schedule,
               uint64_t items_per_message,
               uint64_t total_items,
               uint32_t notify_interval,
               uint32_t item_bytes);

    /*!
     * A completion with immediate \p imm (a local message index mod 2^32) of \p byte_len
     * bytes on destination \p d's QP, when the device can have produced at most
     * \p produced_bound local items.
     */
    verdict
    on_immediate(unsigned d, uint32_t imm, uint32_t byte_len, uint64_t produced_bound);

    /*!
     * The schedule is fixed below local message \p messages (the device may begin an
     * epoch at any window boundary it has not scheduled yet, and the host learns it
     * later): nothing at or above it lands, and an immediate naming a message there is
     * held, the newest per destination (it proves the older ones too), and judged once
     * the schedule is known that far. Without a call the whole schedule is known.
     */
    void set_known(uint64_t messages);
    /*!
     * A new run continues the stream at local message \p first (its epoch 0 begins
     * there, in the schedule): every message below it is final, every frontier is
     * there, and nothing of the new run is known until its epochs are read. The
     * counters of what was ignored go on.
     */
    void continue_at(uint64_t first);
    /*!
     * Local messages below \p messages are final by the clock (a message of a link that
     * died is never notified): the stream's frontier passes them, and goes on by the
     * destinations' frontiers from there.
     */
    void pass_final(uint64_t messages);
    uint64_t known() const { return d_known; }
    //! Immediates held for a schedule not known yet (each counted once).
    uint64_t held() const { return d_held_count; }

    /*!
     * Whether no packet of local message \p m can land any more (loss_tracker's
     * settle_check): its destination's frontier passed it (one destination's packets
     * are placed in order), or its destination is not waited for (set_unwaited()). A
     * message whose destination is not known yet is not settled.
     */
    bool settled(uint64_t m) const override;
    //! Local messages settled in order: every message below this one is (its
    //! destination's frontier passed it, or it is not waited for), whatever epochs
    //! the schedule forgets later.
    uint64_t settled_messages() const { return d_settled; }
    //! Destinations not waited for, one bit each: those the schedule gives nothing now,
    //! or that the host declared down. Their messages count as settled: their last
    //! packets are taken to be in, or lost, once the clock says so.
    void set_unwaited(uint32_t mask);

    //! Local messages landed: every message below this one, whatever its destination.
    uint64_t landed_messages() const { return d_landed; }
    //! Destination \p d's frontier: its messages below this one landed.
    uint64_t frontier(unsigned d) const { return d_frontier.at(d); }
    //! Accepted notifications of \p d that were not notification points.
    uint64_t out_of_sequence(unsigned d) const { return d_out_of_sequence.at(d); }
    uint64_t wrong_destination() const { return d_wrong_destination; }
    uint64_t wrong_length() const { return d_wrong_length; }
    uint64_t implausible() const { return d_implausible; }
    //! Items of local message \p m (a burst's last may be short; 0 past its end).
    uint64_t items_in(uint64_t m) const;

private:
    void advance();
    void advance_settled();
    verdict
    judge(unsigned d, uint64_t message, uint32_t byte_len, uint64_t produced_bound);
    //! Length and plausibility (counted when they fail); accepted when both hold.
    verdict check_claim(uint64_t message, uint32_t byte_len, uint64_t produced_bound);

    struct held_immediate {
        bool present = false;
        uint64_t message = 0;
        uint32_t byte_len = 0;
        uint64_t produced_bound = 0;
    };

    const regs::link_schedule* d_schedule = nullptr;
    uint64_t d_items_per_message = 1;
    uint64_t d_total = 0;
    uint32_t d_notify_interval = 0;
    uint32_t d_item_bytes = 4;
    std::array<uint64_t, max_destinations> d_frontier{};
    std::array<uint64_t, max_destinations> d_out_of_sequence{};
    uint64_t d_landed = 0;
    uint64_t d_known = UINT64_MAX;
    uint32_t d_unwaited = 0;
    uint64_t d_settled = 0;
    std::array<held_immediate, max_destinations> d_held{};
    uint64_t d_held_count = 0;
    uint64_t d_wrong_destination = 0;
    uint64_t d_wrong_length = 0;
    uint64_t d_implausible = 0;
};

} // namespace rdma
} // namespace gr

#endif
