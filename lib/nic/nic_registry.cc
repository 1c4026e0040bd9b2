/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/named_registry.h"
#include "nic_registry.h"
#include <stdexcept>

namespace gr {
namespace rdma {

void add_nic_kind(nic_kind kind)
{
    const std::string name = kind.name;
    named_registry<nic_kind>::instance().add(name, std::move(kind));
}

const nic_kind* find_nic_kind(const std::string& name)
{
    return named_registry<nic_kind>::instance().find(name);
}

std::vector<std::string> nic_kind_names()
{
    return named_registry<nic_kind>::instance().names();
}

const arg_table& nic_config::keys()
{
    // nic= takes any registered kind; soft and verbs are the transport library's own
    // (null comes with the benchmarks' stand-in).
    // clang-format off
    static const arg_table t("nic", {
        arg_key::choice("nic", { "soft", "verbs" }, "soft", "the NIC: soft (userspace, for hosts without RDMA) or verbs (an rdma-core device)"),
        arg_key::text("nic_addr", "local IPv4 address the device sends RoCEv2 to; with links=N, one per link separated by +"),
        arg_key::text("nic_if", "nic=verbs: the network interface whose RDMA device to use"),
        arg_key::integer("nic_port", 0, 65535, "0", "a UDP port", "nic=soft: its UDP port; 0: any free port").hinted("0: any free port"),
    });
    // clang-format on
    return t;
}

nic_config nic_config::from_args(const device_args& args, const std::string& default_kind)
{
    nic_config c;
    if (args.has("nic"))
        find_nic_kind(args.get("nic", "")); // one of a module not loaded yet loads it
    std::set<std::string> names;
    for (const auto& n : nic_kind_names())
        names.insert(n);
    const arg_table& k = keys();
    c.kind = args.get_choice(
        k["nic"].name, names, default_kind.empty() ? k["nic"].fallback : default_kind);
    if (args.has("nic_addr") && args.has("nic_if"))
        throw std::invalid_argument("device args: give nic_addr= or nic_if=, not both");
    c.address_given = args.has("nic_addr");
    if (c.address_given)
        c.ip = args.get_address("nic_addr", "", 0).ip();
    c.interface = args.get("nic_if", "");
    c.port_given = args.has("nic_port");
    c.port = static_cast<uint16_t>(args.get_uint(k["nic_port"]));
    return c;
}

std::unique_ptr<nic::device>
open_nic(const nic_config& config, const std::string& device_kind, uint32_t default_ip)
{
    const nic_kind* kind = find_nic_kind(config.kind);
    if (!kind)
        throw std::invalid_argument("device args: nic=" + config.kind + " is unknown");
    if (!kind->only_with.empty() && kind->only_with != device_kind)
        throw std::invalid_argument("device args: nic=" + config.kind +
                                    " goes with type=" + kind->only_with + " only (" +
                                    kind->description +
                                    "): drop nic=, or give type=" + kind->only_with);
    return kind->open(config, default_ip);
}

} // namespace rdma
} // namespace gr
