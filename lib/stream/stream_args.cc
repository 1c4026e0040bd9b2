/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../device/shared_device.h"
#include "../nic/nic_registry.h"
#include "../util/kind_modules.h"
#include "consumer_gate.h"
#include "controller_args.h"
#include "impairment_args.h"
#include "link_args.h"
#include "metadata_monitor.h"
#include "share_args.h"
#include "signal_args.h"
#include "stream_args.h"
#include "stream_ownership.h"

namespace gr {
namespace rdma {

namespace {

// The keys the stream itself reads (rx_stream_plan, the ring).
const std::set<std::string> stream_keys = {
    "device_timeout", "grace",         "hugepages",   "latency",
    "latency_probe",  "mtu",           "notify",      "numa",
    "on_device_loss", "payload",       "retx_window", "stream",
    "transport",      "work_interval", "rate_limit",
};

} // namespace

std::set<std::string> rx_stream_arg_keys()
{
    std::set<std::string> keys = stream_keys;
    for (const auto* set : { &nic_config::keys(),
                             &test_signal_arg_keys(),
                             &impairment_arg_keys(),
                             &metadata_arg_keys(),
                             &stream_ownership::arg_keys(),
                             &link_plan::keys(),
                             &share_plan::keys(),
                             &controller_args::keys(),
                             &consumer_gate::keys() })
        keys.insert(set->begin(), set->end());
    const std::set<std::string> device_keys = shared_device::keys();
    keys.insert(device_keys.begin(), device_keys.end());
    return keys;
}

void check_stream_arg_keys(const device_args& args, std::set<std::string> (*keys)())
{
    try {
        args.check_known(keys());
    } catch (const std::invalid_argument&) {
        if (!load_kind_modules())
            throw;
        args.check_known(keys());
    }
}

} // namespace rdma
} // namespace gr
