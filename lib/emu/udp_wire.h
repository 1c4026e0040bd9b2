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
 * (IP ID 0, DF) that the soft NIC rebuilds on receipt (docs/roce-wire.md).
 */
class udp_wire : public wire
{
public:
    explicit udp_wire(const socket_address& bind_to);

    socket_address local_address() const override { return d_socket.local_address(); }
    unsigned mtu() const override { return d_mtu; }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override;

private:
    udp_socket d_socket;
    unsigned d_mtu;
    std::vector<datagram> d_datagrams;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
