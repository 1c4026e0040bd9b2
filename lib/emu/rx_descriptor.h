/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RX_DESCRIPTOR_H
#define INCLUDED_RDMA_EMU_RX_DESCRIPTOR_H

#include "../regs/link_fields.h"
#include "../regs/register_fields.h"
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
//! The device QP that RX stream \p stream's destination \p d (< 8) sends from with RC
//! over several destinations (docs/links.md, "RC over several links"): destination 0's
//! is the stream's, so ACK/NAKs name their destination by QPN.
constexpr uint32_t rx_dest_source_qpn(unsigned stream, unsigned d)
{
    return d == 0 ? rx_source_qpn(stream) : 0x400 + stream * 8 + d;
}

/*!
 * An RX stream descriptor as the host programs it (regs::rx_descriptor, the registers
 * of the RX block the host shares with the device), and what the emulator adds: its
 * FIFO depth, its test signal and its impairments (the emulator extension block), and
 * the device's RF scene.
 * signal.format is the generator's copy of format: the register file sets both.
 */
struct rx_descriptor : regs::rx_descriptor {
    uint32_t fifo_us = 30000; //!< device FIFO depth: later samples overflow
    test_signal_config signal;
    impairment_config impairments;
    regs::scene_values scene; //!< the RF scene as START found it (EMU_SIGNAL 7)
    //! RX_FIRST_MESSAGE: message m of the run is numbered first_message + m (where it
    //! lands, its immediate data, the ramp's item); its metadata counts from sample 0.
    uint64_t first_message = 0;
    //! Queued mode (RX_NUM_SAMPLES all ones on a device with the burst queue): the run
    //! sends the bursts pushed to it. (A burst is then built as a run of its own, whose
    //! notifications count from its first message.)
    bool queued = false;
    bool notify_from_first = false;
    //! Map 1.5 (docs/register-map.md, "Several links"): the stream's destinations.
    //! Destination 0's address, QPN, PSN, rkey, VA and ring are the RX block's above
    //! (its entry here holds only its DST_LINK and DST_WEIGHT); destination d >= 1 is
    //! used when its QPN is non-zero.
    std::array<regs::destination_values, 8> destinations{};
    //! Several hosts (docs/register-map.md, "Shares"): RX_SHARES and RX_SHARE_BLOCK.
    unsigned shares = 1;
    uint32_t share_block = regs::default_share_block;
};

//! Packets an RX engine sends in one batch: room for two copies of a 64 KiB message in
//! 1 KiB packets (a duplicated message).
constexpr size_t max_batch_packets = 128;

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

//! Device time of sample \p k of a timeline taking sample 0 at \p anchor_ns at rate
//! \p num / \p den: rounded down to the ns (up with \p ceil).
inline uint64_t
time_at(uint64_t anchor_ns, uint64_t k, uint32_t num, uint32_t den, bool ceil = false)
{
    using u128 = unsigned __int128;
    const u128 ns = u128(k) * den * 1000000000u;
    return anchor_ns + static_cast<uint64_t>(ceil ? (ns + num - 1) / num : ns / num);
}

//! The first sample of that timeline taken at or after \p at_ns.
inline uint64_t
first_sample_at(uint64_t anchor_ns, uint64_t at_ns, uint32_t num, uint32_t den)
{
    using u128 = unsigned __int128;
    if (at_ns <= anchor_ns)
        return 0;
    const u128 scale = u128(den) * 1000000000u;
    return static_cast<uint64_t>((u128(at_ns - anchor_ns) * num + scale - 1) / scale);
}

//! What an RX engine did in the current run: the RX block's counter registers
//! (regs::rx_counters) and what only the emulator counts.
struct rx_counters : regs::rx_counters {
    uint64_t acks_received = 0;     //!< RC: well-formed ACK/NAKs for this stream
    uint64_t packets_abandoned = 0; //!< RC: given up on after the host stopped answering
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
