/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bench_udp_sender: the socket baseline's sender. Runs the emulator in this process,
// programs RX stream 0 through AXIoE with RX_TRANSPORT = 2 (plain UDP sample
// datagrams: 8-byte big-endian sequence number + payload, lib/emu/udp_sample_builder.h)
// and streams one finite burst to --to, as an Ethernet SDR of today would. Prints one
// JSON line: the device's counters and the CPU its threads spent (role "device").

#include "emu/emulator.h"
#include "regs/register_map.h"
#include "device/device_controller.h"
#include "util/rational_rate.h"
#include <gnuradio/rdma/cpu_accounting.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

namespace {

using namespace gr::rdma;

struct options {
    socket_address to;
    double rate = 10e6;
    sample_format format = sample_format::sc16;
    uint32_t payload = 8192;
    uint64_t samples = 0;
};

void usage()
{
    std::fprintf(stderr,
                 "usage: bench_udp_sender --to IP:PORT --rate S/s --samples N\n"
                 "                        [--payload BYTES] [--format sc16|fc32]\n"
                 "Streams N samples as UDP datagrams of an 8-byte big-endian sequence\n"
                 "number and BYTES of samples (default 8192) from the emulator.\n");
}

bool parse(int argc, char** argv, options& o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--to")
            o.to = socket_address::parse(value);
        else if (key == "--rate")
            o.rate = std::stod(value);
        else if (key == "--samples")
            o.samples = std::stoull(value);
        else if (key == "--payload")
            o.payload = static_cast<uint32_t>(std::stoul(value));
        else if (key == "--format")
            o.format = parse_sample_format(value);
        else
            return false;
    }
    return argc % 2 == 1 && o.to.port() != 0 && o.samples > 0 && o.rate > 0;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    try {
        if (!parse(argc, argv, o)) {
            usage();
            return 2;
        }
        emu::emulator device(emu::emulator_config{});
        device_controller control(device.control_address());
        const device_info info = control.identify();
        const auto started = std::chrono::steady_clock::now();
        const cpu_seconds cpu_before = process_cpu_by_role();

        rx_setup setup;
        setup.destination = o.to;
        setup.dest_qpn = 1;           // ignored by the UDP transport; must not be 0
        setup.ring_bytes = o.payload; // ignored likewise; a multiple of the payload
        setup.payload_bytes = o.payload;
        setup.path_mtu = 4096; // ignored likewise: one datagram per message
        const rational r = rational_rate(o.rate);
        setup.rate_num = r.num;
        setup.rate_den = r.den;
        setup.format = o.format;
        setup.transport = regs::transport_type::udp;
        setup.num_samples = o.samples;
        control.configure_rx(0, setup);
        if (info.has(regs::cap::emulator))
            control.configure_signal(0, test_signal_config{}); // the ramp
        control.start_rx(0);

        const double burst_s = double(o.samples) / o.rate;
        const auto deadline = started + std::chrono::duration<double>(burst_s + 10.0);
        rx_device_counters c;
        bool done = false;
        while (std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            c = control.read_rx_counters(0);
            if (c.status & regs::status::done) {
                done = true;
                break;
            }
        }
        control.stop_rx(0);
        c = control.read_rx_counters(0);
        const cpu_seconds cpu = process_cpu_by_role() - cpu_before;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                .count();
        std::printf(
            "{\"done\": %s, \"samples_emitted\": %llu, \"packets_sent\": %llu, "
            "\"packets_dropped\": %llu, \"samples_dropped\": %llu, "
            "\"cpu_device_s\": %.6f, \"cpu_other_s\": %.6f, \"elapsed_s\": %.6f}\n",
            done ? "true" : "false",
            static_cast<unsigned long long>(c.samples_emitted),
            static_cast<unsigned long long>(c.packets_sent),
            static_cast<unsigned long long>(c.packets_dropped),
            static_cast<unsigned long long>(c.samples_dropped),
            cpu.device,
            cpu.host + cpu.nic,
            elapsed);
        return done ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_udp_sender: %s\n", e.what());
        return 1;
    }
}
