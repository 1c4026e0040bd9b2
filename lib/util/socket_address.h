/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_SOCKET_ADDRESS_H
#define INCLUDED_RDMA_UTIL_SOCKET_ADDRESS_H

#include <gnuradio/rdma/transport_api.h>
#include <netinet/in.h>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

//! An IPv4 address and UDP port; the only address family the transport speaks.
class RDMA_TRANSPORT_API socket_address
{
public:
    socket_address() = default;
    socket_address(uint32_t ip_host_order, uint16_t port);
    explicit socket_address(const sockaddr_in& sa) : d_sa(sa) {}

    //! Parse "a.b.c.d" or "a.b.c.d:port"; throws std::invalid_argument naming the input.
    static socket_address parse(const std::string& text, uint16_t default_port = 0);
    /*!
     * As parse(), but the host part may also be a name ("localhost", "sdr1.lab"),
     * resolved with getaddrinfo to its first IPv4 address; throws
     * std::invalid_argument naming the name when it does not resolve. It may block
     * on DNS: for configuration, never on the data path.
     */
    static socket_address resolve(const std::string& text, uint16_t default_port = 0);

    uint32_t ip() const { return ntohl(d_sa.sin_addr.s_addr); } //!< host byte order
    uint16_t port() const { return ntohs(d_sa.sin_port); }
    socket_address with_port(uint16_t port) const { return { ip(), port }; }

    const sockaddr_in& native() const { return d_sa; }
    sockaddr_in& native() { return d_sa; }

    std::string ip_string() const;
    std::string to_string() const; //!< "a.b.c.d:port"

    bool operator==(const socket_address& o) const
    {
        return ip() == o.ip() && port() == o.port();
    }
    bool operator!=(const socket_address& o) const { return !(*this == o); }

private:
    sockaddr_in d_sa{ AF_INET, 0, { 0 }, { 0 } };
};

} // namespace rdma
} // namespace gr

#endif
