/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-doctor: is this host ready for the verbs backend (nic=verbs)? It lists the
// RDMA devices, ports and RoCE v2 GIDs, checks the kernel (rdma_rxe, ib_uverbs),
// libibverbs and its providers, hugepages and RLIMIT_MEMLOCK against what a ring needs,
// and prints the command that fixes each problem (docs/doctor.md).
//
// Exit status: 0 ready, 1 not ready, 2 usage error, 3 the doctor itself failed.
// No GNU Radio: it runs in the minimal rxe guest too.

#include "nic/verbs_readiness.h"
#include <gnuradio/rdma/sample_format.h>
#include <spdlog/fmt/fmt.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

using namespace gr::rdma;
using namespace gr::rdma::nic;

namespace {

constexpr int exit_ready = 0, exit_not_ready = 1, exit_usage = 2, exit_failed = 3;

struct options {
    bool json = false;
    double rate = 20e6;
    std::string format = "fc32";
    double latency = 0.1;
    std::string root; // prefix of /sys, /proc, /etc, /lib/modules (tests)
};

void usage(FILE* to)
{
    std::fputs(
        "usage: gr-rdma-doctor [--json] [--rate S/s] [--format fc32|sc16] [--latency s]\n"
        "                      [--root DIR]\n"
        "\n"
        "Checks whether this host can run gr-rdma's verbs backend (nic=verbs) and "
        "prints\n"
        "the command that fixes each problem found.\n"
        "\n"
        "  --json        machine-readable report on stdout\n"
        "  --rate        sample rate of the ring to check memory for (default 20e6)\n"
        "  --format      its sample format (default fc32, 8 bytes per sample)\n"
        "  --latency     its latency budget in seconds (default 0.1, as latency=)\n"
        "  --root DIR    read sys/, proc/, etc/, lib/modules/ under DIR (tests)\n"
        "\n"
        "Exit status: 0 ready, 1 not ready, 2 usage error, 3 the check itself failed.\n",
        to);
}

//! Parse argv into \p o; false (after a message) on a usage error.
bool parse(int argc, char** argv, options& o, bool& help)
{
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "gr-rdma-doctor: %s needs a value\n", name);
                return nullptr;
            }
            return argv[++i];
        };
        if (a == "--json") {
            o.json = true;
        } else if (a == "--help" || a == "-h") {
            help = true;
        } else if (a == "--rate" || a == "--latency") {
            const char* v = value(a.c_str());
            if (!v)
                return false;
            char* end;
            const double d = std::strtod(v, &end);
            if (*end || !(d > 0)) {
                std::fprintf(stderr,
                             "gr-rdma-doctor: %s %s: expected a positive number\n",
                             a.c_str(),
                             v);
                return false;
            }
            (a == "--rate" ? o.rate : o.latency) = d;
        } else if (a == "--format" || a == "--root") {
            const char* v = value(a.c_str());
            if (!v)
                return false;
            (a == "--format" ? o.format : o.root) = v;
        } else {
            std::fprintf(stderr, "gr-rdma-doctor: unknown argument %s\n", a.c_str());
            return false;
        }
    }
    return true;
}

std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\')
            out += std::string("\\") + c;
        else if (static_cast<unsigned char>(c) < 0x20)
            out += fmt::format("\\u{:04x}", c);
        else
            out += c;
    }
    return out + "\"";
}

std::string json_bytes(uint64_t v) { return v == unlimited ? "null" : std::to_string(v); }

std::string json_report(const host_facts& f, const readiness_report& r, int status)
{
    std::string devs;
    for (const auto& p : f.ports) {
        std::string gids;
        for (const auto& g : p.roce_v2_ipv4)
            gids += fmt::format("{}{{\"index\":{},\"address\":{},\"netdev\":{}}}",
                                gids.empty() ? "" : ",",
                                g.index,
                                json_string(ipv4_string(*g.ipv4())),
                                json_string(g.netdev));
        devs += fmt::format(
            "{}{{\"device\":{},\"port\":{},\"state\":{},\"phys_state\":{},"
            "\"link_layer\":{},\"active_mtu\":{},\"netdev\":{},\"numa_node\":{},"
            "\"libibverbs_lists\":{},\"usable\":{},\"roce_v2_ipv4_gids\":[{}]}}",
            devs.empty() ? "" : ",",
            json_string(p.port.device),
            p.port.port,
            json_string(p.port.state),
            json_string(p.port.phys_state),
            json_string(p.port.link_layer),
            p.active_mtu,
            json_string(p.port.netdev()),
            p.numa_node,
            p.verbs_listed,
            p.usable(),
            gids);
    }
    std::string providers, findings, usable;
    for (const auto& p : f.providers)
        providers += (providers.empty() ? "" : ",") + json_string(p);
    for (const auto& u : r.usable)
        usable += (usable.empty() ? "" : ",") + json_string(u);
    for (const auto& x : r.findings)
        findings += fmt::format("{}{{\"level\":{},\"topic\":{},\"text\":{},\"fix\":{}}}",
                                findings.empty() ? "" : ",",
                                json_string(to_string(x.level)),
                                json_string(x.topic),
                                json_string(x.text),
                                json_string(x.fix));
    return fmt::format(
        "{{\"ready\":{},\"exit_status\":{},\"usable\":[{}],\"ports\":[{}],"
        "\"kernel\":{{\"release\":{},\"rdma_rxe\":{},\"ib_uverbs\":{}}},"
        "\"libibverbs\":{{\"lists_devices\":{},\"error\":{},\"library\":{},"
        "\"providers\":[{}]}},"
        "\"hugepages\":{{\"total\":{},\"free\":{},\"page_bytes\":{}}},"
        "\"memlock\":{{\"soft\":{},\"hard\":{},\"cap_ipc_lock\":{}}},"
        "\"ring\":{{\"sample_rate\":{},\"item_size\":{},\"latency\":{},\"bytes\":{},"
        "\"hugepages\":{},\"pinned_bytes\":{},\"locked_bytes\":{}}},"
        "\"findings\":[{}]}}\n",
        r.ready(),
        status,
        usable,
        devs,
        json_string(f.kernel_release),
        json_string(to_string(f.rxe)),
        json_string(to_string(f.uverbs)),
        f.verbs.listed,
        json_string(f.verbs.error),
        json_string(f.verbs.library),
        providers,
        f.hugepages.total,
        f.hugepages.free,
        f.hugepages.page_bytes,
        json_bytes(f.memlock.soft),
        json_bytes(f.memlock.hard),
        f.cap_ipc_lock,
        f.need.sample_rate,
        f.need.item_size,
        f.need.latency_s,
        f.need.ring_bytes,
        f.need.hugepages,
        f.need.pinned_bytes,
        f.need.locked_bytes,
        findings);
}

