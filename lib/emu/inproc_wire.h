/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_INPROC_WIRE_H
#define INCLUDED_RDMA_EMU_INPROC_WIRE_H

#include "../wire/frame_queue.h"
#include "udp_wire.h"
#include "wire.h"
#include <atomic>
#include <memory>
#include <mutex>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * Hands RoCEv2 frames to a soft NIC in the same process, without the kernel: the
 * benchmark's way to see the GNU Radio side of the transport apart from the cost of
 * loopback UDP (docs/performance.md). Packets are sealed exactly as udp_wire seals
 * them (ICRC over the canonical header of a datagram from local_address() to the
 * destination) and copied into the NIC's frame queue (wire::frame_queue), which
 * the NIC's own "nic-rx" thread drains through the same responder path as datagrams:
 * the NIC's work stays charged to the NIC.
 *
 * Only a soft NIC of this process can be reached (device args type=emu,wire=inproc);
 * frames for any other address are lost, as on a link to nowhere. A full frame queue
 * is a full transmit queue: send() takes what fits and the engine offers the rest
 * again. Packets coming back (RC ACK/NAKs) still travel by UDP: the wire keeps a
 * udp_wire on its link address for them.
 */
class inproc_wire : public wire
{
public:
    explicit inproc_wire(const socket_address& bind_to);

    socket_address local_address() const override { return d_return.local_address(); }
    unsigned mtu() const override { return d_return.mtu(); }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override;
    size_t receive(datagram* slots, size_t count) override
    {
        return d_return.receive(slots, count);
    }
    bool icrc_ok(const datagram& d) const override { return d_return.icrc_ok(d); }

    //! Frames sent to an address where no soft NIC of this process listens.
    uint64_t frames_lost() const { return d_lost; }

private:
    std::shared_ptr<rdma::wire::frame_queue> queue_for(const socket_address& to);

    udp_wire d_return;
    std::mutex d_mutex;    // send() may be called by several RX engines
    socket_address d_peer; // guarded by d_mutex
    std::shared_ptr<rdma::wire::frame_queue> d_queue; // guarded by d_mutex: d_peer's
    std::atomic<uint64_t> d_lost{ 0 };
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
