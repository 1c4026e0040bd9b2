/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RX_DESCRIPTOR_H
#define INCLUDED_RDMA_EMU_RX_DESCRIPTOR_H

#include "../util/socket_address.h"
#include "impairments.h"
#include <gnuradio/rdma/test_signal.h>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! The device's QPN for RX stream \p stream: the host QP's remote QPN, and the DestQP
//! of the ACK/NAKs the host sends back (register RX_SOURCE_QPN).
constexpr uint32_t rx_source_qpn(unsigned stream) { return 0x100 + stream; }

//! An RX stream descriptor as the host programs it (docs/register-map.md, RX block).
struct rx_descriptor {
    socket_address destination; //!< host NIC: IPv4 + UDP port
    uint32_t dest_qpn = 0;
    uint32_t start_psn = 0;
    uint32_t rkey = 0;
    uint64_t va = 0;
    uint64_t ring_bytes = 0;
    uint32_t payload_bytes = 0; //!< sample bytes per WRITE message
    uint32_t path_mtu = 4096;
    uint32_t notify_interval = 0; //!< every N-th message WITH IMMEDIATE; 0: only the last
    uint32_t rate_num = 0;
    uint32_t rate_den = 1;
    uint32_t transport = 0;         //!< regs::transport_type
    uint64_t retx_window_bytes = 0; //!< RC: sample bytes kept for retransmission
    uint64_t start_time_ns = 0;     //!< device time of sample 0; 0: now
    uint64_t num_samples = 0;       //!< 0: continuous
    uint32_t fifo_us = 30000;       //!< device FIFO depth: later samples overflow
    test_signal_config signal;
    impairment_config impairments;
};

//! Why \p d cannot be streamed over a link of \p link_mtu bytes (regs::error_code).
uint32_t validate(const rx_descriptor& d, unsigned link_mtu);

//! Samples the converter of \p d has produced \p t_ns after sample 0 was taken.
inline uint64_t samples_at(const rx_descriptor& d, int64_t t_ns)
{
    using u128 = unsigned __int128;
    if (t_ns <= 0)
        return 0;
    return static_cast<uint64_t>(u128(t_ns) * d.rate_num /
                                 (u128(d.rate_den) * 1000000000u));
}

//! Time (ns after sample 0) at which the converter of \p d has produced \p samples.
inline int64_t time_of(const rx_descriptor& d, uint64_t samples)
{
    using u128 = unsigned __int128;
    const u128 num = u128(samples) * d.rate_den * 1000000000u;
    return static_cast<int64_t>((num + d.rate_num - 1) / d.rate_num);
}

//! What an RX engine did in the current run (the RX block's counter registers).
struct rx_counters {
    uint64_t packets_sent = 0;
    uint64_t samples_emitted = 0; //!< samples of every message produced: sent or dropped
    uint64_t packets_dropped = 0; //!< lost before the wire (loss injection)
    uint64_t samples_dropped = 0;
    uint64_t imm_sent = 0;
    uint64_t packets_faulted =
        0; //!< sent with an injected fault (corrupt, bad key/address)
    uint64_t samples_faulted = 0;
    uint64_t packets_duplicated = 0;
    uint64_t messages_delayed = 0;
    uint64_t naks_received = 0;    //!< RC: NAKs of any kind (PSN sequence, RNR, fatal)
    uint64_t retransmits = 0;      //!< RC: packets sent again (zero-substituted included)
    uint64_t zero_substituted = 0; //!< RC: samples resent as zeros (window too small)
    uint64_t acks_received = 0;    //!< RC: well-formed ACK/NAKs for this stream
    uint64_t packets_abandoned = 0; //!< RC: given up on after the host stopped answering
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
