/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-emu: the SDR emulator as a daemon. Hosts reach it with
// type=remote,addr=<control address> in their device args.

#include "emu/emulator.h"
#include "util/parse_number.h"
#include <signal.h>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void usage(const char* argv0)
{
    std::fprintf(
        stderr,
        "usage: %s [--control IP:PORT] [--link IP] [--wire udp|raw] [--streams N] "
        "[--fifo-ms MS] [--max-burst-words N]\n"
        "       [--serial N] [--master-clock HZ] [--links N]\n"
        "  --control  AXIoE address to listen on (default 127.0.0.1:50100: this host\n"
        "             only). To serve hosts elsewhere give the address of the link to\n"
        "             them, ideally a dedicated interface or VLAN; 0.0.0.0 listens on\n"
        "             every interface (docs/security.md)\n"
        "  --link     IPv4 address the RoCEv2 frames leave from (default 127.0.0.1);\n"
        "             A+B+...: one link per address, link 0 at A (docs/links.md)\n"
        "  --links    device links, 1..16 (default 1, or one per --link address):\n"
        "             with one --link address, links 1.. leave from it too, each\n"
        "             from a port of its own\n"
        "  --wire     how frames are sent (default udp):\n"
        "               udp  a UDP socket; for the soft NIC (nic=soft) only\n"
        "               raw  complete IPv4 frames by raw socket, accepted by real\n"
        "                    RoCEv2 receivers (Linux rxe, RDMA NICs; nic=verbs).\n"
        "                    --link must be an address of the sending interface;\n"
        "                    RoCEv2 comes back on its port 4791. Needs CAP_NET_RAW:\n"
        "                    run as root or setcap cap_net_raw+ep gr-rdma-emu\n"
        "  --streams  number of RX streams, 1..16 (default 1)\n"
        "  --fifo-ms  how late it may send before dropping samples (overflow,\n"
        "             counted and logged), 0.1..10000 (default 30)\n"
        "  --serial   the serial number it reports (ID_SERIAL), 0..2^64-1, decimal or\n"
        "             0x-hex (default 0x5eed0001): tells daemons apart in gr-rdma-find\n"
        "  --max-burst-words  longest AXIoE burst it takes, 1..256 (default 256);\n"
        "             longer ones are answered BAD_REQUEST, as by a device with a\n"
        "             narrower register bus (ID_MAX_BURST_WORDS)\n"
        "  --master-clock  the converters' clock, Hz, 0..4294967295 (default 0): rates\n"
        "             are HZ / d for a whole d, and a rate asked for reads back as the\n"
        "             nearest of them (docs/radio.md); 0: every rational rate exactly\n"
        "Runs until SIGINT or SIGTERM, then exits 0. Exit status 2: a usage error;\n"
        "1: the emulator could not start (e.g. the address is in use).\n",
        argv0);
}

// A command line that cannot work: one line naming the flag, exit 2 (as argparse does).
struct usage_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

[[noreturn]] void
bad_flag(const std::string& flag, const std::string& value, const std::string& expected)
{
    throw usage_error(flag + " " + value + " is invalid: expected " + expected);
}

unsigned parse_links(const std::string& value)
{
    // The emulator's limit; the register map addresses 16 links (0x1000 + 0x100 n).
    const auto n = gr::rdma::parse_uint(value);
    if (!n || *n < 1 || *n > 16)
        bad_flag("--links", value, "an integer 1..16");
    return static_cast<unsigned>(*n);
}

unsigned parse_streams(const std::string& value)
{
    // The register map addresses 16 RX streams (0x2000 + 0x100 s).
    const auto n = gr::rdma::parse_uint(value);
    if (!n || *n < 1 || *n > 16)
        bad_flag("--streams", value, "an integer 1..16");
    return static_cast<unsigned>(*n);
}

uint32_t parse_fifo_us(const std::string& value)
{
    // RX_FIFO_US is 32-bit microseconds; beyond 10 s no latency budget a host may
    // choose (at most 60 s, docs/device-args.md) leaves room for the grace it needs.
    const auto ms = gr::rdma::parse_double(value);
    if (!ms || *ms < 0.1 || *ms > 10000)
        bad_flag("--fifo-ms", value, "milliseconds 0.1..10000");
    return static_cast<uint32_t>(std::lround(*ms * 1000));
}

uint64_t parse_serial(const std::string& value)
{
    const auto n = gr::rdma::parse_uint(value);
    if (!n)
        bad_flag("--serial", value, "an integer 0..18446744073709551615 (or 0x-hex)");
    return *n;
}

uint32_t parse_master_clock(const std::string& value)
{
    // RX_RATE_NUM is 32 bits: M / d is written as NUM = M, DEN = d.
    const auto n = gr::rdma::parse_uint(value);
    if (!n || *n > UINT32_MAX)
        bad_flag("--master-clock",
                 value,
                 "Hz, an integer 0..4294967295 (0: every rational rate exactly)");
    return static_cast<uint32_t>(*n);
}

