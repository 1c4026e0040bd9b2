/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inproc_wire.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {
constexpr size_t max_batch = 64;
} // namespace

inproc_wire::inproc_wire(const socket_address& bind_to) : d_return(bind_to) {}

std::shared_ptr<rdma::wire::frame_queue> inproc_wire::queue_for(const socket_address& to)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_queue || d_queue->closed() || d_peer != to) {
        d_queue = rdma::wire::frame_queue::find(to);
        d_peer = to;
    }
    return d_queue;
}

size_t inproc_wire::send(outgoing_packet* batch, size_t count, const socket_address& to)
{
    const std::shared_ptr<rdma::wire::frame_queue> queue = queue_for(to);
    rdma::wire::inproc_frame frames[max_batch];
    const socket_address from = d_return.local_address();
    roce::ip_context ip;
    ip.src_ip = from.ip();
    ip.src_port = from.port();
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
            frames[i] = { p.udp_payload, p.length, from, to };
        }
        if (!queue) {
            d_lost += n;
            sent += n;
            continue;
        }
        const size_t done = queue->push(frames, n);
        sent += done;
        if (done < n)
            break;
    }
    return sent;
}

} // namespace emu
} // namespace rdma
} // namespace gr
