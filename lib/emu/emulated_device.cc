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

std::unique_ptr<device_backend> start(const device_args& args)
{
    emulator_config config;
    config.link = args.get_address("link_addr", "127.0.0.1", 0);
    // links=N: N links (docs/links.md), each its own UDP socket at the link address;
    // the stream that names links= spreads over them.
    const unsigned links = static_cast<unsigned>(args.get_uint(
        "links", 1, 1, 8, "device links", "of the emulator in this process"));
    for (unsigned n = 1; n < links; n++)
        config.more_links.push_back(socket_address(config.link.ip(), 0));
    config.wire = parse_wire_type(args.get_choice("wire", { "udp", "inproc" }, "udp"));
    config.rx_streams =
        static_cast<unsigned>(args.get_uint("streams",
                                            default_streams,
                                            1,
                                            16,
                                            "RX streams",
                                            "of the emulator in this process"));
    // A converter clocked at M makes only M / d (docs/radio.md, "Sample rate"); 0: every
    // rational rate exactly.
    config.master_clock_hz = static_cast<uint32_t>(args.get_uint(
        "master_clock", 0, 0, UINT32_MAX, "Hz", "0: every rational rate exactly"));
    return std::make_unique<emulated_device>(config);
}

const device_kind_registrar
    kind({ "emu",
           "the built-in SDR emulator, in this process",
           { "link_addr", "wire", "streams", "master_clock", "links" },
           start,
           "soft",
           false });

} // namespace

} // namespace emu
} // namespace rdma
} // namespace gr
