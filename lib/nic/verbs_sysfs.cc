/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "verbs_sysfs.h"
#include <spdlog/fmt/fmt.h>
#include <system_error>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace fs = std::filesystem;

namespace {

//! Directory entries of \p dir (names only); empty when it is missing.
std::vector<std::string> list_dir(const std::string& dir)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<unsigned long long> parse_unsigned(const std::string& text)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

//! Numeric names of \p dir, ascending (ports/, gids/).
std::vector<unsigned> numeric_entries(const std::string& dir)
{
    std::vector<unsigned> out;
    for (const auto& name : list_dir(dir))
        if (auto n = parse_unsigned(name); n && *n <= 0xFFFFFFFFu)
            out.push_back(static_cast<unsigned>(*n));
    std::sort(out.begin(), out.end());
    return out;
}

//! "4: ACTIVE" -> "ACTIVE"; text without a "N: " prefix is returned as it is.
std::string strip_code(const std::string& text)
{
    const auto colon = text.find(": ");
    return colon == std::string::npos ? text : text.substr(colon + 2);
}

std::optional<int> read_numa_file(const std::string& path)
{
    const auto text = read_sysfs_line(path);
    if (!text)
        return std::nullopt;
    try {
        return std::stoi(*text);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

//! A name for a new rxe device that does not clash with the existing ones.
std::string free_rxe_name(const std::vector<std::string>& devices)
{
    for (unsigned i = 0;; i++) {
        const std::string name = "rxe" + std::to_string(i);
        if (std::find(devices.begin(), devices.end(), name) == devices.end())
            return name;
    }
}

//! "rxe0 port 1 [veth0]: 192.0.2.1, 198.51.100.7; mlx5_0 port 1: none" for errors.
std::string searched_summary(const rdma_sysfs& sysfs)
{
    std::string out;
    for (const auto& p : sysfs.all_ports()) {
        if (!out.empty())
            out += "; ";
        out += fmt::format("{} port {}", p.device, p.port);
        if (!p.netdev().empty())
            out += " [" + p.netdev() + "]";
        out += " " + (p.state.empty() ? std::string("?") : p.state) + ":";
        std::string addrs;
        for (const auto& g : p.gids)
            if (g.roce_v2() && g.ipv4())
                addrs += (addrs.empty() ? " " : ", ") + ipv4_string(*g.ipv4());
        out += addrs.empty() ? " no RoCE v2 IPv4 GID" : addrs;
    }
    return out;
}

std::string no_device_text(const rdma_sysfs& sysfs)
{
    return fmt::format("no RDMA device in {}/class/infiniband (the kernel has no RDMA "
                       "driver bound: no RoCE NIC, no rxe link)",
                       sysfs.root());
}

constexpr const char* doctor_hint = "run gr-rdma-doctor to check this host";

} // namespace

gid_bytes gid_from_ipv4(uint32_t ip)
{
    gid_bytes g{};
    g[10] = 0xFF;
    g[11] = 0xFF;
    for (int i = 0; i < 4; i++)
        g[12 + i] = static_cast<uint8_t>(ip >> (24 - 8 * i));
    return g;
}

std::optional<uint32_t> ipv4_from_gid(const gid_bytes& gid)
{
    for (int i = 0; i < 10; i++)
        if (gid[i] != 0)
            return std::nullopt;
    if (gid[10] != 0xFF || gid[11] != 0xFF)
        return std::nullopt;
    return uint32_t(gid[12]) << 24 | uint32_t(gid[13]) << 16 | uint32_t(gid[14]) << 8 |
           gid[15];
}

std::optional<gid_bytes> parse_gid(const std::string& text)
{
    // Exactly the kernel's "%pI6": 8 groups of 4 hex digits separated by ':'.
    if (text.size() != 39)
        return std::nullopt;
    gid_bytes g{};
    for (int group = 0; group < 8; group++) {
        const size_t at = static_cast<size_t>(group) * 5;
        if (group < 7 && text[at + 4] != ':')
            return std::nullopt;
        unsigned value = 0;
        for (size_t i = at; i < at + 4; i++) {
            const char c = text[i];
            unsigned digit;
            if (c >= '0' && c <= '9')
                digit = static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                digit = static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                digit = static_cast<unsigned>(c - 'A' + 10);
            else
                return std::nullopt;
            value = value << 4 | digit;
        }
        g[2 * group] = static_cast<uint8_t>(value >> 8);
        g[2 * group + 1] = static_cast<uint8_t>(value);
    }
    return g;
}

std::string format_gid(const gid_bytes& gid)
{
    std::string out;
    for (int group = 0; group < 8; group++)
        out += fmt::format(
            "{}{:02x}{:02x}", group ? ":" : "", gid[2 * group], gid[2 * group + 1]);
    return out;
}

std::string ipv4_string(uint32_t ip)
{
    return fmt::format(
        "{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
}

std::optional<std::string> read_sysfs_line(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line))
        return std::nullopt;
    while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
        line.pop_back();
    return line;
}

std::string port_info::netdev() const
{
    for (const auto& g : gids)
        if (!g.netdev.empty())
            return g.netdev;
    return {};
}

std::string rdma_sysfs::device_dir(const std::string& device) const
{
    return d_root + "/class/infiniband/" + device;
}

std::vector<std::string> rdma_sysfs::devices() const
{
    return list_dir(d_root + "/class/infiniband");
}

std::vector<unsigned> rdma_sysfs::ports(const std::string& device) const
{
    return numeric_entries(device_dir(device) + "/ports");
}

port_info rdma_sysfs::port(const std::string& device, unsigned port) const
{
    port_info info;
    info.device = device;
    info.port = port;
    const std::string dir = device_dir(device) + "/ports/" + std::to_string(port);
    info.state = strip_code(read_sysfs_line(dir + "/state").value_or(""));
    info.phys_state = strip_code(read_sysfs_line(dir + "/phys_state").value_or(""));
    info.link_layer = read_sysfs_line(dir + "/link_layer").value_or("");
    constexpr gid_bytes zero{};
    for (unsigned i : numeric_entries(dir + "/gids")) {
        const auto text = read_sysfs_line(dir + "/gids/" + std::to_string(i));
        const auto gid = text ? parse_gid(*text) : std::nullopt;
        if (!gid || *gid == zero)
            continue; // unused slot
        gid_entry e;
        e.index = i;
        e.gid = *gid;
        const std::string attr = "/gid_attrs/";
        e.type = read_sysfs_line(dir + attr + "types/" + std::to_string(i)).value_or("");
        e.netdev =
            read_sysfs_line(dir + attr + "ndevs/" + std::to_string(i)).value_or("");
        info.gids.push_back(std::move(e));
    }
    return info;
}

std::vector<port_info> rdma_sysfs::all_ports() const
{
    std::vector<port_info> out;
    for (const auto& dev : devices())
        for (unsigned p : ports(dev))
            out.push_back(port(dev, p));
    return out;
}

int rdma_sysfs::numa_node(const std::string& device, const std::string& netdev) const
{
    // The file exists but says -1 on machines without NUMA; fall through then.
    if (auto n = read_numa_file(device_dir(device) + "/device/numa_node"); n && *n >= 0)
        return *n;
    if (!netdev.empty()) {
        const std::string path = d_root + "/class/net/" + netdev + "/device/numa_node";
        if (auto n = read_numa_file(path); n && *n >= 0)
            return *n;
    }
    return -1;
}

counters rdma_sysfs::hw_counters(const std::string& device, unsigned port) const
{
    std::string dir =
        device_dir(device) + "/ports/" + std::to_string(port) + "/hw_counters";
    if (!fs::is_directory(dir))
        dir = device_dir(device) + "/hw_counters";
    counters out;
    for (const auto& name : list_dir(dir)) {
        if (name == "lifespan")
            continue; // a setting (how long values are cached), not a counter
        if (auto v = parse_unsigned(read_sysfs_line(dir + "/" + name).value_or("")))
            out[name] = *v;
    }
    return out;
}

std::chrono::milliseconds rdma_sysfs::hw_counters_lifespan(const std::string& device,
                                                           unsigned port) const
{
    for (const std::string& dir :
         { device_dir(device) + "/ports/" + std::to_string(port) + "/hw_counters",
           device_dir(device) + "/hw_counters" }) {
        if (auto v = parse_unsigned(read_sysfs_line(dir + "/lifespan").value_or("")))
            return std::chrono::milliseconds(*v);
    }
    return std::chrono::milliseconds(0);
}

bool rdma_sysfs::has_uverbs() const
{
    return fs::is_directory(d_root + "/class/infiniband_verbs");
}

std::vector<roce_gid_location> rdma_sysfs::roce_v2_ipv4_gids() const
{
    std::vector<roce_gid_location> out;
    for (const auto& p : all_ports()) {
        for (const auto& g : p.gids) {
            if (!g.roce_v2() || !g.ipv4())
                continue;
            roce_gid_location loc;
            loc.device = p.device;
            loc.port = p.port;
            loc.gid_index = g.index;
            loc.ipv4 = *g.ipv4();
            loc.netdev = g.netdev;
            loc.port_active = p.active();
            out.push_back(std::move(loc));
        }
    }
    return out;
}

namespace {

//! The first of \p found that \p match accepts, on an ACTIVE port if there is one.
template <typename Match>
std::optional<roce_gid_location> pick(const std::vector<roce_gid_location>& found,
                                      Match match)
{
    std::optional<roce_gid_location> best;
    for (const auto& loc : found) {
        if (!match(loc))
            continue;
        if (!best || (loc.port_active && !best->port_active))
            best = loc;
    }
    return best;
}

} // namespace

roce_gid_location
find_roce_gid_by_ip(const rdma_sysfs& sysfs, uint32_t ip, const std::string& netdev_hint)
{
    const auto found = pick(sysfs.roce_v2_ipv4_gids(),
                            [ip](const roce_gid_location& l) { return l.ipv4 == ip; });
    if (found)
        return *found;
    if (ip >> 24 == 127)
        throw std::runtime_error(fmt::format(
            "{} is a loopback address, and RoCE needs an Ethernet interface: give "
            "nic_addr= "
            "the IPv4 address of an interface with an RDMA device (for type=emu, set "
            "link_addr= to a peer on that network too); {}",
            ipv4_string(ip),
            doctor_hint));
    const auto devices = sysfs.devices();
    const std::string netdev =
        netdev_hint.empty() ? "<interface with " + ipv4_string(ip) + ">" : netdev_hint;
    const std::string add =
        fmt::format("`sudo modprobe rdma_rxe && sudo rdma link add {} "
                    "type rxe netdev {}` (software RoCE)",
                    free_rxe_name(devices),
                    netdev);
    if (devices.empty())
        throw std::runtime_error(
            fmt::format("no RDMA device has a RoCE v2 GID for {}: {}. "
                        "Fix: {}, or use nic=soft; {}",
                        ipv4_string(ip),
                        no_device_text(sysfs),
                        add,
                        doctor_hint));
    // The address may be there as a RoCE v1 GID only: say so, it is a different fix.
    for (const auto& p : sysfs.all_ports())
        for (const auto& g : p.gids)
            if (g.ipv4() == ip && !g.roce_v2())
                throw std::runtime_error(fmt::format(
                    "{} port {} holds {} only as a \"{}\" GID (index {}); gr-rdma needs "
                    "RoCE v2 (UDP port 4791). Check the NIC's RoCE mode; {}",
                    p.device,
                    p.port,
                    ipv4_string(ip),
                    g.type,
                    g.index,
                    doctor_hint));
    throw std::runtime_error(
        fmt::format("no RDMA device has a RoCE v2 GID for {} "
                    "(searched {}). Fix: add {} to the interface of an "
                    "RDMA device, give nic_addr= one of the addresses "
                    "above, or add a device with {}; {}",
                    ipv4_string(ip),
                    searched_summary(sysfs),
                    ipv4_string(ip),
                    add,
                    doctor_hint));
}

roce_gid_location find_roce_gid_by_interface(const rdma_sysfs& sysfs,
                                             const std::string& ifname)
{
    const auto all = sysfs.roce_v2_ipv4_gids();
    const auto found =
        pick(all, [&ifname](const roce_gid_location& l) { return l.netdev == ifname; });
    if (found)
        return *found;
    const auto devices = sysfs.devices();
    const std::string add = fmt::format(
        "`sudo modprobe rdma_rxe && sudo rdma link add {} type rxe netdev {}`",
        free_rxe_name(devices),
        ifname);
    if (devices.empty())
        throw std::runtime_error(fmt::format("no RDMA device is bound to {}: {}. Fix: {} "
                                             "(software RoCE), or use nic=soft; {}",
                                             ifname,
                                             no_device_text(sysfs),
                                             add,
                                             doctor_hint));
    // Bound, but without an IPv4 RoCE v2 GID: the interface has no IPv4 address.
    for (const auto& p : sysfs.all_ports())
        for (const auto& g : p.gids)
            if (g.netdev == ifname)
                throw std::runtime_error(fmt::format(
                    "{} port {} is bound to {} but has no RoCE v2 GID with an IPv4 "
                    "address: give {} one (`sudo ip addr add <a.b.c.d/len> dev {}`); {}",
                    p.device,
                    p.port,
                    ifname,
                    ifname,
                    ifname,
                    doctor_hint));
    throw std::runtime_error(fmt::format("no RDMA device is bound to {} (searched {}). "
                                         "Fix: {}, or name another interface; {}",
                                         ifname,
                                         searched_summary(sysfs),
                                         add,
                                         doctor_hint));
}

} // namespace nic
} // namespace rdma
} // namespace gr
