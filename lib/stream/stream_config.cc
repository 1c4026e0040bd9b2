/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "consumer_gate.h"
#include "impairment_args.h"
#include "stream_config.h"
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

// The NIC nic= and nic_addr= name, as the device's kind allows (the stand-in goes
// with its own only). With nic_addr=A+B (several links), destination 0's is A.
nic_config
nic_of(const device_args& args, const device_kind& kind, const link_plan& links)
{
    const nic_config config = nic_config::from_args(
        links.nic_addresses.empty()
            ? args
            : args.with("nic_addr",
                        socket_address(links.nic_addresses[0], 0).to_string()),
        kind.default_nic);
    if (kind.nic_fixed && config.kind != kind.default_nic)
        throw std::invalid_argument("device args: type=" + kind.name + " goes with nic=" +
                                    kind.default_nic + " only: drop nic=");
    return config;
}

} // namespace

rx_stream_config rx_stream_config::parse(const device_args& args, const device_kind& kind)
{
    rx_stream_config c;
    c.stream = stream_settings::from_args(args);
    c.ring = ring_args::from_args(args);
    c.receive = receive_settings::from_args(args, c.ring.latency_s);
    c.links = link_plan::from_args(args); // before the NIC: nic_addr= may name several
    c.nic = nic_of(args, kind, c.links);
    c.shares = share_plan::from_args(args);
    c.controller = controller_args::from_args(args);
    c.ownership = stream_ownership::settings::from_args(args);
    c.metadata = metadata_request::from_args(args);
    c.signal = test_signal_request::from_args(args);
    c.impairments = parse_impairment_args(args);
    c.paced = consumer_gate::asked(args);
    return c;
}

tx_stream_config tx_stream_config::parse(const device_args& args, const device_kind& kind)
{
    tx_stream_config c;
    c.stream = stream_settings::from_args(args);
    c.ring = ring_args::from_args(args);
    c.transmit = transmit_settings::from_args(args, c.ring.latency_s);
    c.nic = nic_of(args, kind, link_plan{});
    c.controller = controller_args::from_args(args);
    c.ownership = stream_ownership::settings::from_args(args);
    c.metadata = metadata_request::from_args(args);
    c.paced = consumer_gate::asked(args);
    return c;
}

} // namespace rdma
} // namespace gr
