/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-probe: everything a gr-rdma device or emulator daemon says about itself, as
// uhd_usrp_probe shows a USRP (docs/find-probe.md). Read-only: it claims nothing and
// writes nothing, so it is safe on a device another host streams from.
//
// Exit status: 0 the device answered, 1 it did not (or is no gr-rdma device), 2 usage
// error.

#include "app_flags.h"
#include "axioe/axioe_packet.h"
#include "device_probe.h"
#include <cstdio>
#include <exception>
#include <string>

using namespace gr::rdma;
using namespace gr::rdma::app;

namespace {

struct options {
    socket_address device{ 0x7F000001, axioe::default_port };
    bool json = false;
    bool help = false;
};

void usage(FILE* to)
{
    std::fputs(
        "usage: gr-rdma-probe [--addr IP[:PORT]] [--json]\n"
        "\n"
        "Prints what a gr-rdma device or emulator daemon says about itself: identity,\n"
        "capabilities, clock, links, RX streams (status, owner, descriptor where\n"
        "readable, counters), the metadata channel and the RF front end. It only reads:\n"
        "it claims no stream and writes no register.\n"
        "\n"
        "  --addr IP[:PORT]  the device's AXIoE address (default 127.0.0.1:50100)\n"
        "  --json            one JSON object on stdout\n"
        "\n"
        "Exit status: 0 the device answered, 1 it did not or is no gr-rdma device,\n"
        "2 usage error.\n",
        to);
}

options parse(int argc, char** argv)
{
    options o;
    flag_reader flags(argc, argv);
    std::string flag;
    while (flags.next(flag)) {
        if (flag == "--help" || flag == "-h")
            o.help = true;
        else if (flag == "--json")
            o.json = true;
        else if (flag == "--addr")
            o.device =
                parse_device_address(flag, flags.value_of(flag), axioe::default_port);
        else
            throw usage_error("unknown flag '" + flag + "' (--help lists them)");
    }
    return o;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        const options o = parse(argc, argv);
        if (o.help) {
            usage(stdout);
            return exit_found;
        }
        const report_node device = probe_device(o.device);
        if (o.json)
            std::printf("%s\n", device.to_json().c_str());
        else
            std::fputs(device.to_text().c_str(), stdout);
        return exit_found;
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gr-rdma-probe: %s\n", e.what());
        return exit_usage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gr-rdma-probe: %s\n", e.what());
        return exit_none;
    }
}
