/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "nic_factory.h"
#include "../nic/soft_nic.h"
#include <stdexcept>

namespace gr {
namespace rdma {

std::unique_ptr<nic::device> open_nic(const device_args& args, uint32_t default_ip)
{
    const std::string kind = args.get_choice("nic", { "soft", "verbs" }, "soft");
    const socket_address local =
        args.has("nic_addr") ? socket_address::parse(args.get("nic_addr", "")) : socket_address(default_ip, 0);
    if (kind == "verbs")
        throw std::invalid_argument("device args: nic=verbs is not built into this version; use nic=soft");
    const uint64_t port = args.get_uint("nic_port", 0);
    if (port > 65535)
        throw std::invalid_argument("device args: nic_port=" + std::to_string(port) +
                                    " is invalid: expected 0 (any free port) .. 65535");
    nic::soft_nic_config config;
    config.bind_to = local.with_port(static_cast<uint16_t>(port));
    return std::make_unique<nic::soft_nic>(config);
}

} // namespace rdma
} // namespace gr
