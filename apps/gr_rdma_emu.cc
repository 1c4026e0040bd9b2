/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-emu: the SDR emulator as a daemon. Hosts reach it with
// type=remote,addr=<control address> in their device args.

#include "emu/emulator.h"
#include <signal.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace {

void usage(const char* argv0)
{
    std::fprintf(
        stderr,
        "usage: %s [--control IP:PORT] [--link IP] [--wire udp|raw] [--streams N] "
        "[--fifo-ms MS]\n"
        "  --control  AXIoE address to listen on (default 127.0.0.1:50100: this host\n"
        "             only). To serve hosts elsewhere give the address of the link to\n"
        "             them, ideally a dedicated interface or VLAN; 0.0.0.0 listens on\n"
        "             every interface (docs/security.md)\n"
        "  --link     IPv4 address the RoCEv2 frames leave from (default 127.0.0.1)\n"
        "  --wire     how frames are sent (default udp):\n"
        "               udp  a UDP socket; for the soft NIC (nic=soft) only\n"
        "               raw  complete IPv4 frames by raw socket, accepted by real\n"
        "                    RoCEv2 receivers (Linux rxe, RDMA NICs; nic=verbs).\n"
        "                    --link must be an address of the sending interface;\n"
        "                    RoCEv2 comes back on its port 4791. Needs CAP_NET_RAW:\n"
        "                    run as root or setcap cap_net_raw+ep gr-rdma-emu\n"
        "  --streams  number of RX streams (default 1)\n"
        "  --fifo-ms  how late it may send before dropping samples (overflow,\n"
        "             counted and logged; default 30)\n"
        "Runs until SIGINT or SIGTERM.\n",
        argv0);
}

} // namespace

int main(int argc, char** argv)
{
    gr::rdma::emu::emulator_config config;
    // Loopback unless told otherwise: whoever reaches the control port can claim and
    // stop streams, and AXIoE authenticates nobody (docs/security.md).
    config.control = gr::rdma::socket_address::parse("127.0.0.1:50100");
    try {
        for (int i = 1; i < argc; i++) {
            const std::string arg = argv[i];
            if (arg == "--help" || arg == "-h") {
                usage(argv[0]);
                return 0;
            }
            if (i + 1 >= argc) {
                usage(argv[0]);
                return 2;
            }
            const std::string value = argv[++i];
            if (arg == "--control")
                config.control = gr::rdma::socket_address::parse(value, 50100);
            else if (arg == "--link")
                config.link = gr::rdma::socket_address::parse(value);
            else if (arg == "--wire")
                config.wire = gr::rdma::emu::parse_wire_type(value);
            else if (arg == "--streams")
                config.rx_streams = static_cast<unsigned>(std::stoul(value));
            else if (arg == "--fifo-ms")
                config.fifo_us = static_cast<uint32_t>(std::stod(value) * 1000);
            else {
                usage(argv[0]);
                return 2;
            }
        }
        // Block the stop signals before any thread starts, so only sigwait sees them.
        sigset_t stop_signals;
        sigemptyset(&stop_signals);
        sigaddset(&stop_signals, SIGINT);
        sigaddset(&stop_signals, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

        gr::rdma::emu::emulator device(config);
        std::printf("gr-rdma-emu: AXIoE on %s, link %s (%s wire), %u RX stream(s)\n",
                    device.control_address().to_string().c_str(),
                    device.link_address().to_string().c_str(),
                    to_string(config.wire),
                    config.rx_streams);
        std::fflush(stdout);
        int received = 0;
        sigwait(&stop_signals, &received);
        std::printf("gr-rdma-emu: %s, stopping\n", strsignal(received));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gr-rdma-emu: %s\n", e.what());
        return 1;
    }
}
