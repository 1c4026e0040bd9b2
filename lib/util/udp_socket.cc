/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "errors.h"
#include "poll_wait.h"
#include "udp_socket.h"
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {

namespace {
constexpr size_t max_batch = 64;
// The kernel's limits for one segmented send (UDP_MAX_SEGMENTS; one IPv4 datagram's
// payload).
constexpr size_t max_segments = 64;
constexpr size_t max_segmented_bytes = 65507;

// Kernels before 4.18 do not know UDP_SEGMENT, and would send a segmented batch as
// one long datagram: ask before using it.
bool kernel_segments(int fd)
{
    const int off = 0;
    return ::setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &off, sizeof(off)) == 0;
}
} // namespace

udp_socket::udp_socket(const socket_address& bind_to)
    : d_fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0))
{
    if (!d_fd)
        throw_errno("socket(AF_INET, SOCK_DGRAM)");
    d_segmentation = kernel_segments(d_fd.get());
    const int on = 1;
    if (::setsockopt(d_fd.get(), IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) != 0)
        throw_errno("setsockopt(IP_PKTINFO)");
    if (::bind(d_fd.get(),
               reinterpret_cast<const sockaddr*>(&bind_to.native()),
               sizeof(sockaddr_in)) != 0)
        throw_errno("bind UDP socket to " + bind_to.to_string());
    sockaddr_in sa{};
    socklen_t len = sizeof(sa);
    if (::getsockname(d_fd.get(), reinterpret_cast<sockaddr*>(&sa), &len) != 0)
        throw_errno("getsockname");
    d_local = socket_address(sa);
}

