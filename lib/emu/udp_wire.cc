/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "udp_wire.h"
#include "../util/net_interface.h"

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
    : d_socket(bind_to), d_mtu(link_mtu(d_socket.local_address())), d_datagrams(max_batch)
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
        for (size_t i = 0; i < n; i++) {
            outgoing_packet& p = batch[sent + i];
            if (!p.sealed) {
                if (p.roce)
                    roce::seal_udp(ip, p.udp_payload, p.length);
                finish_seal(p);
            }
            d_datagrams[i].data = p.udp_payload;
            d_datagrams[i].length = p.length;
            d_datagrams[i].peer = to;
        }
        const size_t done = d_socket.send_batch(d_datagrams.data(), n);
        sent += done;
        if (done < n)
            break;
    }
    return sent;
}

} // namespace emu
} // namespace rdma
} // namespace gr
