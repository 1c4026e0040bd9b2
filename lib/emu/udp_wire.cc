/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/net_interface.h"
#include "udp_wire.h"

namespace gr {
namespace rdma {
namespace emu {

namespace {
constexpr size_t max_batch = 64;
constexpr unsigned fallback_mtu = 1500;

unsigned link_mtu(const socket_address& local)
{
    const auto nif = find_interface_by_ip(local.ip());
    return nif && nif->mtu ? nif->mtu : fallback_mtu;
}
} // namespace

udp_wire::udp_wire(const socket_address& bind_to)
    : d_socket(bind_to), d_mtu(link_mtu(d_socket.local_address()))
{
    d_socket.request_send_buffer(8u << 20);
}

size_t udp_wire::send(outgoing_packet* batch, size_t count, const socket_address& to)
{
    roce::ip_context ip;
    ip.src_ip = d_socket.local_address().ip();
    ip.src_port = d_socket.local_address().port();
    ip.dst_ip = to.ip();
    ip.dst_port = to.port();
    size_t sent = 0;
    while (sent < count) {
        const size_t n = std::min(count - sent, max_batch);
        // On the stack: several RX engines send through one wire at once.
        datagram datagrams[max_batch];
        for (size_t i = 0; i < n; i++) {
            outgoing_packet& p = batch[sent + i];
            if (!p.sealed) {
                if (p.roce)
                    roce::seal_udp(ip, p.udp_payload, p.length);
                finish_seal(p);
            }
            datagrams[i].data = p.udp_payload;
            datagrams[i].length = p.length;
            datagrams[i].peer = to;
        }
        const size_t done = d_socket.send_batch(datagrams, n);
        sent += done;
        if (done < n)
            break;
    }
    return sent;
}

size_t udp_wire::receive(datagram* slots, size_t count)
{
    return d_socket.receive_batch(slots, count);
}

bool udp_wire::icrc_ok(const datagram& d) const
{
    if (d.truncated || d.length < roce::bth_bytes + roce::icrc_bytes)
        return false;
    // The sender sealed it for the canonical header of its datagram: from its address
    // to the address it arrived on (the bound one, or IP_PKTINFO's when bound to any).
    roce::ip_context ip;
    ip.src_ip = d.peer.ip();
    ip.src_port = d.peer.port();
    ip.dst_ip = d.local_ip ? d.local_ip : d_socket.local_address().ip();
    ip.dst_port = d_socket.local_address().port();
    return roce::compute_icrc(ip, d.data, d.length - roce::icrc_bytes) ==
           roce::load_icrc(d.data + d.length - roce::icrc_bytes);
}

} // namespace emu
} // namespace rdma
} // namespace gr
