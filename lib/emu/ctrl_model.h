/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_CTRL_MODEL_H
#define INCLUDED_RDMA_EMU_CTRL_MODEL_H

#include "ctrl_event_queue.h"
#include "water_filling.h"
#include <array>
#include <cstdint>
#include <limits>

namespace gr {
namespace rdma {
namespace emu {

//! What the controller last heard of one destination (a stream's QP on one link).
struct ctrl_destination_state {
    bool up = true;
    uint64_t rtt_ns = 0; //!< 0: not measured (UC)
    uint64_t naks = 0;   //!< NAKs + retransmits so far, as the engine counts them
    uint64_t weight = 0; //!< the host's last DST_WEIGHT (policy 0 keeps it as is)
};

struct ctrl_stream_state {
    uint32_t links = 0;      //!< bit l: the stream has a destination on link l
    uint64_t demand = 0;     //!< the converter's rate, bytes/s
    uint64_t host_limit = 0; //!< the host's rate limit, bytes/s; 0: none
    std::array<ctrl_destination_state, ctrl_max_links> dst{};
};

/*!
 * Loss signals per (stream, link) for the NAK backoff: a running count (RX: NAKs +
 * retransmits of a destination; TX: re-reads of a stream's READs) and whether the
 * stream uses that link now (bit l of in_use[s]).
 */
struct ctrl_loss_counts {
    std::array<std::array<uint64_t, ctrl_max_links>, ctrl_max_streams> count{};
    std::array<uint32_t, ctrl_max_streams> in_use{};
};

//! A TX stream's READs: their RESPONSEs come back over one link (the other direction).
struct ctrl_tx_state {
    static constexpr uint8_t no_tx_link = 0xFF;
    //! The link its requests leave on; no_tx_link: not running.
    uint8_t link = no_tx_link;
    uint64_t demand = 0;     //!< the converter's rate in bytes/s on the link
    uint64_t host_limit = 0; //!< the host's TX_RATE_LIMIT in bytes/s on the link; 0 none
};

/*!
 * The controller's view of the device: the latest state the events reported, and
 * the configuration (which links a stream's destinations use, link capacities) that
 * register writes set. The policies read only this, so they are pure functions of it.
 * No allocation.
 */
class ctrl_model
{
public:
    static constexpr double unlimited = std::numeric_limits<double>::infinity();

    //! Take in one processed record: each kind present sets its field.
    void apply(const ctrl_record& r);
    //! The links of \p stream's destinations (0: the stream is not in use).
    void set_links(unsigned stream, uint32_t mask);
    //! LINK_CAPACITY of \p link, bytes/s (reset: unlimited; 0: carries nothing).
    void set_capacity(unsigned link, double bytes_per_s);

    const ctrl_stream_state& stream(unsigned s) const { return d_streams[s]; }
    double capacity(unsigned link) const { return d_capacity[link]; }
    //! What the stream wants: its converter's rate, or less if the host asked less.
    double demand(unsigned s) const;
    //! The stream's links whose destination is up: the ones policies may give weight.
    uint32_t usable(unsigned s) const;
    //! The water-filling problem this state poses.
    water_filling_input filling_input() const;

    //! TX stream \p t runs over \p state.link (no_tx_link: it does not run).
    void set_tx(unsigned t, const ctrl_tx_state& state);
    const ctrl_tx_state& tx(unsigned t) const { return d_tx[t]; }
    //! What TX stream t's READs want: its converter's rate, or less if the host asked.
    double tx_demand(unsigned t) const;
    /*!
     * The water filling of the READ RESPONSEs: the TX streams on the links' other
     * direction, whose capacity is LINK_CAPACITY too (a link is full duplex), so RX
     * and TX streams never share one. A TX stream uses one link, up or not (its READs
     * have no other way to go).
     */
    water_filling_input tx_filling_input() const;

    //! The RX streams' NAK counts per destination, for the backoff.
    ctrl_loss_counts rx_losses() const;
    //! The TX streams' re-read counts, on the link each READs over.
    ctrl_loss_counts tx_losses() const;

private:
    std::array<ctrl_stream_state, ctrl_max_streams> d_streams{};
    std::array<ctrl_tx_state, ctrl_max_tx_streams> d_tx{};
    // Events, not configuration: set_tx() (START, the host's writes) keeps them.
    std::array<uint64_t, ctrl_max_tx_streams> d_tx_rereads{};
    std::array<double, ctrl_max_links> d_capacity = filled(unlimited);

    static std::array<double, ctrl_max_links> filled(double v)
    {
        std::array<double, ctrl_max_links> a;
        a.fill(v);
        return a;
    }
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
