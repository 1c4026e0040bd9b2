/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "metadata_receiver.h"
#include "../util/host_time.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <cstring>
#include <ctime>

namespace gr {
namespace rdma {

metadata_receiver::metadata_receiver(const socket_address& bind_to, uint32_t device_ip)
    : d_socket(bind_to), d_device_ip(device_ip)
{
    // The kernel's arrival time, not the time the host got round to reading: the clock
    // refinement bounds the device clock with it (docs/metadata.md).
    const int on = 1;
    ::setsockopt(d_socket.fd(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
}

namespace {

// When the kernel took the datagram in (SO_TIMESTAMPNS), else \p fallback.
int64_t kernel_arrival_ns(const msghdr& h, int64_t fallback)
{
    for (const cmsghdr* c = CMSG_FIRSTHDR(&h); c;
         c = CMSG_NXTHDR(const_cast<msghdr*>(&h), const_cast<cmsghdr*>(c))) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            timespec ts;
            std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            return static_cast<int64_t>(ts.tv_sec) * 1000000000ll + ts.tv_nsec;
        }
    }
    return fallback;
}

} // namespace

size_t metadata_receiver::poll()
{
    constexpr size_t control_bytes =
        CMSG_SPACE(sizeof(in_pktinfo)) + CMSG_SPACE(sizeof(timespec));
    mmsghdr msgs[max_records];
    iovec iov[max_records];
    sockaddr_in from[max_records];
    alignas(cmsghdr) char control[max_records][control_bytes];
    for (size_t i = 0; i < max_records; i++) {
        iov[i] = { d_buffers[i].data(), d_buffers[i].size() };
        msgs[i] = {};
        msgs[i].msg_hdr.msg_name = &from[i];
        msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_control = control[i];
        msgs[i].msg_hdr.msg_controllen = control_bytes;
    }
    const int r = ::recvmmsg(d_socket.fd(), msgs, max_records, MSG_DONTWAIT, nullptr);
    d_last_datagrams = 0;
    if (r < 0) {
        if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)
            return 0;
        throw_errno("recvmmsg (metadata)");
    }
    d_last_datagrams = static_cast<size_t>(r);
    const int64_t read_ns = host_time_ns();
    size_t accepted = 0;
    for (int i = 0; i < r; i++) {
        const msghdr& h = msgs[i].msg_hdr;
        const size_t length =
            (h.msg_flags & MSG_TRUNC) ? d_buffers[i].size() + 1 : msgs[i].msg_len;
        received_record& out = d_records[accepted];
        if ((d_device_ip && ntohl(from[i].sin_addr.s_addr) != d_device_ip) ||
            (d_device_port && ntohs(from[i].sin_port) != d_device_port) ||
            meta::parse(d_buffers[i].data(), length, out.record) !=
                meta::parse_status::ok) {
            d_counts.bad++;
            continue;
        }
        if (d_sequence.on_packet(out.record.sequence) ==
            meta::sequence_counter::verdict::duplicate) {
            d_counts.duplicates++;
            continue;
        }
        out.arrival_ns = kernel_arrival_ns(h, read_ns);
        d_counts.packets++;
        accepted++;
    }
    d_counts.lost = d_sequence.lost();
    d_counts.resyncs = d_sequence.resyncs();
    return accepted;
}

void metadata_receiver::discard()
{
    do
        poll();
    while (d_last_datagrams == max_records);
}

} // namespace rdma
} // namespace gr
