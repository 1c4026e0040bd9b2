/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/kind_modules.h"
#include "shared_device.h"
#include <map>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

// The devices open in this process, by identity. Weak: a device closes when its last
// stream and block let go of it.
struct open_devices {
    std::mutex mutex;
    std::map<std::string, std::weak_ptr<shared_device>> by_identity;
};
open_devices& cache()
{
    static open_devices c;
    return c;
}

const device_kind_registrar remote_kind({ "remote",
                                          "a device (hardware, or gr-rdma-emu) at addr=",
                                          arg_table("type=remote", {}),
                                          nullptr,
                                          "soft",
                                          false });


// Keys a kind takes that are also the stream's, for every kind: links=N makes the
// emulator in this process N links, and spreads any stream over N (docs/links.md).
const std::set<std::string> stream_keys = { "links" };

// For the error naming an unknown type=: every kind, those of modules too, and why a
// module did not load.
std::string kind_list()
{
    load_kind_modules();
    std::string out;
    for (const auto& n : device_kind_names())
        out += (out.empty() ? "" : "|") + n;
    const std::string note = kind_modules_note();
    return note.empty() ? out : out + " (" + note + ")";
}

} // namespace

const arg_table& shared_device::keys()
{
    // clang-format off
    static const arg_table t("device", {
        arg_key::text("type", "the kind of device: emu (in this process), remote (at addr=), null (benchmarks)"),
        arg_key::text("addr", "IP[:port] or name[:port] of the device's AXIoE port"),
        arg_key::text("name", "opens another device object on purpose"),
        arg_key::number("timeout", 0.001, 60, "0.05", "seconds", "seconds an AXIoE request waits for its answer before it is resent"),
        arg_key::integer("retries", 0, 1000, "10", "resends", "resends before a request fails"),
    });
    // clang-format on
    return t;
}

std::vector<const arg_table*> shared_device::kind_keys()
{
    std::vector<const arg_table*> out;
    for (const auto& name : device_kind_names())
        out.push_back(&find_device_kind(name)->keys);
    return out;
}

std::shared_ptr<shared_device> shared_device::open(const device_args& args)
{
    const std::string type = args.get("type", args.has("addr") ? "remote" : "emu");
    const device_kind* kind = find_device_kind(type);
    if (!kind)
        throw std::invalid_argument("device args: type=" + type +
                                    " is invalid: expected one of " + kind_list());
    // Keys of other kinds make no sense here (e.g. wire= for a remote device).
    for (const auto& name : device_kind_names()) {
        if (name == type)
            continue;
        for (const auto& k : find_device_kind(name)->keys.keys())
            if (args.has(k.name) && !kind->keys.contains(k.name) &&
                !stream_keys.count(k.name))
                throw std::invalid_argument("device args: " + k.name +
                                            "= belongs to type=" + name +
                                            ", not type=" + type);
    }
    axioe::client_options options;
    options.timeout = std::chrono::microseconds(
        static_cast<int64_t>(args.get_double(keys()["timeout"]) * 1e6));
    options.retries = static_cast<int>(args.get_uint(keys()["retries"]));

    std::string identity;
    socket_address control;
    if (kind->start) {
        if (args.has("addr"))
            throw std::invalid_argument(
                "device args: addr= names a remote device; type=" + type +
                " runs in this process: drop addr=, or "
                "use type=remote");
        identity = type + "/" + args.get("name", "");
        for (const auto& k : kind->keys.keys())
            if (args.has(k.name))
                identity += "," + k.name + "=" + args.get(k.name, "");
    } else {
        if (!args.has("addr"))
            throw std::invalid_argument("device args: type=" + type +
                                        " needs addr=<ip>[:port] of the device's AXIoE "
                                        "port");
        control = args.get_host_address("addr", "", axioe::default_port);
        // name= opens the device once more, as another host would: its own controller,
        // its own streams (tests of several hosts in one process).
        identity = type + "/" + control.to_string() + "/" + args.get("name", "");
    }

    open_devices& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (auto existing = c.by_identity[identity].lock())
        return existing;
    std::unique_ptr<device_backend> backend;
    if (kind->start) {
        backend = kind->start(args);
        control = backend->control_address();
    }
    std::shared_ptr<shared_device> dev(
        new shared_device(*kind, identity, std::move(backend), control, options));
    c.by_identity[identity] = dev;
    return dev;
}

