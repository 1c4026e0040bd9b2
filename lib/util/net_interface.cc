/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "errors.h"
#include "file_descriptor.h"
#include "net_interface.h"
#include "socket_address.h"
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <cstring>
#include <functional>

namespace gr {
namespace rdma {

namespace {

void fill_link_details(net_interface& nif)
{
    nif.index = if_nametoindex(nif.name.c_str());
    file_descriptor sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock)
        return;
    ifreq req{};
    std::strncpy(req.ifr_name, nif.name.c_str(), IFNAMSIZ - 1);
    if (::ioctl(sock.get(), SIOCGIFMTU, &req) == 0)
        nif.mtu = static_cast<unsigned>(req.ifr_mtu);
    if (::ioctl(sock.get(), SIOCGIFHWADDR, &req) == 0)
        std::memcpy(nif.mac.data(), req.ifr_hwaddr.sa_data, nif.mac.size());
}

std::optional<net_interface>
find_interface(const std::function<bool(const ifaddrs&)>& match)
{
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0)
        return std::nullopt;
    std::optional<net_interface> found;
    for (ifaddrs* a = list; a; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !match(*a))
            continue;
        net_interface nif;
        nif.name = a->ifa_name;
        nif.ipv4 =
            ntohl(reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr);
        fill_link_details(nif);
        found = nif;
        break;
    }
    freeifaddrs(list);
    return found;
}

} // namespace

std::optional<net_interface> find_interface_by_ip(uint32_t ip)
{
    return find_interface([ip](const ifaddrs& a) {
        return ntohl(reinterpret_cast<const sockaddr_in*>(a.ifa_addr)->sin_addr.s_addr) ==
               ip;
    });
}

uint32_t route_source_ip(uint32_t dest_ip)
{
    // Connecting a UDP socket sends nothing but makes the kernel choose the route.
    file_descriptor sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock)
        throw_errno("socket");
    const socket_address dest(dest_ip, 9);
    if (::connect(sock.get(),
                  reinterpret_cast<const sockaddr*>(&dest.native()),
                  sizeof(sockaddr_in)) != 0)
        throw_errno("no route to " + dest.ip_string());
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0)
        throw_errno("getsockname");
    return ntohl(local.sin_addr.s_addr);
}

} // namespace rdma
} // namespace gr