size_t parse_max_burst_words(const std::string& value)
{
    // AXIoE bursts are 1..256 words (docs/axioe.md §5).
    const auto n = gr::rdma::parse_uint(value);
    if (!n || *n < 1 || *n > 256)
        bad_flag("--max-burst-words", value, "an integer 1..256");
    return static_cast<size_t>(*n);
}

gr::rdma::socket_address
parse_address(const std::string& flag, const std::string& value, uint16_t default_port)
{
    try {
        return gr::rdma::socket_address::parse(value, default_port);
    } catch (const std::invalid_argument&) {
        bad_flag(flag, value, "an IPv4 address a.b.c.d or a.b.c.d:port, port 0..65535");
    }
}

// --link A or A+B+...: the addresses of links 0, 1, ...
std::vector<gr::rdma::socket_address> parse_link_addresses(const std::string& value)
{
    std::vector<gr::rdma::socket_address> out;
    size_t from = 0;
    for (;;) {
        const size_t plus = value.find('+', from);
        const std::string one = value.substr(from, plus - from);
        if (one.empty())
            bad_flag("--link", value, "IPv4 addresses a.b.c.d[:port] separated by +");
        out.push_back(parse_address("--link", one, 0));
        if (plus == std::string::npos)
            break;
        from = plus + 1;
    }
    if (out.size() > 16)
        bad_flag("--link", value, "at most 16 addresses (links)");
    return out;
}

gr::rdma::emu::wire_type parse_wire(const std::string& value)
{
    // inproc hands frames to a NIC in the same process: a daemon has none.
    if (value != "udp" && value != "raw")
        bad_flag("--wire", value, "udp or raw");
    return gr::rdma::emu::parse_wire_type(value);
}

} // namespace

int main(int argc, char** argv)
{
    gr::rdma::emu::emulator_config config;
    unsigned links = 0; // --links; 0: one per --link address
    std::vector<gr::rdma::socket_address> link_addresses{ config.link };
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
            const bool known = arg == "--control" || arg == "--link" || arg == "--wire" ||
                               arg == "--streams" || arg == "--fifo-ms" ||
                               arg == "--serial" || arg == "--max-burst-words" ||
                               arg == "--master-clock" || arg == "--links";
            if (!known || i + 1 >= argc) {
                usage(argv[0]);
                std::fprintf(stderr,
                             known ? "gr-rdma-emu: %s needs a value\n"
                                   : "gr-rdma-emu: unknown flag '%s'\n",
                             arg.c_str());
                return 2;
            }
            const std::string value = argv[++i];
            if (arg == "--control")
                config.control = parse_address(arg, value, 50100);
            else if (arg == "--link")
                link_addresses = parse_link_addresses(value);
            else if (arg == "--wire")
                config.wire = parse_wire(value);
            else if (arg == "--streams")
                config.rx_streams = parse_streams(value);
            else if (arg == "--serial")
                config.serial = parse_serial(value);
            else if (arg == "--max-burst-words")
                config.max_burst_words = parse_max_burst_words(value);
            else if (arg == "--master-clock")
                config.master_clock_hz = parse_master_clock(value);
            else if (arg == "--links")
                links = parse_links(value);
            else
                config.fifo_us = parse_fifo_us(value);
        }
        // As type=emu,links=N: every link its own socket at the same address; or one
        // link per address.
        if (links && link_addresses.size() > 1 && links != link_addresses.size())
            throw usage_error("--links " + std::to_string(links) + " and --link with " +
                              std::to_string(link_addresses.size()) +
                              " addresses disagree: give one of them, or as many "
                              "links as addresses");
        if (!links)
            links = static_cast<unsigned>(link_addresses.size());
        config.link = link_addresses[0];
        for (unsigned n = 1; n < links; n++)
            config.more_links.push_back(
                link_addresses.size() > 1
                    ? link_addresses[n]
                    : gr::rdma::socket_address(config.link.ip(), 0));
        // Block the stop signals before any thread starts, so only sigwait sees them.
        sigset_t stop_signals;
        sigemptyset(&stop_signals);
        sigaddset(&stop_signals, SIGINT);
        sigaddset(&stop_signals, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

        gr::rdma::emu::emulator device(config);
        std::printf(
            "gr-rdma-emu: AXIoE on %s, link %s (%s wire)%s, %u RX stream(s), "
            "max burst %zu word(s)%s\n",
            device.control_address().to_string().c_str(),
            device.link_address().to_string().c_str(),
            to_string(config.wire),
            links > 1 ? (", " + std::to_string(links) + " links").c_str() : "",
            config.rx_streams,
            config.max_burst_words,
            config.master_clock_hz
                ? (", master clock " + std::to_string(config.master_clock_hz) + " Hz")
                      .c_str()
                : "");
        std::fflush(stdout);
        int received = 0;
        sigwait(&stop_signals, &received);
        std::printf("gr-rdma-emu: %s, stopping\n", strsignal(received));
        return 0;
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gr-rdma-emu: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gr-rdma-emu: %s\n", e.what());
        return 1;
    }
}
