/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The args of a stream: the tables of its own keys, the typed settings they parse to,
// and the config an RX or a TX stream is made from (parse(): each part parsed by the
// code that owns its keys). A key's way from the args to its use: here, then
// rx_stream_setup.cc or tx_stream_setup.cc, where the parts are settled against the
// device.

#include "../device/shared_device.h"
#include "../nic/nic.h"
#include "../nic/nic_registry.h"
#include "../util/kind_modules.h"
#include "../util/parse_number.h"
#include "consumer_gate.h"
#include "controller_args.h"
#include "link_args.h"
#include "metadata_monitor.h"
#include "ring_args.h"
#include "share_args.h"
#include "stream_args.h"
#include "stream_ownership.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {

const arg_table& stream_keys()
{
    // The register map addresses 16 streams per direction (0x2000 + 0x100 s); the
    // device's own count is checked once it is known.
    // clang-format off
    static const arg_table t("stream", {
        arg_key::integer("stream", 0, 15, "0", "", "which stream of the device").depending("0…15"),
        arg_key::number("device_timeout", 0.1, 60, "0.5", "seconds", "the device is lost when it has not answered the heartbeat this long"),
        arg_key::integer("mtu", 256, 4096, "", "bytes", "RoCE path MTU: 256, 512, 1024, 2048 or 4096; default: the largest the NIC and the link allow").hinted("256, 512, 1024, 2048 or 4096"),
        arg_key::integer("payload", 1, 65536, "", "bytes", "sample bytes per RDMA message: a power of two, a multiple of the item size").depending("item size…65536"),
    });
    // clang-format on
    return t;
}

const arg_table& receive_keys()
{
    // clang-format off
    static const arg_table t("receive", {
        arg_key::integer("notify", 0, 65536, "", "messages per notification", "every N-th message carries a notification; 0: none").hinted("0: none, the host judges progress by the clock alone"),
        arg_key::number("work_interval", 0, 15, "0", "seconds", "the host hands out new items at most once per interval").depending("0…latency/4"),
        arg_key::choice("transport", { "uc", "rc" }, "uc", "uc: lost packets are lost, reported; rc: the device resends what the NIC NAKs"),
        arg_key::integer("retx_window", 0, UINT32_MAX, "4194304", "bytes", "transport=rc: bytes the device keeps for retransmission"),
        arg_key::number("grace", 0, 30, "", "seconds", "seconds after its last sample by which a packet must have landed, else it is lost").depending("FIFO + 0.005 s…latency/2"),
        arg_key::choice("on_device_loss", { "end", "wait" }, "end", "end: a lost device ends the run; wait: the stream holds until it answers"),
        arg_key::flag("latency_probe", false, "benchmarks only: measure each hand-out's sample age"),
    });
    // clang-format on
    return t;
}

const arg_table& transmit_keys()
{
    // clang-format off
    static const arg_table t("transmit", {
        arg_key::integer("notify", 1, 65536, "16", "messages per fetch notification", "the device notifies every N-th message it fetched").hinted("at least 1"),
        arg_key::number("max_lead", 1e-5, 30, "", "seconds", "the longest the device READs ahead of a sample's time").depending("1e-5…latency/2"),
        arg_key::number("min_lead", 1e-6, 30, "", "seconds", "the shortest the device READs ahead of a sample's time").depending("1e-6…max_lead").hinted("at most max_lead="),
        arg_key::flag("tx_check", false, "the emulator checks every sample it plays against the ramp"),
        arg_key::integer("tx_loss_ppm", 0, 1000000, "0", "ppm", "the emulator drops READ responses, per million"),
        arg_key::integer("tx_fault_seed", 0, UINT32_MAX, "0", "", "the seed of the emulator's TX faults"),
    });
    // clang-format on
    return t;
}

stream_settings stream_settings::from_args(const device_args& args)
{
    const arg_table& k = stream_keys();
    stream_settings s;
    s.index = static_cast<unsigned>(args.get_uint(k["stream"]));
    s.device_timeout_s = args.get_double(k["device_timeout"]);
    if (args.has(k["mtu"])) {
        const uint64_t mtu = args.get_uint(k["mtu"], 0);
        if (!nic::valid_path_mtu(static_cast<unsigned>(mtu)))
            device_args::refuse("mtu", std::to_string(mtu), k["mtu"].hint);
        s.mtu = static_cast<unsigned>(mtu);
    }
    if (args.has(k["payload"]))
        s.payload = args.get_uint(k["payload"], 0);
    return s;
}

