/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-find: which gr-rdma devices and emulator daemons answer, at the addresses
// given or on a broadcast, as uhd_find_devices lists USRPs (docs/find-probe.md). It
// sends one AXIoE READ of the identity block to each, which changes nothing.
//
// Exit status: 0 at least one device answered, 1 none, 2 usage error.

#include "app_flags.h"
#include "app_report.h"
#include "axioe/axioe_packet.h"
#include "discovery.h"
#include <spdlog/fmt/fmt.h>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::app;

namespace {

struct options {
    std::vector<std::string> addresses;
    std::vector<std::string> broadcasts;
    uint16_t port = axioe::default_port;
    double wait_s = 0.5;
    bool json = false;
    bool verbose = false;
    bool help = false;
};

void usage(FILE* to)
{
    std::fputs(
        "usage: gr-rdma-find [--addr IP[:PORT]]... [--broadcast IFACE|IP]... [--port N]\n"
        "                    [--wait S] [--json] [-v]\n"
        "\n"
        "Lists the gr-rdma devices and emulator daemons (gr-rdma-emu) that answer. It\n"
        "reads each one's identity registers, which changes nothing on the device.\n"
        "\n"
        "  --addr IP[:PORT]   ask the device at this address (repeatable; PORT defaults\n"
        "                     to --port). Without --addr or --broadcast: 127.0.0.1\n"
        "  --broadcast IFACE  ask every device on the interface's IPv4 broadcast "
        "address\n"
        "                     (or on the broadcast address IP), port --port "
        "(repeatable).\n"
        "                     A device hears it only if it listens on a wildcard or "
        "that\n"
        "                     interface's address: gr-rdma-emu --control 0.0.0.0:50100\n"
        "  --port N           the devices' AXIoE port, 1..65535 (default 50100)\n"
        "  --wait S           how long to collect answers, 0.01..60 s (default 0.5)\n"
        "  --json             one JSON object per device and line on stdout\n"
        "  -v, --verbose      say on stderr why each address that answered no device\n"
        "                     did not count (no answer, an AXIoE error, not gr-rdma)\n"
        "\n"
        "Exit status: 0 at least one device answered, 1 none, 2 usage error.\n",
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
        else if (flag == "-v" || flag == "--verbose")
            o.verbose = true;
        else if (flag == "--addr")
            o.addresses.push_back(flags.value_of(flag));
        else if (flag == "--broadcast")
            o.broadcasts.push_back(flags.value_of(flag));
        else if (flag == "--port")
            o.port = parse_port(flag, flags.value_of(flag));
        else if (flag == "--wait")
            o.wait_s = parse_seconds(flag, flags.value_of(flag), 0.01, 60);
        else
            throw usage_error("unknown flag '" + flag + "' (--help lists them)");
    }
    return o;
}

// After parsing every flag, so that --port applies wherever it stands.
std::vector<discovery_target> targets_of(const options& o)
{
    std::vector<discovery_target> targets;
    for (const auto& a : o.addresses)
        targets.push_back({ parse_device_address("--addr", a, o.port), false, "--addr" });
    for (const auto& b : o.broadcasts)
        targets.push_back({ socket_address(broadcast_address("--broadcast", b), o.port),
                            true,
                            "--broadcast " + b });
    if (targets.empty())
        targets.push_back({ socket_address(0x7F000001, o.port), false, "default" });
    return targets;
}

report_node describe(const found_device& d)
{
    const device_identity& id = d.identity;
    report_node n("gr-rdma device");
    n.add("type", id.type());
    n.add("addr", d.address.to_string());
    n.add_hex("serial", id.serial);
    n.add("map version", map_version_string(id.version));
    n.add("rx streams", uint64_t(id.num_rx_streams));
    n.add("links", uint64_t(id.num_links));
    return n;
}

void print_text(const std::vector<found_device>& devices)
{
    // As uhd_find_devices: one block per device.
    const std::string rule(50, '-');
    for (size_t i = 0; i < devices.size(); i++) {
        report_node n = describe(devices[i]);
        std::printf("%s\n-- gr-rdma device %zu\n%s\n", rule.c_str(), i, rule.c_str());
        for (const auto& f : n.fields())
            std::printf("    %s: %s\n", f.label.c_str(), f.text.c_str());
        std::printf("\n");
    }
}

void print_json(const std::vector<found_device>& devices)
{
    for (const auto& d : devices) {
        report_node n = describe(d);
        n.add_list("capabilities", capability_names(d.identity.capabilities));
        std::printf("%s\n", n.to_json().c_str());
    }
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
        discovery search(targets_of(o));
        search.run(std::chrono::duration<double>(o.wait_s));
        if (o.verbose)
            for (const auto& note : search.notes())
                std::fprintf(stderr, "gr-rdma-find: %s\n", note.c_str());
        const auto devices = search.devices();
        if (o.json)
            print_json(devices);
        else
            print_text(devices);
        if (devices.empty()) {
            std::fprintf(stderr,
                         "gr-rdma-find: no gr-rdma device answered%s\n",
                         o.verbose ? "" : " (-v says why for each address)");
            return exit_none;
        }
        std::fflush(stdout);
        return exit_found;
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gr-rdma-find: %s\n", e.what());
        return exit_usage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gr-rdma-find: %s\n", e.what());
        return exit_none;
    }
}
