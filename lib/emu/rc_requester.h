/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RC_REQUESTER_H
#define INCLUDED_RDMA_EMU_RC_REQUESTER_H

#include "ack_receiver.h"
#include "destination_log.h"
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

//! RC counters of a stream, read by the register file while the engine runs (its
//! NAKs, resends and abandoned packets are the sums of its destinations').
struct rc_stats {
    std::atomic<uint64_t> zero_substituted{ 0 }; //!< samples
    std::atomic<uint64_t> acks_received{ 0 };
    //! Fatal NAKs for no packet outstanding: forged, or a confused host; ignored.
    std::atomic<uint64_t> naks_ignored{ 0 };
    void clear()
    {
        for (auto* c : { &zero_substituted, &acks_received, &naks_ignored })
            c->store(0);
    }
};

//! What one destination's requester did (the RC block of the destination, DST_RTT_NS ..
//! DST_ABANDONED), read by the register file while the engine runs.
struct rc_destination_stats {
    std::atomic<uint32_t> rtt_ns{ 0 }; //!< smoothed; 0: no sample yet
    std::atomic<uint32_t> rtt_samples{ 0 };
    std::atomic<uint64_t> retransmits{ 0 };
    std::atomic<uint64_t> naks{ 0 };
    std::atomic<uint64_t> abandoned{ 0 };
    void clear()
    {
        rtt_ns = 0;
        rtt_samples = 0;
        for (auto* c : { &retransmits, &naks, &abandoned })
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
 *
 * One requester serves one QP of the device: the stream's, whose packet j is the run's
 * j-th (PSN RX_START_PSN + j), or, for a stream over several destinations, destination
 * d's (docs/links.md, "RC over several links"), whose packet j is the j-th the schedule
 * gave d (PSN DST_START_PSN + j): the destination_log says which message held it and
 * by which route, so that a resend goes where the first did and no QP's sequence has a
 * hole. Each answers its own ACKs (the ack_receiver queue of its destination) and
 * measures the RTT of its path from them: the time from sending a packet with AckReq
 * to the ACK that covers it, a packet resent meanwhile giving no sample (Karn).
 */
class rc_requester
{
public:
    //! How long an ACK the device asked for may take before it retransmits: far above
    //! a LAN round trip, far below the host's grace period (20 ms by default).
    static constexpr int64_t retransmit_timeout_ns = 2000000;

    //! The requester of \p stream's QP; with \p log, of destination \p destination's
    //! (the messages routed to it, in its packet order), whose ACKs come to \p acks.
    rc_requester(unsigned stream,
                 const rx_descriptor& d,
                 packetizer& builder,
                 ack_receiver& acks,
                 metadata_sink* metadata,
                 rc_stats& stats,
                 size_t max_batch,
                 rc_destination_stats& destination_stats,
                 unsigned destination = 0,
                 const destination_log* log = nullptr);

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
    //! Messages below \p next_message have left once (or were lost on the way); of a
    //! destination's requester: every message its log holds.
    void first_sent(uint64_t next_message, int64_t now_ns);
    /*!
     * The device lost \p message's samples before sending (FIFO overflow), and it goes
     * as zeros instead: RC cannot leave a PSN out without every later packet going
     * twice (go-back-N). Counted and reported as substituted, and never resent with data.
     * (A destination's requester: the newest message of its log.)
     */
    void sent_as_zeros(uint64_t message);
    //! The smoothed RTT of its path (ns), 0 before the first sample.
    uint32_t rtt_ns() const { return d_srtt_ns; }
    //! RTT samples taken so far in the run.
    uint32_t rtt_samples() const { return d_rtt_samples; }

    bool finished() const { return d_window.all_acked(); }
    //! The host answered with a fatal NAK: its QP is in ERROR, the stream cannot go on.
    bool failed() const { return d_failed; }
    //! When poll() next needs to run for the timer or a backoff; INT64_MAX: never.
    int64_t next_deadline() const { return d_window.next_deadline(); }
    const retransmit_window& window() const { return d_window; }

private:
    // Where packet j of this QP's sequence belongs.
    struct location {
        uint64_t message = 0;      // the run's message index
        uint64_t first_packet = 0; // this QP's index of the message's first packet
        size_t packets = 0;        // the message's packets
        const message_route* route = nullptr; // a destination's: the first send's
    };
    bool locate(uint64_t packet, location& out);
    void handle(const rc_ack& a, int64_t now_ns);
    void count_nak(retransmit_window::verdict v);
    void take_rtt_sample(int64_t now_ns);
    uint64_t end_of(uint64_t message) const; // one past its last packet index
    void report_substitution(uint64_t packet);
    void flush_report();

    const unsigned d_stream;
    const unsigned d_destination;
    const destination_log* const d_log; // a destination's requester only
    rc_destination_stats& d_dest_stats;
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
    destination_log::entry d_found; // the last locate()'s entry (a destination's)
    // The packet whose ACK gives the next RTT sample (UINT64_MAX: none), sent then.
    uint64_t d_rtt_packet = UINT64_MAX;
    int64_t d_rtt_sent_ns = 0;
    uint32_t d_srtt_ns = 0;
    uint32_t d_rtt_samples = 0;

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