receive_settings receive_settings::from_args(const device_args& args, double latency_s)
{
    const arg_table& k = receive_keys();
    receive_settings s;
    if (args.has(k["notify"]))
        s.notify = static_cast<uint32_t>(args.get_uint(k["notify"], 0));
    s.work_interval_s = args.get_double(
        k["work_interval"],
        0,
        0,
        latency_s / 4,
        "at most a quarter of the latency budget (latency=" + format_number(latency_s) +
            " s): raise latency= or lower work_interval=");
    // RC: the device resends what the NIC NAKs, from a window of retx_window bytes.
    s.rc = args.get_choice(k["transport"]) == "rc";
    if (args.has(k["retx_window"]) && !s.rc)
        throw std::invalid_argument("device args: retx_window= sizes the RC retransmit "
                                    "window; add transport=rc");
    s.retx_window_bytes = static_cast<uint32_t>(args.get_uint(k["retx_window"]));
    if (args.has(k["grace"]))
        s.grace_s = args.get_double(k["grace"],
                                    0,
                                    k["grace"].min,
                                    latency_s / 2,
                                    "at most half the latency budget (latency=" +
                                        format_number(latency_s) + " s)");
    s.end_on_device_loss = args.get_choice(k["on_device_loss"]) == "end";
    s.latency_probe = args.get_flag(k["latency_probe"]);
    return s;
}

transmit_settings transmit_settings::from_args(const device_args& args, double latency_s)
{
    const arg_table& k = transmit_keys();
    transmit_settings s;
    s.notify = static_cast<uint32_t>(args.get_uint(k["notify"]));
    // The device adapts its lead between these (TX_MIN_LEAD_NS, TX_MAX_LEAD_NS); the
    // ring must hold the longest, so it may be at most half the latency budget.
    const double most = latency_s / 2;
    s.max_lead_s = args.get_double(k["max_lead"],
                                   std::min(0.05, most),
                                   k["max_lead"].min,
                                   most,
                                   "at most half the latency budget (latency=" +
                                       format_number(latency_s) + " s): raise latency=");
    s.min_lead_s = args.get_double(k["min_lead"],
                                   std::min(200e-6, s.max_lead_s),
                                   k["min_lead"].min,
                                   s.max_lead_s,
                                   k["min_lead"].hint);
    s.emulation_given = args.has(k["tx_check"]) || args.has(k["tx_loss_ppm"]) ||
                        args.has(k["tx_fault_seed"]);
    s.emulation.check = args.get_flag(k["tx_check"]) ? 1 : 0;
    s.emulation.loss_ppm = static_cast<uint32_t>(args.get_uint(k["tx_loss_ppm"]));
    s.emulation.fault_seed = static_cast<uint32_t>(args.get_uint(k["tx_fault_seed"]));
    return s;
}

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
    c.emulator = emulator_request::from_args(args);
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

namespace {

std::vector<const arg_table*> with_kinds(std::vector<const arg_table*> tables)
{
    tables.push_back(&shared_device::keys());
    for (const arg_table* kind : shared_device::kind_keys())
        tables.push_back(kind);
    return tables;
}

} // namespace

std::vector<const arg_table*> rx_stream_arg_tables()
{
    return with_kinds({ &stream_keys(),
                        &receive_keys(),
                        &ring_args::keys(),
                        &nic_config::keys(),
                        &link_plan::keys(),
                        &share_plan::keys(),
                        &controller_args::keys(),
                        &stream_ownership::arg_keys(),
                        &metadata_arg_keys(),
                        &test_signal_arg_keys(),
                        &impairment_arg_keys(),
                        &consumer_gate::keys() });
}

std::vector<const arg_table*> tx_stream_arg_tables()
{
    return with_kinds({ &stream_keys(),
                        &transmit_keys(),
                        &ring_args::keys(),
                        &nic_config::keys(),
                        &controller_args::keys(),
                        &stream_ownership::arg_keys(),
                        &metadata_arg_keys(),
                        &consumer_gate::keys() });
}

std::vector<const arg_table*> device_arg_tables()
{
    std::vector<const arg_table*> tables = rx_stream_arg_tables();
    for (const arg_table* t : tx_stream_arg_tables())
        if (std::find(tables.begin(), tables.end(), t) == tables.end())
            tables.push_back(t);
    return tables;
}

void check_stream_arg_keys(const device_args& args,
                           std::vector<const arg_table*> (*tables)())
{
    const auto check = [&args, tables] {
        std::set<std::string> known;
        for (const arg_table* t : tables())
            for (const arg_key& k : t->keys())
                known.insert(k.name);
        args.check_known(known);
    };
    try {
        check();
    } catch (const std::invalid_argument&) {
        if (!load_kind_modules())
            throw;
        check();
    }
}

} // namespace rdma
} // namespace gr