shared_device::shared_device(const device_kind& kind,
                             std::string identity,
                             std::unique_ptr<device_backend> backend,
                             const socket_address& control,
                             const axioe::client_options& options)
    : d_kind(&kind),
      d_identity(std::move(identity)),
      d_backend(std::move(backend)),
      d_controller(std::make_unique<device_controller>(control, options))
{
    d_info = d_controller->identify();
    d_link = d_controller->read_link(0);
    d_radio = std::make_unique<radio_control>(*d_controller, d_info);
    d_rates = std::make_unique<rate_controller>(*d_controller, d_info);
}

shared_device::~shared_device()
{
    // The controller goes before the backend it talks to (members in reverse order).
    open_devices& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    const auto it = c.by_identity.find(d_identity);
    if (it != c.by_identity.end() && it->second.expired())
        c.by_identity.erase(it);
}

std::shared_ptr<metadata_intake>
shared_device::metadata_intake_for(const socket_address& bind_to)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_metadata)
        d_metadata = std::make_shared<metadata_intake>(bind_to, d_link.roce.ip());
    return d_metadata;
}

void shared_device::check_rx_stream(const shared_device& dev, unsigned stream)
{
    if (stream >= dev.d_info.num_rx_streams)
        throw std::invalid_argument(
            "device args: stream=" + std::to_string(stream) + " but the device has " +
            std::to_string(dev.d_info.num_rx_streams) + " RX stream(s)" +
            (dev.d_kind->keys.contains("streams")
                 ? " (type=" + dev.d_kind->name + ": give streams=<count>)"
                 : ""));
}

void shared_device::check_tx_stream(const shared_device& dev, unsigned stream)
{
    if (!dev.d_info.has(regs::cap::tx) || dev.d_info.num_tx_streams == 0)
        throw std::invalid_argument("the device " + dev.d_identity +
                                    " does not transmit (no CAP_TX in ID_CAPABILITIES)");
    if (stream >= dev.d_info.num_tx_streams)
        throw std::invalid_argument(
            "device args: stream=" + std::to_string(stream) + " but the device has " +
            std::to_string(dev.d_info.num_tx_streams) + " TX stream(s)");
}

std::unique_ptr<shared_device::tx_claim>
shared_device::claim_tx(const std::shared_ptr<shared_device>& dev, unsigned stream)
{
    check_tx_stream(*dev, stream);
    return std::make_unique<tx_claim>(dev, stream);
}

shared_device::tx_claim::tx_claim(std::shared_ptr<shared_device> dev, unsigned stream)
    : d_device(std::move(dev)), d_stream(stream)
{
    std::lock_guard<std::mutex> lock(d_device->d_mutex);
    if (!d_device->d_claimed_tx.insert(stream).second)
        throw std::invalid_argument(
            "device args: TX stream " + std::to_string(stream) + " of the device " +
            d_device->d_identity +
            " is running in another tx_stream of this process: "
            "stop that one first, or give stream=<another index>");
}

shared_device::tx_claim::~tx_claim()
{
    std::lock_guard<std::mutex> lock(d_device->d_mutex);
    d_device->d_claimed_tx.erase(d_stream);
}

std::unique_ptr<shared_device::rx_claim>
shared_device::claim_rx(const std::shared_ptr<shared_device>& dev, unsigned stream)
{
    check_rx_stream(*dev, stream);
    return std::make_unique<rx_claim>(dev, stream);
}

shared_device::rx_claim::rx_claim(std::shared_ptr<shared_device> dev, unsigned stream)
    : d_device(std::move(dev)), d_stream(stream)
{
    std::lock_guard<std::mutex> lock(d_device->d_mutex);
    if (!d_device->d_claimed_rx.insert(stream).second)
        throw std::invalid_argument(
            "device args: RX stream " + std::to_string(stream) + " of the device " +
            d_device->d_identity +
            " is running in another stream of this process: stop "
            "that one first, give stream=<another index> (it has " +
            std::to_string(d_device->d_info.num_rx_streams) +
            "), or name=<something> "
            "for a device of its own");
}

shared_device::rx_claim::~rx_claim()
{
    std::lock_guard<std::mutex> lock(d_device->d_mutex);
    d_device->d_claimed_rx.erase(d_stream);
}

} // namespace rdma
} // namespace gr
