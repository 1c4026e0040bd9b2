/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_NAK_BACKOFF_H
#define INCLUDED_RDMA_EMU_NAK_BACKOFF_H

#include "ctrl_model.h"
#include "water_filling.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * Congestion control as a policy on the dequeue rate (seed 001, SCR: user-defined
 * congestion control from in-band NAK events). Per link, what water filling may put on
 * it: a run that sees new NAKs or retransmits on any destination of the link cuts that
 * to `cut` of what the link carried at the last run (its load, else its streams'
 * demand); each run without new ones gives back `regain` of the estimate, until it
 * reaches what the link is asked to carry (min(LINK_CAPACITY, its streams' demand)):
 * then the link is back to its capacity. Never below `floor_share` of that demand, so
 * that a stream is slowed, not starved. Multiplicative both ways: water filling, not
 * the backoff, makes the shares of one link fair.
 *
 * The counts are the engines' running counts per (stream, link): an RX stream's NAKs
 * + retransmits per destination, or a TX stream's re-reads on the link its READ
 * RESPONSEs come back over (one instance per direction: a link is full duplex). One
 * that went down (a new run of the stream) is a new start, not NAKs. No allocation.
 */
class nak_backoff
{
public:
    static constexpr double cut = 0.5;
    static constexpr double regain = 0.125;
    static constexpr double floor_share = 1.0 / 64;

    /*!
     * One run: update each link from the loss counts \p losses and \p last (the
     * previous filling; \p have_last false: none), and bound \p in's capacities by
     * the estimates.
     */
    void apply(const ctrl_loss_counts& losses,
               const water_filling_result& last,
               bool have_last,
               water_filling_input& in);
    //! Another policy runs: follow the counts (so that water filling, once back, sees
    //! only the losses that come after) and forget every cut.
    void observe(const ctrl_loss_counts& losses);
    //! Some link is below what it is asked to carry: runs must continue to regain it.
    bool recovering() const;
    //! The estimate of \p link, bytes/s (+infinity: not cut).
    double estimate(unsigned link) const { return d_estimate[link]; }
    //! Runs that cut a link (the count of decreases, all links).
    uint64_t cuts() const { return d_cuts; }
    void reset();

private:
    std::array<std::array<uint64_t, ctrl_max_links>, ctrl_max_streams> d_naks{};
    std::array<double, ctrl_max_links> d_estimate = unlimited();
    uint64_t d_cuts = 0;

    static std::array<double, ctrl_max_links> unlimited()
    {
        std::array<double, ctrl_max_links> a;
        a.fill(ctrl_model::unlimited);
        return a;
    }
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
