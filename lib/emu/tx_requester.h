/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_REQUESTER_H
#define INCLUDED_RDMA_EMU_TX_REQUESTER_H

#include "ack_receiver.h"
#include "tx_descriptor.h"
#include "wire.h"
#include <array>
#include <cstdint>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * A running quantile of the last 256 READ round trips: the lead time follows its 99th
 * percentile (docs/transmit.md, "Lead time").
 */
class rtt_estimator
{
public:
    static constexpr size_t window = 256;
    void add(int64_t rtt_ns);
    //! The 99th percentile of the samples held (0 before the first).
    int64_t p99() const { return d_p99; }
    size_t samples() const { return d_count; }

private:
    std::array<int64_t, window> d_ring{};
    std::array<int64_t, window> d_scratch{};
    size_t d_next = 0;
    size_t d_count = 0;
    int64_t d_p99 = 0;
};

/*!
 * The RC requester of a TX stream (docs/roce-wire.md, "Device as requester"): sends
 * READ REQUESTs for sample messages and the control page, and SEND ONLY WITH IMMEDIATE
 * notifications, all in one PSN sequence to the host QP; takes the READ RESPONSEs and
 * ACK/NAKs back in PSN order, copying response payloads where the engine said. A PSN
 * gap, an out-of-order response or no progress for the timeout sends every
 * outstanding request again from the first missing PSN (go-back-N; the host answers a
 * duplicate READ from its remembered resources, re-ACKs a duplicate SEND). Runs on the
 * engine's thread; memory is allocated at construction.
 */
class tx_requester
{
public:
    enum class kind : uint8_t { sample, control, notify };

    //! A request that completed (all its responses, or its ACK, arrived).
    struct completion {
        kind what = kind::sample;
        uint64_t tag = 0;         //!< sample: its first item; notify: the immediate
        uint32_t length = 0;      //!< READ bytes
        bool resent = false;      //!< it was requested again on the way
        uint8_t control[16] = {}; //!< control: the 16 bytes read
    };

    static constexpr size_t max_outstanding = 64;

    tx_requester(unsigned stream, const tx_descriptor& d, wire& link, ack_receiver& acks);

    //! READs outstanding (sample and control): at most TX_MAX_RD_ATOMIC.
    unsigned reads_outstanding() const { return d_reads; }
    bool control_outstanding() const { return d_control; }
    //! Room for one more request of any kind.
    bool can_send() const { return d_count < max_outstanding; }
    //! READ \p length bytes at \p va (rkey \p rkey) into \p dest; false if there is no
    //! room (can_send(): nothing requested, nothing counted), or if the link refused the
    //! packet (it is still outstanding and goes again on timeout).
    bool read(kind what,
              uint64_t tag,
              uint64_t va,
              uint32_t rkey,
              uint32_t length,
              uint8_t* dest,
              int64_t now_ns);
    //! SEND ONLY WITH IMMEDIATE \p imm (AckReq set); false as read().
    bool notify(uint32_t imm, int64_t now_ns);

    //! Take what came back and run the timer; up to \p max completions go to \p out.
    size_t poll(int64_t now_ns, completion* out, size_t max);
    //! When poll() must run next for the timer (INT64_MAX: nothing outstanding).
    int64_t next_deadline() const;
    //! Go-backs without progress, and the time without progress, after which the
    //! requester gives up (both: a host stalled for a moment is waited for, IBA's
    //! retry_cnt at most 7): docs/roce-wire.md, "Retry limit".
    static constexpr unsigned retry_limit = 7;
    static constexpr int64_t give_up_ns = 2000000000;

    //! The requester stopped: the host answered a request with a fatal NAK (its QP is
    //! in ERROR), or gave up (gave_up()).
    bool failed() const { return d_failed; }
    //! Its requests went unanswered retry_limit times in a row over give_up_ns (a READ
    //! the host did not expect may have taken the PSNs the host's QP expected).
    bool gave_up() const { return d_gave_up; }
    const rtt_estimator& rtt() const { return d_rtt; }

    uint64_t sample_reads() const { return d_sample_reads; }  //!< TX_READS
    uint64_t rereads() const { return d_rereads; }            //!< TX_REREADS
    uint64_t responses_dropped() const { return d_injected; } //!< EMU_TX_LOSS_PPM
    uint64_t duplicates() const { return d_duplicates; }
    uint64_t naks() const { return d_naks; }
    //! Sample READs sent again since the last call (tx_seq_error): the tag of the
    //! first, and the READ RESPONSE packets found missing; false if none.
    bool take_reread(uint64_t& first_tag, uint64_t& missing);

private:
    struct request {
        kind what = kind::sample;
        uint64_t tag = 0;
        uint64_t va = 0;
        uint32_t rkey = 0;
        uint32_t length = 0; // READ bytes; SEND: 0
        uint8_t* dest = nullptr;
        uint32_t first_psn = 0;
        uint32_t packets = 1;
        uint32_t received = 0; // response packets taken in order
        int64_t sent_ns = 0;
        bool resent = false;
        uint8_t control[16] = {};
    };

    request& at(size_t i) { return d_queue[(d_head + i) % max_outstanding]; }
    bool push(const request& r, int64_t now_ns);
    bool transmit(const request& r, uint32_t from_packet);
    void take(const uint8_t* data, size_t length, int64_t now_ns);
    void take_response(const roce::packet& p, int64_t now_ns);
    void take_ack(const roce::packet& p, int64_t now_ns);
    void go_back(int64_t now_ns);
    void complete_head(int64_t now_ns);
    bool lose(); // EMU_TX_LOSS_PPM: whether this READ RESPONSE is dropped on arrival
    int64_t timeout_ns() const;

    const unsigned d_stream;
    const tx_descriptor d_desc;
    wire& d_link;
    ack_receiver& d_acks;

    std::array<request, max_outstanding> d_queue{};
    size_t d_head = 0;
    size_t d_count = 0;
    unsigned d_reads = 0;
    bool d_control = false;
    uint32_t d_next_psn;
    bool d_gap_seen = false;   // a go-back for the current gap was sent
    int64_t d_progress_ns = 0; // the last response, completion or go-back
    int64_t d_answered_ns = 0; // the last response or completion (a go-back is none)
    unsigned d_retries = 0;    // go-backs since then
    bool d_failed = false;
    bool d_gave_up = false;

    std::vector<uint8_t> d_packet;   // one request being built
    std::vector<uint8_t> d_rx_slots; // packets taken from the ack_receiver
    std::array<size_t, 32> d_rx_lengths{};
    std::array<completion, max_outstanding> d_done{};
    size_t d_done_count = 0;

    rtt_estimator d_rtt;
    uint64_t d_arrivals = 0; // READ RESPONSE packets that arrived (loss generator key)
    uint64_t d_sample_reads = 0;
    uint64_t d_rereads = 0;
    uint64_t d_injected = 0;
    uint64_t d_duplicates = 0;
    uint64_t d_naks = 0;
    bool d_reread = false; // a sample READ went again since take_reread()
    uint64_t d_reread_tag = 0;
    uint64_t d_reread_missing = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
