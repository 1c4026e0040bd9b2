/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_CTRL_EVENT_QUEUE_H
#define INCLUDED_RDMA_EMU_CTRL_EVENT_QUEUE_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! The controller's sizes (docs/links.md, "Software control of the data path"): RX
//! streams as the register map has room for, links as a stream has destinations.
constexpr unsigned ctrl_max_streams = 16;
constexpr unsigned ctrl_max_links = 8;
constexpr unsigned ctrl_max_tx_streams = 8;
//! One queue per (stream, link): a stream's destination on that link; then one per TX
//! stream (its READs leave on one link).
constexpr unsigned ctrl_rx_queues = ctrl_max_streams * ctrl_max_links;
constexpr unsigned ctrl_max_queues = ctrl_rx_queues + ctrl_max_tx_streams;

/*!
 * What an event reports. Every kind carries a state, not a change (a counter's running
 * value, the latest RTT, up or down), so that keeping only the latest one of a kind
 * loses nothing the controller needs.
 */
enum class ctrl_kind : uint8_t {
    nak = 0,    //!< destination: NAKs + retransmits so far (running count)
    rtt = 1,    //!< destination: the latest RTT probe, ns (0: none measured)
    link = 2,   //!< destination: 1 up, 0 down
    host = 3,   //!< stream: the host's rate limit, bytes/s (0: none); a register write
    demand = 4, //!< stream: the converter's rate, bytes/s
    weight = 5, //!< destination: the weight the host wrote (DST_WEIGHT)
    reread = 6, //!< TX stream (the event's stream): sample READs sent again so far
};
constexpr unsigned ctrl_kinds = 7;

//! Kinds about the stream, not one of its destinations: their queue is (stream, 0),
//! whatever link the event names, so that two of them never wait in two queues and
//! the older one cannot be applied after the newer.
constexpr bool ctrl_stream_kind(ctrl_kind k)
{
    return k == ctrl_kind::host || k == ctrl_kind::demand;
}
//! Kinds about a TX stream: their queue is the TX stream's (its link is not named).
constexpr bool ctrl_tx_kind(ctrl_kind k) { return k == ctrl_kind::reread; }

struct ctrl_event {
    ctrl_kind kind = ctrl_kind::nak;
    uint8_t stream = 0;
    uint8_t link = 0;
    uint64_t value = 0;
};

//! The latest value of each kind that arrived for one queue since it was last taken.
struct ctrl_record {
    uint8_t stream = 0;
    uint8_t link = 0;
    uint8_t present = 0; //!< bit k: kind k arrived
    std::array<uint64_t, ctrl_kinds> value{};

    bool has(ctrl_kind k) const { return present & (1u << unsigned(k)); }
    uint64_t get(ctrl_kind k) const { return value[unsigned(k)]; }
};

/*!
 * The control loop's event queues with keep-latest coalescing (seed 001, SCR: the
 * event multiplexer). One pending record per queue: an event for a queue that already
 * has one pending replaces that kind's value in it and is counted coalesced, so the
 * loop processes at most one record per queue per run, however many events arrived
 * (1000 events for one queue between two runs: 1 processed, 999 coalesced). Kinds
 * are kept apart within the record, not replaced by one another: an RTT probe right
 * after a link-down must not make the loop forget the link went down.
 *
 * Records are taken oldest first (by the first event since the queue was last taken),
 * so that no queue waits behind a busier one. Knows no time: the period is the loop's
 * (rate_controller). Fixed size, no allocation at all; post() is O(1), take() O(pending).
 * Not thread-safe: the caller serializes post() and take().
 */
class ctrl_event_queue
{
public:
    //! The queue of (\p stream, \p link), or ctrl_max_queues if out of range.
    static unsigned queue_of(unsigned stream, unsigned link);
    //! The queue of TX stream \p t, or ctrl_max_queues if out of range.
    static unsigned tx_queue_of(unsigned t);

    /*!
     * Record \p e (O(1)). An event naming a stream, link or kind out of range is
     * counted in rejected() and ignored: events come from the engines and from host
     * register writes, and a bad one must not index past the queues.
     */
    void post(const ctrl_event& e);
    //! Every pending record, oldest first, into \p out (room for ctrl_max_queues);
    //! each queue is empty afterwards. Returns how many.
    size_t take(ctrl_record* out);
    //! Forget pending records and zero the counters (the controller is reset).
    void reset();

    size_t pending() const { return d_pending; }
    //! Events accepted. Invariant: events = processed + coalesced + pending.
    uint64_t events() const { return d_events; }
    //! Events that replaced or joined a record already pending (CTRL_COALESCED).
    uint64_t coalesced() const { return d_coalesced; }
    //! Records taken (one per queue per run).
    uint64_t processed() const { return d_processed; }
    uint64_t rejected() const { return d_rejected; }

private:
    struct slot {
        bool pending = false;
        ctrl_record r;
    };
    std::array<slot, ctrl_max_queues> d_slots{};
    // The pending queues in the order their first event came: take() walks only these.
    std::array<uint16_t, ctrl_max_queues> d_order{};
    size_t d_pending = 0;
    uint64_t d_events = 0;
    uint64_t d_coalesced = 0;
    uint64_t d_processed = 0;
    uint64_t d_rejected = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
