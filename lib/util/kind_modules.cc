/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "kind_modules.h"
#include "log.h"
#include <dlfcn.h>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {

namespace {

// The modules, by file name: each registers its kinds at static initialisation.
const std::vector<std::string> module_files = { "libgnuradio-rdma-emulator.so" };
constexpr const char* transport_file = "libgnuradio-rdma-transport.so";

struct module_state {
    std::once_flag once;
    std::string note;
};

module_state& state()
{
    static module_state s;
    return s;
}

// The file this code was loaded from: the transport library, or the program itself
// when it links the transport core's objects.
std::string own_file()
{
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&kind_module_dir), &info) || !info.dli_fname)
        return "";
    return info.dli_fname;
}

} // namespace

std::string kind_module_dir()
{
    const std::string file = own_file();
    const size_t slash = file.rfind('/');
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    // A program with the core's objects of its own has registries of its own: a module
    // would register into the transport library's, a second copy. It links its kinds,
    // whatever GR_RDMA_MODULE_PATH says.
    if (name.rfind(transport_file, 0) != 0)
        return "";
    if (const char* path = std::getenv("GR_RDMA_MODULE_PATH"); path && *path)
        return path;
    const std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
    return dir + "/gr-rdma-modules-" GR_RDMA_LIBVER;
}

bool load_kind_modules()
{
    module_state& s = state();
    bool now = false;
    std::call_once(s.once, [&s, &now] {
        const std::string dir = kind_module_dir();
        if (dir.empty())
            return; // nothing to load, nothing failed
        for (const auto& file : module_files) {
            const std::string path = dir + "/" + file;
            if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
                now = true;
                make_logger("rdma kinds")->debug("loaded {}", path);
                continue;
            }
            const char* why = dlerror();
            s.note += (s.note.empty() ? "" : "; ") + std::string("the module ") + path +
                      " did not load (" + (why ? why : "unknown") +
                      "): the emulator (type=emu, type=null) is in package "
                      "gr-rdma-emulator; install it, or point GR_RDMA_MODULE_PATH at "
                      "its directory";
        }
    });
    return now;
}

std::string kind_modules_note()
{
    load_kind_modules(); // the note is written once, inside call_once: read it after
    return state().note;
}

} // namespace rdma
} // namespace gr