size_t udp_socket::request_receive_buffer(size_t bytes)
{
    const int want = static_cast<int>(std::min<size_t>(bytes, 1u << 30));
    // SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped at net.core.rmem_max.
    if (::setsockopt(d_fd.get(), SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) != 0)
        ::setsockopt(d_fd.get(), SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
    int got = 0;
    socklen_t len = sizeof(got);
    ::getsockopt(d_fd.get(), SOL_SOCKET, SO_RCVBUF, &got, &len);
    return static_cast<size_t>(got) / 2; // the kernel reports twice the usable size
}

size_t udp_socket::request_send_buffer(size_t bytes)
{
    const int want = static_cast<int>(std::min<size_t>(bytes, 1u << 30));
    if (::setsockopt(d_fd.get(), SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want)) != 0)
        ::setsockopt(d_fd.get(), SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
    int got = 0;
    socklen_t len = sizeof(got);
    ::getsockopt(d_fd.get(), SOL_SOCKET, SO_SNDBUF, &got, &len);
    return static_cast<size_t>(got) / 2;
}

void udp_socket::send_to(const uint8_t* data, size_t len, const socket_address& to)
{
    const ssize_t n = ::sendto(d_fd.get(),
                               data,
                               len,
                               0,
                               reinterpret_cast<const sockaddr*>(&to.native()),
                               sizeof(sockaddr_in));
    if (n < 0 && errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED)
        throw_errno("sendto " + to.to_string());
}

size_t udp_socket::send_batch(datagram* batch, size_t count)
{
    size_t sent = 0;
    bool all_sent = true;
    while (sent < count && all_sent)
        sent += send_groups(batch + sent, count - sent, all_sent);
    return sent;
}

size_t udp_socket::send_groups(datagram* batch, size_t count, bool& all_sent)
{
    mmsghdr msgs[max_batch];
    iovec iov[max_batch];
    alignas(cmsghdr) char control[max_batch][CMSG_SPACE(sizeof(uint16_t))];
    size_t group_size[max_batch];
    const size_t limit = std::min(count, max_batch); // iov has max_batch entries
    size_t groups = 0, taken = 0;
    while (taken < limit) {
        // A group: datagrams of one length to one peer (the last may be shorter), as
        // many as one segmented send carries.
        const datagram& head = batch[taken];
        size_t n = 1, bytes = head.length;
        while (d_segmentation && taken + n < limit && n < max_segments &&
               batch[taken + n].peer == head.peer &&
               batch[taken + n].length <= head.length &&
               bytes + batch[taken + n].length <= max_segmented_bytes) {
            bytes += batch[taken + n].length;
            if (batch[taken + n++].length < head.length)
                break; // a shorter one ends the group
        }
        for (size_t i = 0; i < n; i++)
            iov[taken + i] = { batch[taken + i].data, batch[taken + i].length };
        mmsghdr& m = msgs[groups];
        m = {};
        m.msg_hdr.msg_name = const_cast<sockaddr_in*>(&head.peer.native());
        m.msg_hdr.msg_namelen = sizeof(sockaddr_in);
        m.msg_hdr.msg_iov = &iov[taken];
        m.msg_hdr.msg_iovlen = n;
        if (n > 1) {
            m.msg_hdr.msg_control = control[groups];
            m.msg_hdr.msg_controllen = sizeof(control[groups]);
            cmsghdr* c = CMSG_FIRSTHDR(&m.msg_hdr);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            const uint16_t segment = static_cast<uint16_t>(head.length);
            std::memcpy(CMSG_DATA(c), &segment, sizeof(segment));
        }
        group_size[groups++] = n;
        taken += n;
    }
    const int r = ::sendmmsg(d_fd.get(), msgs, static_cast<unsigned>(groups), 0);
    if (r < 0) {
        const int err = errno;
        if (err == EAGAIN || err == ENOBUFS || err == ECONNREFUSED) {
            all_sent = false;
            return 0;
        }
        if (d_segmentation && group_size[0] > 1 && (err == EINVAL || err == EIO)) {
            // The route cannot segment (a datagram longer than its MTU, a device
            // without the offload): send datagram by datagram from now on.
            d_segmentation = false;
            return 0;
        }
        throw_errno("sendmmsg");
    }
    // Sent in part: the caller tries the rest, which then says why it failed.
    size_t sent = 0;
    for (int g = 0; g < r; g++) {
        sent += group_size[g];
        d_segmented_sends += group_size[g] > 1;
    }
    return sent;
}

bool udp_socket::enable_gro()
{
    const int on = 1;
    return ::setsockopt(d_fd.get(), IPPROTO_UDP, UDP_GRO, &on, sizeof(on)) == 0;
}

bool udp_socket::wait_readable(std::chrono::microseconds timeout, int wake_fd) const
{
    pollfd fds[2] = { { d_fd.get(), POLLIN, 0 }, { wake_fd, POLLIN, 0 } };
    const int r = poll_wait(fds, wake_fd >= 0 ? 2 : 1, timeout);
    return r > 0 && (fds[0].revents & POLLIN);
}

bool udp_socket::receive(datagram& slot, std::chrono::microseconds timeout)
{
    if (receive_batch(&slot, 1) == 1)
        return true;
    if (!wait_readable(timeout))
        return false;
    return receive_batch(&slot, 1) == 1;
}

size_t udp_socket::receive_batch(datagram* slots, size_t count)
{
    size_t total = 0;
    while (total < count) {
        const size_t n = std::min(count - total, max_batch);
        mmsghdr msgs[max_batch];
        iovec iov[max_batch];
        alignas(cmsghdr) char
            control[max_batch][CMSG_SPACE(sizeof(in_pktinfo)) + CMSG_SPACE(sizeof(int))];
        for (size_t i = 0; i < n; i++) {
            datagram& d = slots[total + i];
            iov[i] = { d.data, d.capacity };
            msgs[i] = {};
            msgs[i].msg_hdr.msg_name = &d.peer.native();
            msgs[i].msg_hdr.msg_namelen = sizeof(sockaddr_in);
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_control = control[i];
            msgs[i].msg_hdr.msg_controllen = sizeof(control[i]);
        }
        const int r = ::recvmmsg(d_fd.get(), msgs, n, MSG_DONTWAIT, nullptr);
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)
                return total;
            throw_errno("recvmmsg");
        }
        for (int i = 0; i < r; i++) {
            datagram& d = slots[total + i];
            // A datagram longer than the slot arrives cut short; flag it so that the
            // receiver drops it instead of parsing a partial packet.
            d.truncated = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
            d.length = std::min<size_t>(msgs[i].msg_len, d.capacity);
            d.local_ip = 0;
            d.segment = 0;
            for (cmsghdr* c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c;
                 c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
                if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
                    in_pktinfo info;
                    std::memcpy(&info, CMSG_DATA(c), sizeof(info));
                    d.local_ip = ntohl(info.ipi_addr.s_addr);
                } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                    int segment = 0;
                    std::memcpy(&segment, CMSG_DATA(c), sizeof(segment));
                    d.segment = segment > 0 ? static_cast<size_t>(segment) : 0;
                }
            }
        }
        total += static_cast<size_t>(r);
        if (static_cast<size_t>(r) < n)
            break;
    }
    return total;
}

} // namespace rdma
} // namespace gr
