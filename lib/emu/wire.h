/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_WIRE_H
#define INCLUDED_RDMA_EMU_WIRE_H

#include "../roce/roce_packet.h"
#include "../util/socket_address.h"
#include "../util/udp_socket.h"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * A RoCEv2 packet the device is about to send: the UDP payload (BTH .. ICRC slot) at
 * \p udp_payload, with wire::headroom bytes free in front of it so that a raw-frame
 * wire can put the IPv4 and UDP headers there without moving the packet.
 */
struct outgoing_packet {
    uint8_t* udp_payload = nullptr;
    size_t length = 0; //!< UDP payload bytes, ICRC included
    //! Fault injection: flip bit 0 of the UDP payload byte at this offset after sealing
    //! (the ICRC no longer matches); negative: none. Every wire must honour it.
    int32_t flip_after_seal = -1;
    bool sealed = false; //!< set by the wire: a packet offered again is not re-sealed
    bool roce = true;    //!< false: a plain UDP datagram, no ICRC to seal
    bool ends_message = true; //!< the last packet of its message
    bool immediate = false;   //!< carries immediate data (a notification)
    bool ack_req = false;     //!< RC: carries AckReq, the host answers with an ACK
    //! Samples of the message it belongs to, on its last packet (0 on the others and on
    //! extra copies): what an emulated link that cuts the message counts lost.
    uint32_t message_samples = 0;
    //! The stream's destination it goes to (docs/register-map.md, "Several links"): the
    //! engine's routing, which wires do not look at.
    uint8_t destination = 0;
};

//! Apply outgoing_packet::flip_after_seal and mark the packet sealed; wires call it
//! right after computing the ICRC, once per packet.
inline void finish_seal(outgoing_packet& p)
{
    if (p.flip_after_seal >= 0 && static_cast<size_t>(p.flip_after_seal) < p.length)
        p.udp_payload[p.flip_after_seal] ^= 0x01;
    p.sealed = true;
}

/*!
 * The device's network port: seals packets (the ICRC depends on how the frame is
 * carried) and puts them on the network, and takes what comes back to its RoCEv2 port
 * (RC ACK/NAKs; ack_receiver sorts them). One per link.
 */
class wire
{
public:
    static constexpr size_t headroom = roce::ipv4_header_bytes + roce::udp_header_bytes;

    virtual ~wire() = default;
    //! Source IPv4 address and UDP port of the frames; where RC ACKs come back.
    virtual socket_address local_address() const = 0;
    //! UDP source port of the frames (constant per link).
    virtual uint16_t source_port() const { return local_address().port(); }
    //! IP MTU of the link in bytes: frames never exceed it.
    virtual unsigned mtu() const = 0;
    //! Seal and send \p count packets to \p to. Returns how many left; the rest met a
    //! full transmit queue and should be offered again.
    virtual size_t
    send(outgoing_packet* batch, size_t count, const socket_address& to) = 0;
    //! Take up to \p count RoCEv2 UDP payloads that came back to the link, without
    //! blocking; returns how many. The same port local_address() names. A wire that
    //! hears nothing back returns 0: RC then never learns of an ACK.
    virtual size_t receive(datagram* /*slots*/, size_t /*count*/) { return 0; }
    //! Whether the ICRC of \p d, a datagram receive() returned, is right. A wire that
    //! cannot see the IPv4 header the ICRC covers accepts every datagram.
    virtual bool icrc_ok(const datagram& d) const { return !d.truncated; }
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
