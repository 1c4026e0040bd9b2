/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "parse_number.h"
#include "socket_address.h"
#include <arpa/inet.h>
#include <netdb.h>
#include <memory>
#include <stdexcept>

namespace gr {
namespace rdma {

socket_address::socket_address(uint32_t ip_host_order, uint16_t port)
{
    d_sa.sin_family = AF_INET;
    d_sa.sin_addr.s_addr = htonl(ip_host_order);
    d_sa.sin_port = htons(port);
}

socket_address socket_address::parse(const std::string& text, uint16_t default_port)
{
    std::string host = text;
    unsigned long port = default_port;
    const auto colon = text.rfind(':');
    if (colon != std::string::npos) {
        host = text.substr(0, colon);
        const auto number = parse_uint(text.substr(colon + 1));
        if (!number || *number > 65535) {
            throw std::invalid_argument("invalid UDP port in address '" + text +
                                        "': expected a.b.c.d:port with port 0..65535");
        }
        port = static_cast<unsigned long>(*number);
    }
    in_addr addr{};
    if (inet_pton(AF_INET, host.c_str(), &addr) != 1) {
        throw std::invalid_argument("invalid IPv4 address '" + text +
                                    "': expected dotted quad such as 127.0.0.1");
    }
    return socket_address(ntohl(addr.s_addr), static_cast<uint16_t>(port));
}

socket_address socket_address::resolve(const std::string& text, uint16_t default_port)
{
    const auto colon = text.rfind(':');
    const std::string host = text.substr(0, colon);
    in_addr literal{};
    if (host.empty() || inet_pton(AF_INET, host.c_str(), &literal) == 1)
        return parse(text, default_port); // a dotted quad (or nothing): no lookup
    // The port is checked first, so that a bad one is named rather than a lookup made.
    const uint16_t port =
        parse("0.0.0.0" + text.substr(host.size()), default_port).port();
    addrinfo hints{};
    hints.ai_family = AF_INET; // the transport speaks IPv4 only
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* found = nullptr;
    const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (rc != 0 || found == nullptr)
        throw std::invalid_argument(
            "host name '" + host + "' does not resolve to an IPv4 address (" +
            (rc == EAI_SYSTEM ? std::string("system error") : gai_strerror(rc)) + ")");
    const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, freeaddrinfo);
    const auto* sa = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
    return socket_address(ntohl(sa->sin_addr.s_addr), port);
}

std::string socket_address::ip_string() const
{
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &d_sa.sin_addr, buf, sizeof(buf));
    return buf;
}

std::string socket_address::to_string() const
{
    return ip_string() + ":" + std::to_string(port());
}

} // namespace rdma
} // namespace gr
