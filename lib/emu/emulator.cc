/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "emulator.h"
#include "../util/net_interface.h"
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
    throw std::invalid_argument("emulator: wire '" + text +
                                "' is unknown: expected udp or raw");
}

const char* to_string(wire_type type) { return type == wire_type::raw ? "raw" : "udp"; }

namespace {
std::unique_ptr<wire> make_wire(const emulator_config& config)
{
    if (config.wire == wire_type::raw)
        return std::make_unique<raw_wire>(config.link);
    return std::make_unique<udp_wire>(config.link);
}
} // namespace

emulator::emulator(const emulator_config& config)
{
    if (config.rx_streams == 0 || config.rx_streams > 16)
        throw std::invalid_argument("emulator: rx_streams must be 1..16");
    d_link = make_wire(config);

    std::vector<rx_engine*> engines;
    for (unsigned s = 0; s < config.rx_streams; s++) {
        d_rx.push_back(std::make_unique<rx_engine>(s, *d_link));
        engines.push_back(d_rx.back().get());
    }

    link_info link;
    const socket_address local = d_link->local_address();
    link.ipv4 = local.ip();
    link.udp_port = local.port();
    link.mtu = d_link->mtu();
    if (const auto nif = find_interface_by_ip(local.ip()))
        link.mac = nif->mac;

    device_identity identity;
    identity.serial = config.serial;
    identity.capabilities =
        regs::cap::rx_uc | regs::cap::immediate | regs::cap::clock | regs::cap::emulator;
    d_registers = std::make_unique<register_file>(identity, std::vector<link_info>{ link }, engines);
    d_server = std::make_unique<axioe::server>(config.control, *d_registers);
}

emulator::~emulator() = default;

} // namespace emu
} // namespace rdma
} // namespace gr
