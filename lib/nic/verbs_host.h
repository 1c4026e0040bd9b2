/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_HOST_H
#define INCLUDED_RDMA_NIC_VERBS_HOST_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

/*
 * Facts about the host that decide whether the verbs backend can work here, each read
 * by one small function from a root that tests replace with a fake tree. gr-rdma-doctor
 * gathers them and verbs_readiness.h judges them.
 */

//! Where the doctor looks; every path is a parameter so tests can use fake trees.
struct host_roots {
    std::string sys = "/sys";
    std::string proc = "/proc";
    std::string etc = "/etc";
    std::string modules = "/lib/modules";
    std::string kernel_release; //!< empty: the running kernel's (uname -r)
};

//! The default hugepage pool from <proc>/meminfo; -1 / 0 when the kernel has none.
struct hugepage_pool {
    long total = -1;
    long free = -1;
    size_t page_bytes = 0;
};
hugepage_pool read_hugepages(const std::string& proc_root);

//! RLIMIT_MEMLOCK in bytes; unlimited is UINT64_MAX.
struct memlock_limits {
    uint64_t soft = 0;
    uint64_t hard = 0;
};
constexpr uint64_t unlimited = UINT64_MAX;
memlock_limits read_memlock_limits();

//! Whether <proc>/self/status shows CAP_IPC_LOCK in CapEff: then RLIMIT_MEMLOCK does
//! not apply to mlock or to memory registration.
bool has_cap_ipc_lock(const std::string& proc_root);

enum class module_state { loaded, builtin, loadable, missing };
const char* to_string(module_state state);
//! \p name (e.g. "rdma_rxe") for the kernel \p release: loaded (<sys>/module/<name>),
//! built in (modules.builtin), loadable (modules.dep) or missing.
module_state kernel_module_state(const host_roots& roots,
                                 const std::string& release,
                                 const std::string& name);
//! Kernel releases under <modules> that have module \p name (built in or loadable).
std::vector<std::string> kernels_with_module(const host_roots& roots,
                                             const std::string& name);
//! roots.kernel_release, else uname -r.
std::string kernel_release(const host_roots& roots);

//! Provider names in <etc>/libibverbs.d/*.driver ("driver rxe" -> "rxe"), sorted.
std::vector<std::string> verbs_providers(const std::string& etc_root);

//! The interface of the IPv4 default route (<proc>/net/route); empty if there is none.
std::string default_route_interface(const std::string& proc_root);

//! What libibverbs itself sees: which devices it lists (its providers matched them)
//! and their ports' active MTUs.
struct libibverbs_view {
    bool listed = false; //!< ibv_get_device_list succeeded
    std::string error;   //!< its error otherwise
    std::string library; //!< the libibverbs file this process loaded
    struct device {
        std::string error;                       //!< opening or querying it failed
        std::map<unsigned, unsigned> active_mtu; //!< port -> bytes
    };
    std::map<std::string, device> devices;
};
//! Ask libibverbs (opens each device briefly).
libibverbs_view probe_libibverbs();

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
