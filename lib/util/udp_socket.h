/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_UDP_SOCKET_H
#define INCLUDED_RDMA_UTIL_UDP_SOCKET_H

#include "file_descriptor.h"
#include "socket_address.h"
#include <gnuradio/rdma/transport_api.h>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

//! A datagram to send or a slot to receive one into (sendmmsg/recvmmsg batches).
struct datagram {
    uint8_t* data = nullptr;
    size_t capacity = 0;    //!< bytes available at data (receive)
    size_t length = 0;      //!< bytes to send / bytes received
    socket_address peer;    //!< destination (send) or source (receive)
    uint32_t local_ip = 0;  //!< receive: destination IPv4 of the datagram (host order)
    bool truncated = false; //!< receive: the datagram was longer than capacity
    //! receive, with GRO (udp_socket::enable_gro()): the buffer holds consecutive
    //! datagrams of this many bytes from one peer, the last possibly shorter; 0: one
    //! datagram. for_each_segment() walks them.
    size_t segment = 0;

    //! Whether the buffer holds several datagrams (GRO coalesced them).
    bool coalesced() const { return segment > 0 && segment < length; }
};

/*!
 * Calls \p f(data, length) for each datagram that the received buffer \p d holds: the
 * buffer itself, or with GRO its segments of d.segment bytes (the last may be
 * shorter). Never beyond d.length; an empty buffer is one empty datagram.
 */
template <typename F>
void for_each_segment(const datagram& d, F&& f)
{
    const size_t step = d.coalesced() ? d.segment : d.length;
    if (step == 0) {
        f(static_cast<const uint8_t*>(d.data), size_t(0));
        return;
    }
    for (size_t at = 0; at < d.length; at += step)
        f(static_cast<const uint8_t*>(d.data + at), std::min(step, d.length - at));
}

//! An IPv4 UDP socket with the few operations the transport needs.
class RDMA_TRANSPORT_API udp_socket
{
public:
    //! Create and bind; port 0 picks an ephemeral port (see local_address()).
    explicit udp_socket(const socket_address& bind_to);

    const socket_address& local_address() const { return d_local; }
    int fd() const { return d_fd.get(); }

    //! Ask for a receive buffer of \p bytes (SO_RCVBUFFORCE when permitted); returns
    //! what the kernel granted, which may be less (net.core.rmem_max).
    size_t request_receive_buffer(size_t bytes);
    size_t request_send_buffer(size_t bytes);

    void send_to(const uint8_t* data, size_t len, const socket_address& to);
    /*!
     * Send a batch; returns the number of datagrams sent (a full socket buffer
     * counts as not sent; errors other than EAGAIN/ENOBUFS/ECONNREFUSED throw).
     * Runs of datagrams of one length to one peer leave as one UDP_SEGMENT send when
     * the kernel offers segmentation: the receiver sees the same datagrams, and the
     * sender's stack runs once per run instead of once per datagram.
     */
    size_t send_batch(datagram* batch, size_t count);
    //! Sends that carried several datagrams (UDP segmentation), since construction.
    uint64_t segmented_sends() const { return d_segmented_sends; }

    /*!
     * Let the kernel coalesce datagrams of one flow into one receive (UDP_GRO, Linux
     * 5.0): a buffer then holds several datagrams (datagram::segment), which costs the
     * receiver one pass of the stack per buffer instead of per datagram. Receive slots
     * must then hold 65535 bytes. Returns false where the kernel does not offer it.
     */
    bool enable_gro();

    //! Wait up to \p timeout for one datagram; returns false on timeout.
    bool receive(datagram& slot, std::chrono::microseconds timeout);
    //! Receive up to \p count datagrams without blocking; returns how many arrived.
    size_t receive_batch(datagram* slots, size_t count);
    //! Block until readable, the \p wake_fd is readable, or timeout. True if the socket
    //! is readable.
    bool wait_readable(std::chrono::microseconds timeout, int wake_fd = -1) const;

private:
    //! Sends the groups of one sendmmsg; returns the datagrams sent.
    size_t send_groups(datagram* batch, size_t count, bool& all_sent);

    file_descriptor d_fd;
    socket_address d_local;
    bool d_segmentation; //!< the kernel knows UDP_SEGMENT and the route took it so far
    uint64_t d_segmented_sends = 0;
};

} // namespace rdma
} // namespace gr

#endif
