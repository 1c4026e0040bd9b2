/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_COUNTERS_H
#define INCLUDED_RDMA_NIC_SOFT_COUNTERS_H

#include "nic.h"
#include <gnuradio/rdma/transport_api.h>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace nic {

/*!
 * What the soft NIC did with one datagram. The drop reasons are listed in the order
 * the checks run (docs/soft-nic.md); each is also the name of its counter.
 */
enum class rx_result : uint8_t {
    accepted,                //!< executed (counter "rx_packets")
    drop_truncated,          //!< shorter than its headers, or longer than a receive slot
    drop_bad_ip_header,      //!< frame path only: IPv4/UDP header not for this NIC
    drop_bad_icrc,           //!< ICRC mismatch
    drop_bad_version,        //!< BTH TVer != 0
    drop_unknown_opcode,     //!< not an RC/UC opcode
    drop_bad_pkey,           //!< P_Key low 15 bits != 0x7FFF
    drop_unknown_qpn,        //!< no QP with that number
    drop_qp_state,           //!< QP not in RTR/RTS
    drop_transport_mismatch, //!< RC opcode on a UC QP or vice versa
    drop_bad_source,         //!< source IP is not the QP's peer
    drop_psn_sequence,       //!< PSN gap (or rest of a message broken by one)
    drop_stale_read,         //!< RC: old READ outside the remembered ones (not replayed)
    drop_missing_reth,       //!< MIDDLE/LAST without a message in progress
    drop_opcode_sequence,    //!< RC: FIRST/ONLY while a message is in progress
    drop_no_access,          //!< QP does not grant remote write (READ: remote read)
    drop_bad_rkey,           //!< no MR with that rkey in the QP's PD granting the access
    drop_out_of_bounds,      //!< the remaining message does not fit in the MR
    drop_bad_length,         //!< payload/pad do not fit the message and path MTU
    drop_no_receive_wr,      //!< WITH_IMM and no receive posted (RC: RNR NAK)
    drop_unsupported,        //!< not a request (ACK, READ response)
    duplicate,               //!< RC: old PSN, re-ACKed (READ: replayed), not executed
};
constexpr size_t rx_result_count = static_cast<size_t>(rx_result::duplicate) + 1;

//! Counter name of \p result: "drop_bad_rkey", ...; "accepted" for accepted.
const char* to_string(rx_result result);

//! Events that are not a per-datagram verdict.
enum class nic_event : uint8_t {
    rx_bytes,            //!< payload bytes written into memory regions
    completions,         //!< work completions pushed to a CQ (any status)
    cq_overflow,         //!< completions dropped because the CQ was full
    acks_sent,           //!< RC ACKs (incl. duplicate re-ACKs)
    naks_sent,           //!< RC NAKs (PSN sequence, RNR, invalid request, remote access)
    tx_errors,           //!< ACK/NAKs and READ RESPONSEs the socket refused
    psn_resync,          //!< UC: a START packet accepted after a gap (informational)
    message_aborted,     //!< a started multi-packet message that will never complete
    reads,               //!< RC READ requests served (new, not replays)
    read_replays,        //!< RC duplicate READ requests answered again from memory
    read_responses_sent, //!< READ RESPONSE packets sent (replays included)
    tx_bytes,            //!< payload bytes of the READ RESPONSEs sent
    rx_coalesced,        //!< receives that held several datagrams (UDP GRO)
};
constexpr size_t nic_event_count = static_cast<size_t>(nic_event::rx_coalesced) + 1;
const char* to_string(nic_event event);

/*!
 * The counters of one soft NIC. Written only by whoever holds the table lock, read at
 * any time from any thread. Increments release and reads acquire (free on x86: the
 * increment is a locked instruction anyway), so a reader that sees a count also sees
 * the work counted before it: rx_packets == n means the payloads of those n packets
 * are visible in memory. Counters are not a consistent snapshot of each other.
 */
class RDMA_TRANSPORT_API soft_counters
{
public:
    void count(rx_result result)
    {
        d_results[static_cast<size_t>(result)].fetch_add(1, std::memory_order_release);
    }
    void add(nic_event event, uint64_t n = 1)
    {
        d_events[static_cast<size_t>(event)].fetch_add(n, std::memory_order_release);
    }
    uint64_t get(rx_result result) const
    {
        return d_results[static_cast<size_t>(result)].load(std::memory_order_acquire);
    }
    uint64_t get(nic_event event) const
    {
        return d_events[static_cast<size_t>(event)].load(std::memory_order_acquire);
    }
    //! Every datagram that got a verdict, accepted or not.
    uint64_t datagrams() const;

    /*!
     * By name: "rx_datagrams" (all verdicts), "rx_packets" (accepted), one per drop
     * reason and "duplicate", then the nic_event names.
     */
    counters snapshot() const;

private:
    std::array<std::atomic<uint64_t>, rx_result_count> d_results{};
    std::array<std::atomic<uint64_t>, nic_event_count> d_events{};
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
