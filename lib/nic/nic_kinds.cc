/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// nic=soft and nic=verbs (docs/device-args.md, "NIC"), registered for the code that
// opens NICs by name.

#include "nic_registry.h"
#include "soft_nic.h"
#include "verbs_device.h"
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {

std::unique_ptr<device> open_verbs(const nic_config& c, uint32_t default_ip)
{
    if (c.port_given)
        throw std::invalid_argument("device args: nic_port= is for nic=soft; RoCE NICs and "
                                    "rxe receive on UDP port 4791");
    verbs_device_config config;
    if (!c.interface.empty())
        config.interface = c.interface;
    else
        config.ip = c.address_given ? c.ip : default_ip;
    return std::make_unique<verbs_device>(config);
}

std::unique_ptr<device> open_soft(const nic_config& c, uint32_t default_ip)
{
    if (!c.interface.empty())
        throw std::invalid_argument("device args: nic_if= selects the RDMA device of "
                                    "nic=verbs; for nic=soft give nic_addr=<local IPv4>");
    soft_nic_config config;
    config.bind_to = socket_address(c.address_given ? c.ip : default_ip, c.port);
    return std::make_unique<soft_nic>(config);
}

const nic_kind_registrar soft_kind({ "soft",
                                     "the userspace NIC (docs/soft-nic.md)",
                                     open_soft,
                                     "" });
const nic_kind_registrar verbs_kind({ "verbs",
                                      "an rdma-core device: a RoCE NIC or Linux rxe",
                                      open_verbs,
                                      "" });

} // namespace

} // namespace nic
} // namespace rdma
} // namespace gr
