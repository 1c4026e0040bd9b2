/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_DEVICE_H
#define INCLUDED_RDMA_NIC_VERBS_DEVICE_H

#include "../util/log.h"
#include "nic.h"
#include "verbs_convert.h"
#include "verbs_handles.h"
#include "verbs_sysfs.h"
#include <array>
#include <atomic>
#include <memory>
#include <string>

namespace gr {
namespace rdma {
namespace nic {

class verbs_protection_domain;
class verbs_completion_queue;

struct verbs_device_config {
    //! Local IPv4 address (host order): use the RoCE v2 GID that holds it.
    uint32_t ip = 0;
    //! Or, when not empty, a netdev: use its first RoCE v2 GID with an IPv4 address.
    std::string interface;
    //! Where sysfs is mounted (tests point it elsewhere only for discovery errors).
    std::string sysfs_root = "/sys";
};

//! Completions seen by the CQs of one device, by status (counters of the backend).
struct completion_stats {
    std::atomic<uint64_t> completions{ 0 };
    std::array<std::atomic<uint64_t>, known_wc_statuses> by_status{};
};

/*!
 * What every object of one verbs device shares: the open context and where its
 * RoCE v2 address lives. Protection domains, CQs, MRs and QPs hold it (and their
 * parents) by shared_ptr, so the verbs objects are destroyed children first whatever
 * order their handles are dropped in.
 */
struct verbs_context {
    verbs_context(ibv_context_t c, roce_gid_location where, std::string sysfs)
        : ctx(std::move(c)), location(std::move(where)), sysfs_root(std::move(sysfs))
    {
    }
    ibv_context_t ctx;
    roce_gid_location location;
    std::string sysfs_root;
    unsigned max_path_mtu = 0;      //!< the port's active MTU, bytes
    uint8_t max_dest_rd_atomic = 0; //!< RC: READs we accept in flight (responder)
    uint8_t max_rd_atomic = 0;      //!< RC: READs we would issue (requester)
    completion_stats stats;
    logger_ptr logger;
};

/*!
 * The rdma-core verbs backend of the NIC interface: a RoCE NIC, or Linux rxe
 * (docs/verbs.md). The constructor finds the device, port and GID index that hold the
 * configured IPv4 address (or interface) as a RoCE v2 GID, opens the device and checks
 * the port; errors explain what was searched and name the fix and gr-rdma-doctor.
 */
class verbs_device : public device
{
public:
    explicit verbs_device(const verbs_device_config& config);
    ~verbs_device() override;
    verbs_device(const verbs_device&) = delete;
    verbs_device& operator=(const verbs_device&) = delete;

    std::string name() const override;
    //! The GID's IPv4 address and the RoCEv2 port, 4791.
    socket_address roce_address() const override;
    int numa_node() const override { return d_numa_node; }
    //! The port's active MTU.
    unsigned max_path_mtu() const override { return d_ctx->max_path_mtu; }
    std::unique_ptr<protection_domain> alloc_pd() override;
    std::unique_ptr<completion_queue> create_cq(int entries) override;
    //! The port's hw_counters (rcvd_pkts, out_of_seq_request, ...) plus the backend's
    //! own: completions, completion_errors and wc_<status> per error status. The
    //! hw_counters are the kernel's cache, up to hw_counters_lifespan() old: to see
    //! traffic that just ended, read after waiting that long.
    counters read_counters() const override;
    std::chrono::milliseconds hw_counters_lifespan() const
    {
        return rdma_sysfs(d_ctx->sysfs_root)
            .hw_counters_lifespan(d_ctx->location.device, d_ctx->location.port);
    }

    // Beyond the interface, for tests and tools that post their own work requests.
    const roce_gid_location& location() const { return d_ctx->location; }
    ibv_context* native() const { return d_ctx->ctx.get(); }
    std::unique_ptr<verbs_protection_domain> alloc_verbs_pd();
    std::unique_ptr<verbs_completion_queue> create_verbs_cq(int entries);

private:
    std::shared_ptr<verbs_context> d_ctx;
    int d_numa_node = -1;
};

//! The RoCEv2 UDP port every verbs device listens on.
constexpr uint16_t roce_v2_udp_port = 4791;

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
