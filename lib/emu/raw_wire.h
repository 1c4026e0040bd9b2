/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RAW_WIRE_H
#define INCLUDED_RDMA_EMU_RAW_WIRE_H

#include "../util/file_descriptor.h"
#include "../util/udp_socket.h"
#include "wire.h"
#include <atomic>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * Sends complete IPv4/UDP/RoCEv2 frames through a raw IPv4 socket (IP_HDRINCL), as an
 * FPGA's network logic does: the wire writes the IPv4 header itself, so the ICRC is
 * computed over the real header and any RoCEv2 receiver accepts the frames (Linux rxe,
 * hardware NICs; docs/roce-wire.md section 7). Needs CAP_NET_RAW.
 *
 * Frames: IPv4 with DF, TTL 64, a non-zero IP ID that increments per frame (raw(7): the
 * kernel would replace an ID of 0, and the ICRC covers it), UDP source port constant
 * per link in 0xC000-0xFFFF, UDP checksum 0, destination port as the stream's
 * descriptor says (4791 for rxe and hardware). The kernel routes them by destination
 * and resolves the next hop's MAC (ARP), as for any IP packet.
 *
 * RoCEv2 coming back (RC ACK/NAK, READ responses) arrives on an ordinary UDP socket
 * bound to the link address and its RoCE port (4791); receive() drains it. That socket
 * hides the IPv4 header, whose IP ID the sender's ICRC covers (rxe picks a fresh one
 * per frame), so icrc_ok() cannot check it and accepts what parses.
 *
 * send() and receive() may be called from several threads (one RX engine per stream).
 */
class raw_wire : public wire
{
public:
    /*!
     * \param link        the link's IPv4 address (must be a local interface address)
     *                    and the UDP port it receives RoCEv2 on; port 0 means 4791
     * \param source_port UDP source port of the frames; 0 derives one in
     *                    0xC000-0xFFFF from the link address
     * Throws std::system_error naming CAP_NET_RAW when the raw socket is refused.
     */
    explicit raw_wire(const socket_address& link, uint16_t source_port = 0);

    //! Link address : RoCE receive port (4791): where a host's RC ACKs go.
    socket_address local_address() const override { return d_receive.local_address(); }
    unsigned mtu() const override { return d_mtu; }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override;

    uint16_t source_port() const override { return d_source_port; }
    //! Take up to \p count RoCEv2 datagrams (UDP payloads) that came back to the link,
    //! without blocking; returns how many.
    size_t receive(datagram* slots, size_t count) override
    {
        return d_receive.receive_batch(slots, count);
    }
    bool icrc_ok(const datagram& d) const override { return !d.truncated; }
    //! Readable when receive() has something (for poll()).
    int receive_fd() const { return d_receive.fd(); }

private:
    uint16_t next_ip_id();

    file_descriptor d_raw;
    udp_socket d_receive;
    uint16_t d_source_port;
    unsigned d_mtu;
    std::atomic<uint16_t> d_ip_id{ 0 };
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