void print_text(const host_facts& f, const readiness_report& r, const options& o)
{
    std::printf("gr-rdma-doctor: can this host run nic=verbs?\n\nRDMA devices "
                "(/sys/class/infiniband)\n");
    if (f.ports.empty())
        std::printf("  none\n");
    for (const auto& p : f.ports) {
        const port_info& i = p.port;
        std::printf("  %s port %u: %s (%s), link layer %s, active MTU %s, netdev %s, "
                    "NUMA node %s%s\n",
                    i.device.c_str(),
                    i.port,
                    i.state.c_str(),
                    i.phys_state.c_str(),
                    i.link_layer.c_str(),
                    p.active_mtu ? std::to_string(p.active_mtu).c_str() : "?",
                    i.netdev().empty() ? "none" : i.netdev().c_str(),
                    p.numa_node < 0 ? "unknown" : std::to_string(p.numa_node).c_str(),
                    p.verbs_listed ? "" : " [not usable through libibverbs]");
        for (const auto& g : p.roce_v2_ipv4)
            std::printf("    GID %u: %s, RoCE v2, %s\n",
                        g.index,
                        ipv4_string(*g.ipv4()).c_str(),
                        g.netdev.c_str());
        if (p.roce_v2_ipv4.empty())
            std::printf("    no RoCE v2 GID with an IPv4 address (%zu GIDs in all)\n",
                        i.gids.size());
    }
    std::string providers;
    for (const auto& p : f.providers)
        providers += (providers.empty() ? "" : " ") + p;
    std::printf("\nKernel %s: rdma_rxe %s, ib_uverbs %s\n",
                f.kernel_release.c_str(),
                to_string(f.rxe),
                to_string(f.uverbs));
    std::printf("libibverbs %s: %s\n  providers: %s\n",
                f.verbs.library.empty() ? "" : f.verbs.library.c_str(),
                f.verbs.listed
                    ? fmt::format("lists {} device(s)", f.verbs.devices.size()).c_str()
                    : f.verbs.error.c_str(),
                providers.empty() ? "none" : providers.c_str());
    std::printf("Hugepages: %ld of %ld free (%s)\n",
                f.hugepages.free,
                f.hugepages.total,
                format_size(f.hugepages.page_bytes).c_str());
    std::printf("Memlock: soft %s, hard %s, CAP_IPC_LOCK %s\n",
                format_size(f.memlock.soft).c_str(),
                format_size(f.memlock.hard).c_str(),
                f.cap_ipc_lock ? "yes" : "no");
    std::printf("Ring checked: %g MS/s of %s, latency %g s: %s (%zu hugepages), pins %s, "
                "mlocks %s\n",
                o.rate / 1e6,
                o.format.c_str(),
                o.latency,
                format_size(f.need.ring_bytes).c_str(),
                f.need.hugepages,
                format_size(f.need.pinned_bytes).c_str(),
                format_size(f.need.locked_bytes).c_str());

    std::printf("\nFindings\n");
    for (const auto& x : r.findings) {
        const char* tag = x.level == severity::problem   ? "PROBLEM"
                          : x.level == severity::warning ? "warning"
                                                         : "ok";
        std::printf("  %-8s %s: %s\n", tag, x.topic.c_str(), x.text.c_str());
        if (!x.fix.empty())
            std::printf("           fix: %s\n", x.fix.c_str());
    }
    if (r.ready())
        std::printf("\nResult: READY for nic=verbs (%s)\n", r.usable.front().c_str());
    else
        std::printf("\nResult: NOT READY: %d problem(s) above; run the fixes in order "
                    "and check again\n",
                    r.problems());
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    bool help = false;
    if (!parse(argc, argv, o, help)) {
        usage(stderr);
        return exit_usage;
    }
    if (help) {
        usage(stdout);
        return exit_ready;
    }
    try {
        ring_requirement need;
        try {
            need = ring_requirement_for(
                o.rate, item_size(parse_sample_format(o.format)), o.latency);
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "gr-rdma-doctor: %s\n", e.what());
            return exit_usage;
        }
        host_roots roots;
        if (!o.root.empty()) {
            roots.sys = o.root + "/sys";
            roots.proc = o.root + "/proc";
            roots.etc = o.root + "/etc";
            roots.modules = o.root + "/lib/modules";
        }
        const host_facts facts =
            gather_host_facts(roots, probe_libibverbs(), read_memlock_limits(), need);
        const readiness_report report = assess(facts);
        const int status = report.ready() ? exit_ready : exit_not_ready;
        if (o.json)
            std::fputs(json_report(facts, report, status).c_str(), stdout);
        else
            print_text(facts, report, o);
        return status;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gr-rdma-doctor: the check failed: %s\n", e.what());
        return exit_failed;
    }
}
