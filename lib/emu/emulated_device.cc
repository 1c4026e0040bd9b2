/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// type=emu: the emulator, started in this process and reached over AXIoE on loopback
// like any device (docs/device-args.md). The code that opens devices finds it by name.

#include "../device/device_kind.h"
#include "emulator.h"

namespace gr {
namespace rdma {
namespace emu {

namespace {

class emulated_device : public device_backend
{
public:
    explicit emulated_device(const emulator_config& config) : d_emulator(config) {}
    socket_address control_address() const override
    {
        return d_emulator.control_address();
    }


private:
    emulator d_emulator;
};

// RX streams of an emulator started in-process: enough for several channels of one
// device; each idle stream costs one sleeping thread.
constexpr unsigned default_streams = 4;

// The emulator's own keys: how the emulator in this process is built. links= is also
// the stream's (links_args.h): links=N makes this emulator N links, and spreads the
// stream over them (docs/links.md).
const arg_table& keys()
{
    // clang-format off
    static const arg_table t("type=emu", {
        arg_key::text("link_addr", "the IPv4 address the emulator sends RoCEv2 from"),
        arg_key::choice("wire", { "udp", "inproc" }, "udp", "udp: the emulator's packets go by UDP on loopback; inproc: handed to the soft NIC in this process"),
        arg_key::integer("streams", 1, 16, std::to_string(default_streams), "RX streams", "RX streams of the emulator in this process").hinted("of the emulator in this process"),
        arg_key::integer("master_clock", 0, UINT32_MAX, "0", "Hz", "the converter's clock: only its integer divisions are rates; 0: every rational rate exactly").hinted("0: every rational rate exactly"),
        arg_key::integer("links", 1, 8, "1", "device links", "links of the emulator in this process, each its own UDP socket").hinted("of the emulator in this process"),
    });
    // clang-format on
    return t;
}

std::unique_ptr<device_backend> start(const device_args& args)
{
    const arg_table& k = keys();
    emulator_config config;
    config.link = args.get_address("link_addr", "127.0.0.1", 0);
    // links=N: N links (docs/links.md), each its own UDP socket at the link address;
    // the stream that names links= spreads over them.
    const unsigned links = static_cast<unsigned>(args.get_uint(k["links"]));
    for (unsigned n = 1; n < links; n++)
        config.more_links.push_back(socket_address(config.link.ip(), 0));
    config.wire = parse_wire_type(args.get_choice(k["wire"]));
    config.rx_streams = static_cast<unsigned>(args.get_uint(k["streams"]));
    // A converter clocked at M makes only M / d (docs/radio.md, "Sample rate").
    config.master_clock_hz = static_cast<uint32_t>(args.get_uint(k["master_clock"]));
    return std::make_unique<emulated_device>(config);
}

const device_kind_registrar kind({ "emu",
                                   "the built-in SDR emulator, in this process",
                                   keys(),
                                   start,
                                   "soft",
                                   false });

} // namespace

} // namespace emu
} // namespace rdma
} // namespace gr
