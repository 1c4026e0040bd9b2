/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_UDP_SAMPLE_BUILDER_H
#define INCLUDED_RDMA_EMU_UDP_SAMPLE_BUILDER_H

#include "packetizer.h"
#include "rx_descriptor.h"
#include "sample_source.h"
#include "wire.h"
#include <memory>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The socket baseline (RX_TRANSPORT = 2, docs/register-map.md): what today's
 * Ethernet SDRs send. Message m is one plain UDP datagram, an 8-byte big-endian
 * sequence number (m) followed by the samples [m*spm, (m+1)*spm) (the last of a burst
 * fewer). No RoCE headers, no ICRC, no immediate data; the destination QPN, rkey, VA
 * and ring size are ignored, and so is the path MTU: a datagram carries the whole
 * payload (the link MTU bounds it). A message lost before the wire leaves a hole in the
 * sequence numbers, which is how a receiver sees it.
 *
 * Impairments: drop, duplicate and delay apply as for RoCE; corrupt_icrc and
 * corrupt_payload flip a payload bit (nothing on the wire can tell); bad_rkey and
 * bad_va have no meaning here and send the message unaltered.
 */
class udp_sample_builder : public packetizer
{
public:
    static constexpr size_t header_bytes = 8;

    //! Datagrams of \p d's samples from \p source (null: \p d's test signal).
    explicit udp_sample_builder(const rx_descriptor& d,
                                const sample_source* source = nullptr);

    //! Bytes a packet slot needs for \p payload_bytes of samples (headroom included).
    static size_t slot_bytes_for(uint32_t payload_bytes);
    //! Whether a datagram of \p d's payload fits a link of \p link_mtu bytes (IP MTU).
    static bool fits(const rx_descriptor& d, unsigned link_mtu);

    uint64_t samples_per_message() const override { return d_spm; }
    uint64_t total_messages() const override;
    uint64_t samples_in(uint64_t message) const override;
    size_t packets_in(uint64_t message) const override
    {
        return samples_in(message) ? 1 : 0;
    }
    size_t build(uint64_t message,
                 uint32_t fault,
                 uint8_t* slots,
                 size_t slot_bytes,
                 outgoing_packet* out) override;
    void skip(uint64_t) override {} // the sequence number is the message number
    void end_at(uint64_t samples) override { d_end = samples; }

private:
    uint64_t d_end; // samples of the run: RX_NUM_SAMPLES, or UINT64_MAX (continuous)
    std::unique_ptr<sample_source> d_own_source; // without one given
    const sample_source* const d_source;
    const size_t d_item;
    const uint64_t d_spm;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
