/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RETRANSMIT_WINDOW_H
#define INCLUDED_RDMA_EMU_RETRANSMIT_WINDOW_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The RC requester state of one stream (docs/roce-wire.md, "RC profile"): what the host
 * acknowledged, what the device still holds for retransmission, and what to send again
 * (go-back-N). Pure logic over packet indices (0 = the first packet of the run;
 * PSN = start PSN + index mod 2^24) with time passed in: no I/O, no allocation, so
 * every rule is testable on its own.
 *
 *  - sent: packets below have left once (or were lost on the way: loss injection);
 *  - acked: the host has every packet below (ACK PSN + 1, or a NAK's expected PSN);
 *  - held: [floor, sent), floor = max(acked, sent - capacity): the window keeps the
 *    newest `capacity` packets sent; an older unacknowledged packet is evicted and, if
 *    it must be sent again, goes as zeros of the same length (zero substitution);
 *  - resend: go-back-N sends [resend_next, sent) again, in order, before anything new.
 *
 * Timer: armed while an ACK the device asked for (AckReq) is outstanding; restarted by
 * every ACK that makes progress. On expiry (timeout, doubled after each expiry without
 * progress): if the last NAK is still unanswered, go back to it (its resend was lost);
 * else probe with the newest packet and AckReq, whose answer (ACK, duplicate re-ACK or
 * NAK) says exactly where the host is without resending packets it may already have;
 * after probe_limit unanswered probes (a lost NAK), go back to the oldest unacked packet;
 * after retry_limit expiries without progress, abandon what is outstanding.
 */
class retransmit_window
{
public:
    struct config {
        uint32_t start_psn = 0;
        uint64_t capacity_packets = 1; //!< at least 1: the probe is always held
        int64_t timeout_ns = 2000000;
        unsigned probe_limit = 2;
        unsigned retry_limit = 8;
    };

    //! What an ACK or NAK meant.
    enum class verdict {
        progress, //!< moved `acked` forward or started a retransmission
        stale,    //!< about packets already acknowledged, or a consequence of a backoff
        invalid,  //!< a PSN the device never sent
    };

    retransmit_window() = default;
    explicit retransmit_window(const config& c) { reset(c); }
    void reset(const config& c);

    uint32_t psn_of(uint64_t packet) const
    {
        return static_cast<uint32_t>(d_config.start_psn + packet) & psn_mask;
    }

    //! First transmissions: packets below \p sent_upto have left; the host was asked
    //! to acknowledge every packet below \p ack_requested_upto (AckReq).
    void on_sent(uint64_t sent_upto, uint64_t ack_requested_upto, int64_t now_ns);
    //! Retransmissions: packets below \p resent_upto have left again (in order); the
    //! newest of them carried AckReq iff \p ack_requested.
    void on_resent(uint64_t resent_upto, bool ack_requested, int64_t now_ns);

    //! ACK (AETH syndrome 0x1F) for \p psn: the host has every packet up to it.
    verdict on_ack(uint32_t psn, int64_t now_ns);
    //! NAK PSN sequence error (0x60): the host expects \p expected_psn.
    verdict on_nak(uint32_t expected_psn, int64_t now_ns);
    //! RNR NAK for \p psn: resend from it after \p backoff_ns; send nothing meanwhile.
    verdict on_rnr(uint32_t psn, int64_t backoff_ns, int64_t now_ns);
    //! Run the timer; returns true when it expired (a retransmission was scheduled).
    bool on_timer(int64_t now_ns);

    //! A retransmission is pending or the host asked to back off: new packets wait.
    bool busy(int64_t now_ns) const { return resend_pending() || paused(now_ns); }
    //! The next packet to send again, if resend_pending() and !paused().
    uint64_t resend_next() const { return d_resend_next; }
    bool resend_pending() const { return d_resend_next < d_sent; }
    bool paused(int64_t now_ns) const { return now_ns < d_pause_until; }

    uint64_t floor() const
    {
        const uint64_t newest =
            d_sent > d_config.capacity_packets ? d_sent - d_config.capacity_packets : 0;
        return d_acked > newest ? d_acked : newest;
    }
    //! The window still holds \p packet (else it is resent as zeros).
    bool holds(uint64_t packet) const
    {
        return packet >= floor() && !sent_as_zeros(packet);
    }
    /*!
     * \p packet is being resent as zeros: true the first time for that packet, so that
     * each substituted packet is counted and reported once. Substitutions happen in
     * increasing order from the acknowledged frontier, so a frontier suffices (packets
     * that went as zeros the first time were counted then).
     */
    bool first_substitution(uint64_t packet);
    /*!
     * Packets [first, end) went out as zeros the first time (the device lost their
     * samples before sending: FIFO overflow), counted then: never held, never counted
     * again. The newest `zero_ranges` runs are remembered; the oldest is forgotten first.
     */
    void mark_zeros(uint64_t first, uint64_t end);
    bool sent_as_zeros(uint64_t packet) const;

    //! When on_timer() or the end of a backoff next needs attention; INT64_MAX: never.
    int64_t next_deadline() const;
    bool all_acked() const { return d_acked >= d_sent; }
    //! Whether \p psn names a packet sent and not yet acknowledged: the only ones a
    //! host can NAK.
    bool outstanding(uint32_t psn) const
    {
        uint64_t index;
        return index_of(psn, index) && index >= d_acked;
    }
    uint64_t acked() const { return d_acked; }
    uint64_t sent() const { return d_sent; }
    //! Packets given up on after retry_limit expiries (the host sees them as lost).
    uint64_t abandoned() const { return d_abandoned; }

    static constexpr size_t zero_ranges = 16;

private:
    static constexpr uint32_t psn_mask = 0xFFFFFF;
    struct range {
        uint64_t first = 0, end = 0;
    };

    //! The packet index that \p psn names among those sent; false if none.
    bool index_of(uint32_t psn, uint64_t& index) const;
    bool timer_armed() const { return d_acked < d_ack_requested; }
    void advance_acked(uint64_t upto, int64_t now_ns);

    config d_config;
    uint64_t d_sent = 0;
    uint64_t d_acked = 0;
    uint64_t d_resend_next = 0;
    uint64_t d_ack_requested = 0; // packets below were asked to be acknowledged
    uint64_t d_zeroed_upto = 0;   // substitutions below were counted
    uint64_t d_abandoned = 0;
    int64_t d_timer_start = 0;
    int64_t d_pause_until = INT64_MIN;
    unsigned d_expiries = 0; // consecutive expiries without progress
    unsigned d_probes = 0;   // consecutive unanswered probes
    bool d_nak_open = false; // the last NAK's PSN is `acked` and its resend unanswered
    bool d_rnr_open = false; // a backoff for packet `acked` is running
    std::array<range, zero_ranges>
        d_zeros{}; // ring of runs sent as zeros, oldest at d_zeros_head
    size_t d_zeros_head = 0;
    size_t d_zeros_count = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
