/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../ring/ring_sizing.h"
#include "verbs_readiness.h"
#include <spdlog/fmt/fmt.h>
#include <algorithm>

namespace gr {
namespace rdma {
namespace nic {

namespace {

// rx_stream's defaults: payload = path MTU (at most 4096 bytes).
constexpr size_t default_payload = 4096;

std::string join(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::string port_label(const port_info& p)
{
    return fmt::format("{} port {}", p.device, p.port);
}

void add(readiness_report& r,
         severity level,
         const char* topic,
         std::string text,
         std::string fix = {})
{
    r.findings.push_back({ level, topic, std::move(text), std::move(fix) });
}

void assess_devices(const host_facts& f, readiness_report& r)
{
    const std::string netdev =
        f.default_interface.empty() ? "<interface>" : f.default_interface;
    if (f.devices.empty()) {
        std::string text = "no RDMA device: no RoCE NIC driver is bound and there is no "
                           "rxe (software RoCE) link";
        std::string fix;
        const std::string link = "sudo rdma link add rxe0 type rxe netdev " + netdev;
        switch (f.rxe) {
        case module_state::loaded:
        case module_state::builtin:
            fix = link;
            break;
        case module_state::loadable:
            fix = "sudo modprobe rdma_rxe && " + link;
            break;
        case module_state::missing:
            text += fmt::format("; the running kernel {} has no rdma_rxe module",
                                f.kernel_release);
            if (!f.rxe_kernels.empty())
                fix =
                    fmt::format("reboot into an installed kernel that has rdma_rxe ({}), "
                                "then: sudo modprobe rdma_rxe && {}; or use nic=soft",
                                join(f.rxe_kernels),
                                link);
            else
                fix =
                    "boot a kernel built with CONFIG_RDMA_RXE (Debian: sudo apt install "
                    "linux-image-amd64, then reboot into it), or use nic=soft";
            break;
        }
        add(r, severity::problem, "rdma", text, fix);
        return;
    }
    // Port problems only stop the host when no port is usable.
    const bool any_usable = std::any_of(
        f.ports.begin(), f.ports.end(), [](const port_report& p) { return p.usable(); });
    const severity level = any_usable ? severity::warning : severity::problem;
    for (const auto& pr : f.ports) {
        const port_info& p = pr.port;
        const std::string dev_if = p.netdev().empty() ? "<interface>" : p.netdev();
        if (pr.usable()) {
            for (const auto& g : pr.roce_v2_ipv4)
                r.usable.push_back(fmt::format("{} GID {} ({}, {})",
                                               port_label(p),
                                               g.index,
                                               ipv4_string(*g.ipv4()),
                                               g.netdev));
            add(r,
                severity::ok,
                "rdma",
                fmt::format("{} is ACTIVE with a RoCE v2 IPv4 GID: use nic=verbs,"
                            "nic_addr={}",
                            port_label(p),
                            ipv4_string(*pr.roce_v2_ipv4.front().ipv4())));
            continue;
        }
        if (p.link_layer != "Ethernet")
            add(r,
                severity::warning,
                "rdma",
                fmt::format("{} has link layer {}: gr-rdma needs RoCE (Ethernet)",
                            port_label(p),
                            p.link_layer.empty() ? "unknown" : p.link_layer));
        else if (!p.active())
            add(r,
                level,
                "rdma",
                fmt::format("{} is {} (physical state {})",
                            port_label(p),
                            p.state.empty() ? "in an unknown state" : p.state,
                            p.phys_state.empty() ? "unknown" : p.phys_state),
                "sudo ip link set " + dev_if +
                    " up   # and check the cable / switch port");
        else if (pr.roce_v2_ipv4.empty())
            add(r,
                level,
                "rdma",
                fmt::format("{} has no RoCE v2 GID with an IPv4 address", port_label(p)),
                "sudo ip addr add <a.b.c.d/len> dev " + dev_if);
    }
}

void assess_libibverbs(const host_facts& f, readiness_report& r)
{
    const bool have_devices = !f.devices.empty();
    if (f.providers.empty())
        add(r,
            have_devices ? severity::problem : severity::warning,
            "libibverbs",
            "no libibverbs providers (no *.driver file in /etc/libibverbs.d)",
            "sudo apt install rdma-core ibverbs-providers");
    if (!f.verbs.listed) {
        if (!have_devices) {
            add(r,
                severity::ok,
                "libibverbs",
                "libibverbs lists no device (" + f.verbs.error +
                    "), as expected without an RDMA device");
            return;
        }
        std::string fix = "sudo apt install rdma-core ibverbs-providers";
        if (!f.uverbs_class)
            fix = f.uverbs == module_state::missing
                      ? "boot a kernel with CONFIG_INFINIBAND_USER_ACCESS (ib_uverbs)"
                      : "sudo modprobe ib_uverbs";
        add(r,
            severity::problem,
            "libibverbs",
            "libibverbs cannot list the kernel's RDMA devices (" + f.verbs.error + ")" +
                (f.uverbs_class ? ""
                                : ": ib_uverbs, the userspace verbs interface, is not "
                                  "loaded"),
            fix);
        return;
    }
    for (const auto& dev : f.devices) {
        const auto it = f.verbs.devices.find(dev);
        if (it == f.verbs.devices.end())
            add(r,
                severity::problem,
                "libibverbs",
                "libibverbs does not list " + dev + ": no installed provider matches it",
                "sudo apt install ibverbs-providers");
        else if (!it->second.error.empty())
            add(r,
                severity::problem,
                "libibverbs",
                "libibverbs cannot open " + dev + ": " + it->second.error,
                "ls -l /dev/infiniband   # rdma-core's udev rules make uverbs devices "
                "usable by everyone: sudo apt install rdma-core");
    }
    if (!f.providers.empty())
        add(r,
            severity::ok,
            "libibverbs",
            fmt::format("libibverbs {}; providers: {}",
                        f.verbs.library.empty() ? "loaded" : f.verbs.library,
                        join(f.providers)));
}

void assess_memlock(const host_facts& f, readiness_report& r)
{
    const ring_requirement& n = f.need;
    const std::string need_text = fmt::format(
        "a {:g} MS/s ring of {}-byte samples with a {:g} s budget pins {} when "
        "registered and mlocks {} (both mappings)",
        n.sample_rate / 1e6,
        n.item_size,
        n.latency_s,
        format_size(n.pinned_bytes),
        format_size(n.locked_bytes));
    if (f.cap_ipc_lock) {
        r.memlock_ok = true;
        add(r,
            severity::ok,
            "memlock",
            "CAP_IPC_LOCK is effective (root?): RLIMIT_MEMLOCK does not apply");
        return;
    }
    const std::string limits = fmt::format("RLIMIT_MEMLOCK is {} (hard {})",
                                           format_size(f.memlock.soft),
                                           format_size(f.memlock.hard));
    // Raising the soft limit is enough when the hard one allows; else limits.conf.
    std::string fix;
    if (f.memlock.hard >= n.locked_bytes)
        fix = "ulimit -l " +
              std::string(f.memlock.hard == unlimited
                              ? "unlimited"
                              : std::to_string(f.memlock.hard / 1024)) +
              "   # in the shell that runs the flowgraph";
    else
        fix =
            "echo '* - memlock unlimited' | sudo tee /etc/security/limits.d/gr-rdma.conf"
            "   # then log in again; systemd services: LimitMEMLOCK=infinity";
    if (f.memlock.soft >= n.locked_bytes) {
        r.memlock_ok = true;
        add(r, severity::ok, "memlock", limits + ": enough; " + need_text);
    } else if (f.memlock.soft >= n.pinned_bytes) {
        r.memlock_ok = true;
        add(r,
            severity::warning,
            "memlock",
            limits +
                ": enough to register the ring, not to mlock it (the registration "
                "pins it anyway; the ring logs a warning); " +
                need_text,
            fix);
    } else {
        add(r,
            severity::problem,
            "memlock",
            limits + ": too small, memory registration fails (ENOMEM); " + need_text,
            fix);
    }
}

void assess_hugepages(const host_facts& f, readiness_report& r)
{
    const hugepage_pool& h = f.hugepages;
    const size_t two_mib = size_t(2) << 20;
    if (h.total < 0 || h.page_bytes == 0) {
        add(r,
            severity::warning,
            "hugepages",
            "the kernel has no hugetlb support: rings use 4 KiB pages");
        return;
    }
    const long need = static_cast<long>(f.need.hugepages);
    if (h.page_bytes != two_mib) {
        // Rings ask for 2 MiB pages explicitly (MFD_HUGE_2MB), not the default size.
        add(r,
            severity::warning,
            "hugepages",
            fmt::format(
                "the default hugepage size is {}; rings use the 2 MiB pool, which "
                "meminfo does not show (a ring needs {} pages)",
                format_size(h.page_bytes),
                need),
            fmt::format("echo {} | sudo tee "
                        "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
                        need));
        return;
    }
    if (h.free >= need) {
        add(r,
            severity::ok,
            "hugepages",
            fmt::format(
                "{} of {} 2 MiB hugepages free; a ring needs {}", h.free, h.total, need));
        return;
    }
    const long target = h.total + (need - std::max(h.free, 0L));
    add(r,
        severity::warning,
        "hugepages",
        fmt::format("{} of {} 2 MiB hugepages free, a ring needs {}: it falls back to "
                    "4 KiB pages (more TLB and NIC translation misses)",
                    std::max(h.free, 0L),
                    h.total,
                    need),
        fmt::format("sudo sysctl -w vm.nr_hugepages={}   # persistent: echo "
                    "vm.nr_hugepages={} | sudo tee /etc/sysctl.d/80-gr-rdma.conf",
                    target,
                    target));
}

} // namespace

ring_requirement
ring_requirement_for(double sample_rate, size_t item_size, double latency_s)
{
    ring_requirement n;
    n.sample_rate = sample_rate;
    n.item_size = item_size;
    n.latency_s = latency_s;
    n.ring_bytes = ring_bytes_for(
        sample_rate, item_size, latency_s, default_payload, ring_hugepage_bytes);
    n.hugepages = n.ring_bytes / ring_hugepage_bytes;
    n.pinned_bytes = n.ring_bytes;
    n.locked_bytes = 2 * uint64_t(n.ring_bytes);
    return n;
}

bool port_report::usable() const
{
    return port.active() && port.link_layer == "Ethernet" && !roce_v2_ipv4.empty() &&
           verbs_listed;
}

host_facts gather_host_facts(const host_roots& roots,
                             const libibverbs_view& verbs,
                             const memlock_limits& memlock,
                             const ring_requirement& need)
{
    host_facts f;
    const rdma_sysfs sysfs(roots.sys);
    f.kernel_release = kernel_release(roots);
    f.rxe = kernel_module_state(roots, f.kernel_release, "rdma_rxe");
    f.rxe_kernels = kernels_with_module(roots, "rdma_rxe");
    f.uverbs = kernel_module_state(roots, f.kernel_release, "ib_uverbs");
    f.uverbs_class = sysfs.has_uverbs();
    f.devices = sysfs.devices();
    for (auto& p : sysfs.all_ports()) {
        port_report pr;
        pr.numa_node = sysfs.numa_node(p.device, p.netdev());
        const auto dev = verbs.devices.find(p.device);
        pr.verbs_listed = dev != verbs.devices.end() && dev->second.error.empty();
        if (dev != verbs.devices.end()) {
            const auto mtu = dev->second.active_mtu.find(p.port);
            pr.active_mtu = mtu == dev->second.active_mtu.end() ? 0 : mtu->second;
        }
        for (const auto& g : p.gids)
            if (g.roce_v2() && g.ipv4())
                pr.roce_v2_ipv4.push_back(g);
        pr.port = std::move(p);
        f.ports.push_back(std::move(pr));
    }
    f.verbs = verbs;
    f.providers = verbs_providers(roots.etc);
    f.default_interface = default_route_interface(roots.proc);
    f.hugepages = read_hugepages(roots.proc);
    f.memlock = memlock;
    f.cap_ipc_lock = has_cap_ipc_lock(roots.proc);
    f.need = need;
    return f;
}

const char* to_string(severity s)
{
    switch (s) {
    case severity::ok:
        return "ok";
    case severity::warning:
        return "warning";
    case severity::problem:
        return "problem";
    }
    return "?";
}

int readiness_report::problems() const
{
    return static_cast<int>(
        std::count_if(findings.begin(), findings.end(), [](const finding& x) {
            return x.level == severity::problem;
        }));
}

readiness_report assess(const host_facts& facts)
{
    readiness_report r;
    assess_devices(facts, r);
    assess_libibverbs(facts, r);
    assess_memlock(facts, r);
    assess_hugepages(facts, r);
    return r;
}

std::string format_size(uint64_t bytes)
{
    if (bytes == unlimited)
        return "unlimited";
    constexpr uint64_t kib = 1024, mib = kib << 10, gib = mib << 10;
    if (bytes >= gib && bytes % gib == 0)
        return fmt::format("{} GiB", bytes / gib);
    if (bytes >= mib && bytes % mib == 0)
        return fmt::format("{} MiB", bytes / mib);
    if (bytes >= mib)
        return fmt::format("{:.1f} MiB", double(bytes) / mib);
    if (bytes >= kib && bytes % kib == 0)
        return fmt::format("{} KiB", bytes / kib);
    return fmt::format("{} bytes", bytes);
}

} // namespace nic
} // namespace rdma
} // namespace gr
