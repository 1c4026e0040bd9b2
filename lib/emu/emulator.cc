/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/net_interface.h"
#include "emulator.h"
#include "inproc_wire.h"
#include "raw_wire.h"
#include "udp_wire.h"
#include <stdexcept>

namespace gr {
namespace rdma {
namespace emu {

wire_type parse_wire_type(const std::string& text)
{
    if (text == "udp")
        return wire_type::udp;
    if (text == "raw")
        return wire_type::raw;
    if (text == "inproc")
        return wire_type::inproc;
    throw std::invalid_argument("emulator: wire '" + text +
                                "' is unknown: expected udp, raw or inproc");
}

const char* to_string(wire_type type)
{
    return type == wire_type::raw ? "raw" : type == wire_type::inproc ? "inproc" : "udp";
}

namespace {
std::unique_ptr<wire> make_wire(const emulator_config& config)
{
    if (config.wire == wire_type::raw)
        return std::make_unique<raw_wire>(config.link);
    if (config.wire == wire_type::inproc)
        return std::make_unique<inproc_wire>(config.link);
    return std::make_unique<udp_wire>(config.link);
}
} // namespace

emulator::emulator(const emulator_config& config)
{
    if (config.rx_streams == 0 || config.rx_streams > 16)
        throw std::invalid_argument("emulator: rx_streams must be 1..16");
    d_link = make_wire(config);
    // Metadata leaves from the link's address by an ordinary UDP socket (any port).
    d_metadata = std::make_unique<metadata_sender>(
        socket_address(d_link->local_address().ip(), 0), config.rx_streams);

    // RC ACK/NAKs come back to the link; one receiver sorts them to the streams.
    d_acks = std::make_unique<ack_receiver>(*d_link, config.rx_streams);
    std::vector<rx_engine*> engines;
    for (unsigned s = 0; s < config.rx_streams; s++) {
        d_rx.push_back(
            std::make_unique<rx_engine>(s, *d_link, d_metadata.get(), d_acks.get()));
        engines.push_back(d_rx.back().get());
    }

    link_info link;
    const socket_address local = d_link->local_address();
    link.ipv4 = local.ip();
    link.udp_port = local.port();
    link.udp_sport = d_link->source_port();
    link.mtu = d_link->mtu();
    if (const auto nif = find_interface_by_ip(local.ip()))
        link.mac = nif->mac;

    device_identity identity;
    identity.serial = config.serial;
    identity.fifo_us = config.fifo_us;
    identity.capabilities = regs::cap::rx_uc | regs::cap::rx_rc | regs::cap::immediate |
                            regs::cap::clock | regs::cap::metadata | regs::cap::emulator |
                            regs::cap::ownership;
    d_registers = std::make_unique<register_file>(
        identity, std::vector<link_info>{ link }, engines, d_metadata.get());
    d_server = std::make_unique<axioe::server>(config.control, *d_registers);
}

emulator::~emulator() = default;

} // namespace emu
} // namespace rdma
} // namespace gr
