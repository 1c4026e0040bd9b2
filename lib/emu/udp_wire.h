/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_UDP_WIRE_H
#define INCLUDED_RDMA_EMU_UDP_WIRE_H

#include "../util/udp_socket.h"
#include "wire.h"
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * Sends RoCEv2 UDP payloads through an ordinary UDP socket, for the soft NIC. The
 * kernel writes the IPv4 header, so the ICRC is computed over the canonical header
 * (IP ID 0, DF) that the soft NIC rebuilds on receipt (docs/roce-wire.md). RC ACK/NAKs
 * come back to the same socket (the soft NIC answers the address requests came from)
 * and are checked against the same canonical header.
 */
class udp_wire : public wire
{
public:
    explicit udp_wire(const socket_address& bind_to);

    socket_address local_address() const override { return d_socket.local_address(); }
    unsigned mtu() const override { return d_mtu; }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override;
    size_t receive(datagram* slots, size_t count) override;
    bool icrc_ok(const datagram& d) const override;

private:
    udp_socket d_socket;
    unsigned d_mtu;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
