/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "../util/net_interface.h"
#include "verbs_completion_queue.h"
#include "verbs_device.h"
#include "verbs_protection_domain.h"
#include <spdlog/fmt/fmt.h>
#include <system_error>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {

// RC limits we ask for, clamped to what the device allows: a few READs in flight
// are plenty for a host that serves a device's READ requests (the TX path).
constexpr int wanted_dest_rd_atomic = 16;
constexpr int wanted_rd_atomic = 1;

constexpr const char* doctor_hint = "run gr-rdma-doctor to check this host";

roce_gid_location locate(const rdma_sysfs& sysfs, const verbs_device_config& config)
{
    if (!config.interface.empty())
        return find_roce_gid_by_interface(sysfs, config.interface);
    if (config.ip == 0)
        throw std::invalid_argument("verbs_device: needs a local IPv4 address or an "
                                    "interface name");
    const auto nif = find_interface_by_ip(config.ip);
    return find_roce_gid_by_ip(sysfs, config.ip, nif ? nif->name : std::string());
}

//! libibverbs' view of the device that sysfs showed us, with errors that explain the
//! usual gaps between the two (no ib_uverbs, no provider).
ibv_context_t open_device(const rdma_sysfs& sysfs, const roce_gid_location& where)
{
    std::unique_ptr<ibv_device_list_t> list;
    try {
        list = std::make_unique<ibv_device_list_t>();
    } catch (const std::system_error& e) {
        throw std::runtime_error(fmt::format(
            "libibverbs finds no RDMA device ({}), although the kernel has {}{}; {}",
            e.what(),
            where.device,
            sysfs.has_uverbs() ? ""
                               : ": the ib_uverbs module is not loaded (sudo modprobe "
                                 "ib_uverbs)",
            doctor_hint));
    }
    ibv_device* dev = list->find(where.device);
    if (!dev) {
        std::string listed;
        for (int i = 0; i < list->size(); i++)
            listed +=
                std::string(listed.empty() ? "" : ", ") + ibv_get_device_name((*list)[i]);
        throw std::runtime_error(fmt::format(
            "libibverbs does not list {} (it lists: {}): its userspace provider is "
            "missing. Fix: sudo apt install ibverbs-providers (rdma-core); {}",
            where.device,
            listed.empty() ? "none" : listed,
            doctor_hint));
    }
    return ibv_context_t(dev);
}

std::string where_text(const roce_gid_location& l)
{
    return fmt::format("{} port {}", l.device, l.port);
}

} // namespace

verbs_device::verbs_device(const verbs_device_config& config)
{
    const rdma_sysfs sysfs(config.sysfs_root);
    const roce_gid_location where = locate(sysfs, config);
    d_ctx = std::make_shared<verbs_context>(
        open_device(sysfs, where), where, config.sysfs_root);
    d_ctx->logger = make_logger("verbs " + where.device);
    ibv_context* ctx = d_ctx->ctx.get();

    ibv_port_attr port{};
    if (const int err = ibv_query_port(ctx, where.port, &port))
        throw_errno(fmt::format("ibv_query_port({})", where_text(where)), err);
    if (port.link_layer != IBV_LINK_LAYER_ETHERNET)
        throw std::runtime_error(fmt::format("{} is not RoCE (its link layer is not "
                                             "Ethernet); gr-rdma speaks RoCE v2 only",
                                             where_text(where)));
    d_ctx->max_path_mtu = mtu_bytes(port.active_mtu);
    if (d_ctx->max_path_mtu == 0)
        throw std::runtime_error(fmt::format("{}: unknown active MTU value {}",
                                             where_text(where),
                                             static_cast<int>(port.active_mtu)));
    // A port that is down today may come up later (cable, `ip link set up`); what
    // arrives meanwhile is lost, so say so but do not refuse.
    if (port.state != IBV_PORT_ACTIVE)
        d_ctx->logger->warn("{} is {}, not ACTIVE: nothing arrives until it is up "
                            "(`sudo ip link set {} up`; check the cable or switch)",
                            where_text(where),
                            ibv_port_state_str(port.state),
                            where.netdev.empty() ? "<interface>" : where.netdev);

    // sysfs and libibverbs read the same table; a mismatch means it changed under us.
    ibv_gid gid{};
    if (const int err =
            ibv_query_gid(ctx, where.port, static_cast<int>(where.gid_index), &gid))
        throw_errno(
            fmt::format("ibv_query_gid({} index {})", where_text(where), where.gid_index),
            err);
    const gid_bytes expected = gid_from_ipv4(where.ipv4);
    if (std::memcmp(gid.raw, expected.data(), expected.size()) != 0)
        throw std::runtime_error(fmt::format(
            "{} GID {} is {} in libibverbs but {} in sysfs: the GID table changed while "
            "opening the device; try again",
            where_text(where),
            where.gid_index,
            format_gid(*reinterpret_cast<const gid_bytes*>(gid.raw)),
            format_gid(expected)));

    ibv_device_attr attr{};
    if (const int err = ibv_query_device(ctx, &attr))
        throw_errno("ibv_query_device(" + where.device + ")", err);
    d_ctx->max_dest_rd_atomic =
        static_cast<uint8_t>(std::clamp(attr.max_qp_rd_atom, 0, wanted_dest_rd_atomic));
    d_ctx->max_rd_atomic =
        static_cast<uint8_t>(std::clamp(attr.max_qp_init_rd_atom, 0, wanted_rd_atomic));

    d_numa_node = sysfs.numa_node(where.device, where.netdev);
    d_ctx->logger->debug("opened {}: GID index {} = {}, netdev {}, active MTU {}, NUMA "
                         "node {}",
                         where_text(where),
                         where.gid_index,
                         ipv4_string(where.ipv4),
                         where.netdev,
                         d_ctx->max_path_mtu,
                         d_numa_node);
}

verbs_device::~verbs_device() = default;

std::string verbs_device::name() const
{
    const auto& l = d_ctx->location;
    return fmt::format("{} port {} GID {} ({})",
                       l.device,
                       l.port,
                       l.gid_index,
                       l.netdev.empty() ? "no netdev" : l.netdev);
}

socket_address verbs_device::roce_address() const
{
    return socket_address(d_ctx->location.ipv4, roce_v2_udp_port);
}

std::unique_ptr<protection_domain> verbs_device::alloc_pd() { return alloc_verbs_pd(); }

std::unique_ptr<verbs_protection_domain> verbs_device::alloc_verbs_pd()
{
    return std::make_unique<verbs_protection_domain>(d_ctx);
}

std::unique_ptr<completion_queue> verbs_device::create_cq(int entries)
{
    return create_verbs_cq(entries);
}

std::unique_ptr<verbs_completion_queue> verbs_device::create_verbs_cq(int entries)
{
    return std::make_unique<verbs_completion_queue>(d_ctx, entries);
}

counters verbs_device::read_counters() const
{
    const auto& l = d_ctx->location;
    counters out = rdma_sysfs(d_ctx->sysfs_root).hw_counters(l.device, l.port);
    const auto& stats = d_ctx->stats;
    out["completions"] = stats.completions.load(std::memory_order_relaxed);
    uint64_t errors = 0;
    for (int s = 0; s < known_wc_statuses; s++) {
        if (const char* name = status_counter_name(s)) {
            const uint64_t n = stats.by_status[s].load(std::memory_order_relaxed);
            out[name] = n;
            errors += n;
        }
    }
    out["completion_errors"] = errors;
    return out;
}

} // namespace nic
} // namespace rdma
} // namespace gr
