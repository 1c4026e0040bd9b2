/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_SYSFS_H
#define INCLUDED_RDMA_NIC_VERBS_SYSFS_H

#include "nic.h"
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

/*
 * What the kernel tells about RDMA devices in sysfs (/sys/class/infiniband/<dev>/...),
 * read without libibverbs: the verbs backend finds its device, port and GID index here,
 * and gr-rdma-doctor reports from it. The root is a parameter, so that the tests run
 * against fake trees.
 */

using gid_bytes = std::array<uint8_t, 16>;

//! ::ffff:a.b.c.d, the GID that RoCE v2 gives IPv4 address \p ip (host order).
gid_bytes gid_from_ipv4(uint32_t ip);
//! The IPv4 address (host order) of an IPv4-mapped GID; nullopt for any other GID.
std::optional<uint32_t> ipv4_from_gid(const gid_bytes& gid);
//! Parse the sysfs form "0000:0000:0000:0000:0000:ffff:c000:0201"; nullopt if malformed.
std::optional<gid_bytes> parse_gid(const std::string& text);
//! The sysfs form of \p gid (eight groups of four lower-case hex digits).
std::string format_gid(const gid_bytes& gid);
//! "a.b.c.d" for \p ip in host order.
std::string ipv4_string(uint32_t ip);

//! The type a RoCE v2 GID has in gid_attrs/types/<i>.
constexpr const char* roce_v2_gid_type = "RoCE v2";

//! One valid entry of a port's GID table.
struct gid_entry {
    unsigned index = 0;
    gid_bytes gid{};
    std::string type;   //!< gid_attrs/types/<i>: "RoCE v2", "IB/RoCE v1"; empty on IB
    std::string netdev; //!< gid_attrs/ndevs/<i>; empty when the entry has none
    bool roce_v2() const { return type == roce_v2_gid_type; }
    std::optional<uint32_t> ipv4() const { return ipv4_from_gid(gid); }
};

//! One port of an RDMA device.
struct port_info {
    std::string device;
    unsigned port = 0;
    std::string state;      //!< "ACTIVE", "DOWN", ... (ports/<p>/state without "4: ")
    std::string phys_state; //!< "LinkUp", "Disabled", ...
    std::string link_layer; //!< "Ethernet" (RoCE) or "InfiniBand"
    std::vector<gid_entry> gids; //!< the non-zero entries, by index
    bool active() const { return state == "ACTIVE"; }
    //! The netdev of the port's first GID that names one; empty if none does.
    std::string netdev() const;
};

//! Where a local IPv4 address lives as a RoCE v2 GID.
struct roce_gid_location {
    std::string device;
    unsigned port = 0;
    unsigned gid_index = 0;
    uint32_t ipv4 = 0; //!< host order
    std::string netdev;
    bool port_active = false;
};

class rdma_sysfs
{
public:
    //! \p root is the sysfs mount point ("/sys"; a temporary directory in tests).
    explicit rdma_sysfs(std::string root = "/sys") : d_root(std::move(root)) {}

    const std::string& root() const { return d_root; }
    //! Names in class/infiniband, sorted; empty when the directory is missing.
    std::vector<std::string> devices() const;
    //! Port numbers of \p device, ascending.
    std::vector<unsigned> ports(const std::string& device) const;
    port_info port(const std::string& device, unsigned port) const;
    std::vector<port_info> all_ports() const;
    //! NUMA node of \p device (device/numa_node), else of \p netdev
    //! (class/net/<netdev>/device/numa_node); -1 when neither says (e.g. rxe on veth).
    int numa_node(const std::string& device, const std::string& netdev) const;
    //! ports/<p>/hw_counters/* of \p device (else its device-wide hw_counters/*), by
    //! file name; files that do not hold a number are left out. The kernel caches
    //! them (see hw_counters_lifespan): a value may be that old.
    counters hw_counters(const std::string& device, unsigned port) const;
    //! How long the kernel serves cached hw_counters (hw_counters/lifespan, ms; 10 ms
    //! by default, rounded up to jiffies): a read within that time of the last refresh,
    //! by any reader, returns the refresh's values. 0 when the file is absent.
    std::chrono::milliseconds hw_counters_lifespan(const std::string& device,
                                                   unsigned port) const;
    //! Whether class/infiniband_verbs exists: ib_uverbs is loaded, so userspace verbs
    //! (libibverbs) can reach the devices.
    bool has_uverbs() const;
    //! Every RoCE v2 GID that holds an IPv4 address, on every port.
    std::vector<roce_gid_location> roce_v2_ipv4_gids() const;

private:
    std::string device_dir(const std::string& device) const;

    std::string d_root;
};

/*!
 * The RoCE v2 GID for local IPv4 address \p ip (host order), preferring an ACTIVE port.
 * Throws std::runtime_error that names what was searched and how to fix it;
 * \p netdev_hint (the interface that holds \p ip, if known) makes the fix concrete.
 */
roce_gid_location find_roce_gid_by_ip(const rdma_sysfs& sysfs,
                                      uint32_t ip,
                                      const std::string& netdev_hint = "");

/*!
 * The first RoCE v2 IPv4 GID whose netdev is \p ifname (lowest GID index, ACTIVE port
 * first). Throws std::runtime_error naming what was searched and the fix.
 */
roce_gid_location find_roce_gid_by_interface(const rdma_sysfs& sysfs,
                                             const std::string& ifname);

//! The text of a sysfs attribute without its trailing newline; nullopt when the file
//! is missing or unreadable (an unused GID's type reads as EINVAL, for example).
std::optional<std::string> read_sysfs_line(const std::string& path);

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
