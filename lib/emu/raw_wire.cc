/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "../util/net_interface.h"
#include "raw_wire.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <system_error>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr size_t max_batch = 64;
constexpr uint8_t frame_ttl = 64;

file_descriptor open_raw_socket()
{
    // IPPROTO_RAW implies IP_HDRINCL: we write the IPv4 header, the kernel only fills
    // in what raw(7) says it always does (total length, checksum), both already right.
    file_descriptor fd(
        ::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_RAW));
    if (!fd) {
        const int err = errno;
        if (err == EPERM || err == EACCES)
            throw std::system_error(err,
                                    std::generic_category(),
                                    "raw wire: sending RoCEv2 frames needs CAP_NET_RAW "
                                    "(run as root or setcap cap_net_raw+ep gr-rdma-emu)");
        throw_errno("socket(AF_INET, SOCK_RAW, IPPROTO_RAW)", err);
    }
    // A deep send queue absorbs a batch; beyond it send() reports a full queue and the
    // RX engine backs off.
    const int want = 8 << 20;
    if (::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want)) != 0)
        ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
    return fd;
}

socket_address receive_address(const socket_address& link)
{
    if (link.ip() == 0)
        throw std::invalid_argument(
            "raw wire: the link needs a specific IPv4 address (the "
            "frames' source address), not 0.0.0.0");
    return link.port() ? link : link.with_port(roce::udp_port);
}

// Linux folds a flow label into 14 bits above 0xC000 (rdma_flow_label_to_udp_sport);
// any fixed value in that range keeps a link's frames on one ECMP path.
uint16_t derive_source_port(uint32_t ip)
{
    return static_cast<uint16_t>(0xC000 | ((ip ^ (ip >> 14) ^ (ip >> 28)) & 0x3FFF));
}

unsigned link_mtu(uint32_t ip)
{
    const auto nif = find_interface_by_ip(ip);
    if (!nif || nif->mtu == 0)
        throw std::invalid_argument("raw wire: no local interface holds " +
                                    socket_address(ip, 0).ip_string() +
                                    "; the link address must be one of this host's");
    return nif->mtu;
}

// sendmmsg errors after which the frame counts as sent and lost, as on a cable:
// nothing on this link can deliver it, offering it again would stall the stream.
bool lost_on_the_wire(int err)
{
    return err == EHOSTUNREACH || err == ENETUNREACH || err == EHOSTDOWN ||
           err == ENETDOWN;
}

} // namespace

raw_wire::raw_wire(const socket_address& link, uint16_t source_port)
    : d_raw(open_raw_socket()),
      d_receive(receive_address(link)),
      d_source_port(source_port ? source_port : derive_source_port(link.ip())),
      d_mtu(link_mtu(link.ip()))
{
    d_receive.request_receive_buffer(1u << 20);
}

uint16_t raw_wire::next_ip_id()
{
    // Non-zero: raw(7) has the kernel replace an ID of 0, which the ICRC covers.
    uint16_t id;
    do
        id = static_cast<uint16_t>(d_ip_id.fetch_add(1, std::memory_order_relaxed) + 1);
    while (id == 0);
    return id;
}

size_t raw_wire::send(outgoing_packet* batch, size_t count, const socket_address& to)
{
    roce::ip_context ip;
    ip.src_ip = d_receive.local_address().ip();
    ip.src_port = d_source_port;
    ip.dst_ip = to.ip();
    ip.dst_port = to.port();
    ip.dont_fragment = true;
    // With IPPROTO_RAW the kernel routes by the header's destination; the port is unused.
    const socket_address next_hop(to.ip(), 0);

    size_t sent = 0;
    while (sent < count) {
        const size_t n = std::min(count - sent, max_batch);
        mmsghdr msgs[max_batch];
        iovec iov[max_batch];
        for (size_t i = 0; i < n; i++) {
            outgoing_packet& p = batch[sent + i];
            uint8_t* frame = p.udp_payload - headroom;
            if (!p.sealed) {
                // Once per packet: a packet offered again keeps its IP ID and ICRC.
                ip.ip_id = next_ip_id();
                roce::write_ipv4_udp(frame, ip, p.length, 0, frame_ttl);
                if (p.roce)
                    roce::seal_frame(frame, headroom + p.length);
                finish_seal(p);
            }
            iov[i] = { frame, headroom + p.length };
            msgs[i] = {};
            msgs[i].msg_hdr.msg_name = const_cast<sockaddr_in*>(&next_hop.native());
            msgs[i].msg_hdr.msg_namelen = sizeof(sockaddr_in);
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        const int r = ::sendmmsg(d_raw.get(), msgs, static_cast<unsigned>(n), 0);
        if (r < 0) {
            const int err = errno;
            if (err == EAGAIN || err == ENOBUFS || err == EINTR)
                return sent; // queue full: the caller offers the rest again
            if (lost_on_the_wire(err)) {
                sent += 1;
                continue;
            }
            if (err == EMSGSIZE)
                throw_errno("raw wire: a " + std::to_string(iov[0].iov_len) +
                                "-byte frame to " + to.ip_string() +
                                " exceeds the route's MTU",
                            err);
            throw_errno("raw wire: sendmmsg to " + to.ip_string(), err);
        }
        sent += static_cast<size_t>(r);
        if (static_cast<size_t>(r) < n) {
            // sendmmsg stops at the first frame that fails; find out why on the next
            // round (a full queue returns, anything else is handled above).
            continue;
        }
    }
    return sent;
}

} // namespace emu
} // namespace rdma
} // namespace gr
