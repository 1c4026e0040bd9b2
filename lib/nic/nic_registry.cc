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

const std::set<std::string>& nic_config::keys()
{
    static const std::set<std::string> k = { "nic", "nic_addr", "nic_if", "nic_port" };
    return k;
}

nic_config nic_config::from_args(const device_args& args, const std::string& default_kind)
{
    nic_config c;
    if (args.has("nic"))
        find_nic_kind(args.get("nic", "")); // one of a module not loaded yet loads it
    std::set<std::string> names;
    for (const auto& n : nic_kind_names())
        names.insert(n);
    c.kind = args.get_choice("nic", names, default_kind.empty() ? "soft" : default_kind);
    if (args.has("nic_addr") && args.has("nic_if"))
        throw std::invalid_argument("device args: give nic_addr= or nic_if=, not both");
    c.address_given = args.has("nic_addr");
    if (c.address_given)
        c.ip = args.get_address("nic_addr", "", 0).ip();
    c.interface = args.get("nic_if", "");
    c.port_given = args.has("nic_port");
    c.port = static_cast<uint16_t>(
        args.get_uint("nic_port", 0, 0, 65535, "a UDP port", "0: any free port"));
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
