/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_NET_INTERFACE_H
#define INCLUDED_RDMA_UTIL_NET_INTERFACE_H

#include <gnuradio/rdma/transport_api.h>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace gr {
namespace rdma {

//! A network interface with an IPv4 address, as the transport needs to know it.
struct net_interface {
    std::string name;
    unsigned index = 0;
    uint32_t ipv4 = 0; //!< host byte order
    unsigned mtu = 0;  //!< IP MTU in bytes
    std::array<uint8_t, 6> mac{};
};

//! The interface that holds IPv4 address \p ip (host order), if any.
RDMA_TRANSPORT_API std::optional<net_interface> find_interface_by_ip(uint32_t ip);

//! The local IPv4 address (host order) the routing table picks to reach \p dest_ip;
//! throws std::system_error when there is no route.
uint32_t route_source_ip(uint32_t dest_ip);

} // namespace rdma
} // namespace gr

#endif
