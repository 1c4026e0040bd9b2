/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RC_REQUESTER_H
#define INCLUDED_RDMA_EMU_RC_REQUESTER_H

#include "ack_receiver.h"
#include "metadata_sink.h"
#include "packetizer.h"
#include "retransmit_window.h"
#include "rx_descriptor.h"
#include <atomic>
#include <cstdint>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! RC counters of a stream, read by the register file while the engine runs.
struct rc_stats {
    std::atomic<uint64_t> naks_received{ 0 };
    std::atomic<uint64_t> retransmits{ 0 };
    std::atomic<uint64_t> zero_substituted{ 0 }; //!< samples
    std::atomic<uint64_t> acks_received{ 0 };
    std::atomic<uint64_t> packets_abandoned{ 0 };
    //! Fatal NAKs for no packet outstanding: forged, or a confused host; ignored.
    std::atomic<uint64_t> naks_ignored{ 0 };
    void clear()
    {
        for (auto* c : { &naks_received,
                         &retransmits,
                         &zero_substituted,
                         &acks_received,
                         &packets_abandoned,
                         &naks_ignored })
            c->store(0);
    }
};

/*!
 * The RC half of an RX engine (docs/roce-wire.md, "RC profile"): takes the host's
 * ACK/NAKs from the link, keeps the retransmit window and builds the retransmissions,
 * resending as zeros what the window no longer holds and reporting each such
 * substitution to the metadata sink. The engine sends nothing new while busy(), and
 * tells it what left (first_sent(), resent()). Runs on the engine's thread; memory is
 * allocated at construction.
 */
class rc_requester
{
public:
    //! How long an ACK the device asked for may take before it retransmits: far above
    //! a LAN round trip, far below the host's grace period (20 ms by default).
    static constexpr int64_t retransmit_timeout_ns = 2000000;

    rc_requester(unsigned stream,
                 const rx_descriptor& d,
                 packetizer& builder,
                 ack_receiver& acks,
                 metadata_sink* metadata,
                 rc_stats& stats,
                 size_t max_batch);

    //! Take the ACK/NAKs that came back, then run the retransmit timer.
    void poll(int64_t now_ns);
    //! A retransmission is pending, or the host asked to back off: new packets wait.
    bool busy(int64_t now_ns) const { return d_window.busy(now_ns); }
    //! Retransmissions are ready to build now.
    bool can_resend(int64_t now_ns) const
    {
        return d_window.resend_pending() && !d_window.paused(now_ns);
    }
    //! Build the next retransmissions (at most the batch size given at construction,
    //! AckReq on the last) into \p slots; returns how many.
    size_t build_resend(uint8_t* slots, size_t slot_bytes, outgoing_packet* out);
    //! The first \p sent packets of the last build_resend() left.
    void resent(size_t sent, int64_t now_ns);
    //! Messages below \p next_message have left once (or were lost on the way).
    void first_sent(uint64_t next_message, int64_t now_ns);
    /*!
     * The device lost \p message's samples before sending (FIFO overflow), and it goes
     * as zeros instead: RC cannot leave a PSN out without every later packet going
     * twice (go-back-N). Counted and reported as substituted, and never resent with data.
     */
    void sent_as_zeros(uint64_t message);

    bool finished() const { return d_window.all_acked(); }
    //! The host answered with a fatal NAK: its QP is in ERROR, the stream cannot go on.
    bool failed() const { return d_failed; }
    //! When poll() next needs to run for the timer or a backoff; INT64_MAX: never.
    int64_t next_deadline() const { return d_window.next_deadline(); }
    const retransmit_window& window() const { return d_window; }

private:
    void handle(const rc_ack& a, int64_t now_ns);
    void count_nak(retransmit_window::verdict v);
    uint64_t end_of(uint64_t message) const; // one past its last packet index
    void report_substitution(uint64_t packet);
    void flush_report();

    const unsigned d_stream;
    packetizer& d_builder;
    ack_receiver& d_acks;
    metadata_sink* const d_metadata;
    rc_stats& d_stats;
    const size_t d_max_batch;
    const uint64_t d_packets_per_message;
    const uint64_t d_samples_per_packet;
    retransmit_window d_window;
    uint64_t d_first_unsent = 0; // message: first_sent() has seen those below
    bool d_failed = false;

    // The last build_resend(): packet index, zeros, AckReq of each.
    std::vector<uint64_t> d_index;
    std::vector<uint8_t> d_zeros;
    std::vector<uint8_t> d_ack;
    // A run of substituted samples not yet reported (merged across packets).
    uint64_t d_report_first = 0;
    uint64_t d_report_count = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
