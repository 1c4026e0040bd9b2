/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_kind.h"
#include <map>
#include <mutex>

namespace gr {
namespace rdma {

namespace {

// A function-local table: kinds register from other areas' static initialisers, in
// whatever order the linker puts them.
struct kind_table {
    std::mutex mutex;
    std::map<std::string, device_kind> kinds;
};
kind_table& table()
{
    static kind_table t;
    return t;
}

} // namespace

void add_device_kind(device_kind kind)
{
    kind_table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.kinds[kind.name] = std::move(kind);
}

const device_kind* find_device_kind(const std::string& name)
{
    kind_table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    const auto it = t.kinds.find(name);
    return it == t.kinds.end() ? nullptr : &it->second;
}

std::vector<std::string> device_kind_names()
{
    kind_table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    std::vector<std::string> out;
    for (const auto& [name, kind] : t.kinds)
        out.push_back(name);
    return out;
}

} // namespace rdma
} // namespace gr
