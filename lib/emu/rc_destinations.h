/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RC_DESTINATIONS_H
#define INCLUDED_RDMA_EMU_RC_DESTINATIONS_H

#include "ctrl_sink.h"
#include "destination_log.h"
#include "destination_table.h"
#include "rc_requester.h"
#include <array>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The RC side of one run of an RX stream: one rc_requester per device QP (docs/links.md,
 * "RC over several links"). A stream of one destination has the stream's; a stream over
 * several has one per used destination, each with its own PSN sequence, window, timer
 * and ACK queue (on the ack_receiver of the destination's link). As the router of the
 * run's packetizer it notes which destination each message went to (destination_log),
 * so that a resend goes where the first send went.
 *
 * To the engine it is one requester: new messages wait while any destination resends;
 * a resend batch is one destination's; the run is finished when every destination is
 * acknowledged, and failed when any is. Runs on the engine's thread.
 */
class rc_destinations : public message_router
{
public:
    /*!
     * \p links_acks[n]: the ack_receiver of link n (the stream's over one destination:
     * [0] only is used); \p routes: the run's destination table (null: one destination).
     * \p per_destination: the counters of the destinations' RC blocks, cleared by the
     * caller at START.
     */
    rc_destinations(unsigned stream,
                    const rx_descriptor& d,
                    packetizer& builder,
                    const std::vector<ack_receiver*>& links_acks,
                    destination_table* routes,
                    metadata_sink* metadata,
                    rc_stats& stats,
                    std::array<rc_destination_stats, 8>& per_destination,
                    size_t max_batch);

    //! Why \p d cannot stream RC with \p links_acks (regs::error_code; none: it can).
    static uint32_t validate(const rx_descriptor& d,
                             const std::vector<ack_receiver*>& links_acks);

    message_route route(uint64_t message, size_t packets, uint64_t end) override;

    void poll(int64_t now_ns);
    bool busy(int64_t now_ns) const;
    bool can_resend(int64_t now_ns) const;
    size_t
    build_resend(uint8_t* slots, size_t slot_bytes, outgoing_packet* out, int64_t now_ns);
    void resent(size_t sent, int64_t now_ns);
    void first_sent(uint64_t next_message, int64_t now_ns);
    //! \p message went as zeros to \p destination (see rc_requester::sent_as_zeros).
    void sent_as_zeros(uint64_t message, unsigned destination);
    bool finished() const;
    bool failed() const;
    int64_t next_deadline() const;
    //! Tell \p sink of each destination's new NAK + resend count and new RTT, events
    //! of the queue of its link.
    void report(ctrl_sink& sink);

private:
    const unsigned d_stream;
    destination_table* const d_routes;
    const uint64_t d_first_message;
    const std::array<rc_destination_stats, 8>& d_per_destination;
    std::array<std::unique_ptr<rc_requester>, 8> d_requesters;
    std::array<std::unique_ptr<destination_log>, 8> d_logs;
    std::array<uint8_t, 8> d_link{};
    std::array<uint32_t, 8> d_rtt_reported{};
    std::array<uint64_t, 8> d_naks_reported{};
    std::vector<unsigned> d_used; // destinations with a requester
    unsigned d_resending = 0;     // whose resend the last build_resend() built
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
