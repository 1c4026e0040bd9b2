/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../nic/null_nic.h"
#include "../nic/soft_nic.h"
#include "../nic/verbs_device.h"
#include "nic_factory.h"
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

std::unique_ptr<nic::device> open_verbs(const device_args& args, uint32_t default_ip)
{
    if (args.has("nic_port"))
        throw std::invalid_argument(
            "device args: nic_port= is for nic=soft; RoCE NICs and "
            "rxe receive on UDP port 4791");
    nic::verbs_device_config config;
    if (args.has("nic_if"))
        config.interface = args.get("nic_if", "");
    else
        config.ip =
            args.has("nic_addr") ? args.get_address("nic_addr", "", 0).ip() : default_ip;
    return std::make_unique<nic::verbs_device>(config);
}

std::unique_ptr<nic::device> open_soft(const device_args& args, uint32_t default_ip)
{
    if (args.has("nic_if"))
        throw std::invalid_argument("device args: nic_if= selects the RDMA device of "
                                    "nic=verbs; for nic=soft give nic_addr=<local IPv4>");
    const socket_address local = args.has("nic_addr")
                                     ? args.get_address("nic_addr", "", 0)
                                     : socket_address(default_ip, 0);
    const uint64_t port =
        args.get_uint("nic_port", 0, 0, 65535, "a UDP port", "0: any free port");
    nic::soft_nic_config config;
    config.bind_to = local.with_port(static_cast<uint16_t>(port));
    return std::make_unique<nic::soft_nic>(config);
}

} // namespace

std::unique_ptr<nic::device> open_nic(const device_args& args, uint32_t default_ip)
{
    // The null NIC and the null device are one stand-in (benchmarks: the zero-copy
    // ceiling); neither talks to anything else.
    const bool null_device = args.get("type", "") == "null";
    const std::string kind = args.get_choice(
        "nic", { "soft", "verbs", "null" }, null_device ? "null" : "soft");
    if ((kind == "null") != null_device)
        throw std::invalid_argument(
            "device args: nic=null and type=null go together (the "
            "zero-copy ceiling stand-in, docs/performance.md)");
    if (args.has("nic_addr") && args.has("nic_if"))
        throw std::invalid_argument("device args: give nic_addr= or nic_if=, not both");
    if (kind == "null") {
        if (args.has("nic_addr") || args.has("nic_if") || args.has("nic_port"))
            throw std::invalid_argument("device args: nic=null has no address to choose");
        return std::make_unique<nic::null_nic>();
    }
    return kind == "verbs" ? open_verbs(args, default_ip) : open_soft(args, default_ip);
}

} // namespace rdma
} // namespace gr
