/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_READINESS_H
#define INCLUDED_RDMA_NIC_VERBS_READINESS_H

#include "verbs_host.h"
#include "verbs_sysfs.h"
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

/*
 * gr-rdma-doctor's judgement (docs/doctor.md): gather the facts (verbs_host.h,
 * verbs_sysfs.h), then assess() them into findings, each with the command that fixes
 * it. Pure functions of their inputs, so the tests feed them fake hosts.
 */

//! What a stream's ring needs from the host (docs/ring-memory.md).
struct ring_requirement {
    double sample_rate = 0;
    size_t item_size = 0;
    double latency_s = 0;
    size_t ring_bytes = 0;     //!< one copy, sized for 2 MiB pages
    size_t hugepages = 0;      //!< 2 MiB pages for it
    uint64_t pinned_bytes = 0; //!< memory registration pins one copy (pinned_vm)
    uint64_t locked_bytes = 0; //!< mlock of both mappings of the ring (locked_vm)
};
//! The ring of a stream at \p sample_rate of \p item_size-byte items with a latency
//! budget of \p latency_s (rx_stream's defaults: 4096-byte payloads, 0.1 s).
ring_requirement
ring_requirement_for(double sample_rate, size_t item_size, double latency_s);

//! One RDMA port as the doctor shows it.
struct port_report {
    port_info port;
    int numa_node = -1;
    unsigned active_mtu = 0; //!< from libibverbs; 0 when it does not list the device
    bool verbs_listed = false;
    std::vector<gid_entry> roce_v2_ipv4; //!< the GIDs gr-rdma can use
    bool usable() const;
};

struct host_facts {
    std::string kernel_release;
    module_state rxe = module_state::missing;
    std::vector<std::string> rxe_kernels; //!< installed kernels that have rdma_rxe
    module_state uverbs = module_state::missing;
    bool uverbs_class = false; //!< <sys>/class/infiniband_verbs exists
    std::vector<std::string> devices;
    std::vector<port_report> ports;
    libibverbs_view verbs;
    std::vector<std::string> providers;
    std::string default_interface;
    hugepage_pool hugepages;
    memlock_limits memlock;
    bool cap_ipc_lock = false;
    ring_requirement need;
};

//! Read everything but libibverbs and RLIMIT_MEMLOCK, which the caller passes in.
host_facts gather_host_facts(const host_roots& roots,
                             const libibverbs_view& verbs,
                             const memlock_limits& memlock,
                             const ring_requirement& need);

enum class severity { ok, warning, problem };
const char* to_string(severity s);

struct finding {
    severity level = severity::ok;
    std::string topic; //!< "rdma", "libibverbs", "memlock", "hugepages", "kernel"
    std::string text;
    std::string fix; //!< the command(s) that fix it; empty for ok
};

struct readiness_report {
    std::vector<finding> findings;
    std::vector<std::string> usable; //!< "rxe0 port 1 GID 1 (192.0.2.1, veth0)"
    bool memlock_ok = false;
    //! At least one usable port (ACTIVE, RoCE v2 IPv4 GID, listed by libibverbs) and
    //! enough RLIMIT_MEMLOCK to register the ring.
    bool ready() const { return !usable.empty() && memlock_ok; }
    int problems() const;
};

readiness_report assess(const host_facts& facts);

//! "16 MiB", "8 KiB", "unlimited", for reports.
std::string format_size(uint64_t bytes);

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
