/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "verbs_convert.h"
#include "verbs_handles.h"
#include "verbs_host.h"
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <system_error>
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gr {
namespace rdma {
namespace nic {

namespace fs = std::filesystem;

namespace {

//! "rdma_rxe" for ".../rdma_rxe.ko", ".ko.xz", ".ko.zst", ".ko.gz"; modprobe treats
//! '-' and '_' alike, so they become '_'.
std::string module_name_of(const std::string& path)
{
    std::string base = path.substr(path.find_last_of('/') + 1);
    const auto ko = base.find(".ko");
    if (ko == std::string::npos)
        return {};
    base.resize(ko);
    std::replace(base.begin(), base.end(), '-', '_');
    return base;
}

//! Whether a line of \p file (modules.dep: "path: deps", modules.builtin: "path")
//! names module \p name.
bool listed_in(const std::string& file, const std::string& name)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (module_name_of(line.substr(0, line.find(':'))) == name)
            return true;
    return false;
}

} // namespace

hugepage_pool read_hugepages(const std::string& proc_root)
{
    hugepage_pool pool;
    std::ifstream in(proc_root + "/meminfo");
    std::string key;
    long value;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        if (!(fields >> key >> value))
            continue;
        if (key == "HugePages_Total:")
            pool.total = value;
        else if (key == "HugePages_Free:")
            pool.free = value;
        else if (key == "Hugepagesize:") // in kB
            pool.page_bytes = static_cast<size_t>(value) * 1024;
    }
    return pool;
}

memlock_limits read_memlock_limits()
{
    rlimit r{};
    if (::getrlimit(RLIMIT_MEMLOCK, &r) != 0)
        return {};
    const auto bytes = [](rlim_t v) {
        return v == RLIM_INFINITY ? unlimited : static_cast<uint64_t>(v);
    };
    return { bytes(r.rlim_cur), bytes(r.rlim_max) };
}

bool has_cap_ipc_lock(const std::string& proc_root)
{
    constexpr int cap_ipc_lock = 14; // linux/capability.h
    std::ifstream in(proc_root + "/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("CapEff:", 0) != 0)
            continue;
        try {
            const unsigned long long caps = std::stoull(line.substr(7), nullptr, 16);
            return (caps >> cap_ipc_lock) & 1;
        } catch (const std::exception&) {
            return false;
        }
    }
    return false;
}

const char* to_string(module_state state)
{
    switch (state) {
    case module_state::loaded:
        return "loaded";
    case module_state::builtin:
        return "built in";
    case module_state::loadable:
        return "loadable";
    case module_state::missing:
        return "missing";
    }
    return "?";
}

module_state kernel_module_state(const host_roots& roots,
                                 const std::string& release,
                                 const std::string& name)
{
    std::error_code ec;
    if (fs::is_directory(roots.sys + "/module/" + name, ec)) {
        // Built-in modules with parameters appear here too; modules.builtin tells.
        if (listed_in(roots.modules + "/" + release + "/modules.builtin", name))
            return module_state::builtin;
        return module_state::loaded;
    }
    if (listed_in(roots.modules + "/" + release + "/modules.builtin", name))
        return module_state::builtin;
    if (listed_in(roots.modules + "/" + release + "/modules.dep", name))
        return module_state::loadable;
    return module_state::missing;
}

std::vector<std::string> kernels_with_module(const host_roots& roots,
                                             const std::string& name)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(roots.modules, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string release = it->path().filename().string();
        const std::string dir = roots.modules + "/" + release;
        if (listed_in(dir + "/modules.dep", name) ||
            listed_in(dir + "/modules.builtin", name))
            out.push_back(release);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string kernel_release(const host_roots& roots)
{
    if (!roots.kernel_release.empty())
        return roots.kernel_release;
    utsname u{};
    if (::uname(&u) != 0)
        return {};
    return u.release;
}

std::vector<std::string> verbs_providers(const std::string& etc_root)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(etc_root + "/libibverbs.d", ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->path().extension() != ".driver")
            continue;
        std::ifstream in(it->path());
        std::string word, name;
        while (in >> word)
            if (word == "driver" && in >> name)
                out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string default_route_interface(const std::string& proc_root)
{
    // Columns: Iface Destination Gateway Flags RefCnt Use Metric Mask ...
    std::ifstream in(proc_root + "/net/route");
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string iface, dest, gateway, flags, refcnt, use, metric, mask;
        if (f >> iface >> dest >> gateway >> flags >> refcnt >> use >> metric >> mask &&
            dest == "00000000" && mask == "00000000")
            return iface;
    }
    return {};
}

libibverbs_view probe_libibverbs()
{
    libibverbs_view view;
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&ibv_get_device_list), &info) &&
        info.dli_fname) {
        char real[PATH_MAX];
        view.library = ::realpath(info.dli_fname, real) ? real : info.dli_fname;
    }
    std::unique_ptr<ibv_device_list_t> list;
    try {
        list = std::make_unique<ibv_device_list_t>();
    } catch (const std::system_error& e) {
        view.error = e.what();
        return view;
    }
    view.listed = true;
    for (int i = 0; i < list->size(); i++) {
        auto& dev = view.devices[ibv_get_device_name((*list)[i])];
        try {
            const ibv_context_t ctx((*list)[i]);
            ibv_device_attr attr{};
            if (const int err = ibv_query_device(ctx.get(), &attr))
                throw std::system_error(err, std::generic_category(), "ibv_query_device");
            for (unsigned p = 1; p <= attr.phys_port_cnt; p++) {
                ibv_port_attr port{};
                if (ibv_query_port(ctx.get(), static_cast<uint8_t>(p), &port) == 0)
                    dev.active_mtu[p] = mtu_bytes(port.active_mtu);
            }
        } catch (const std::system_error& e) {
            dev.error = e.what();
        }
    }
    return view;
}

} // namespace nic
} // namespace rdma
} // namespace gr
