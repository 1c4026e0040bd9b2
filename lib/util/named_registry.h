/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_NAMED_REGISTRY_H
#define INCLUDED_RDMA_UTIL_NAMED_REGISTRY_H

#include "kind_modules.h"
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * Kinds of something, by name (device kinds for type=, NIC kinds for nic=): each
 * registers itself from its own area at static initialisation, in whatever order the
 * linker puts them, so the table is made on first use. Entries are never removed, so a
 * pointer from find() stays valid.
 */
template <typename kind>
class named_registry
{
public:
    static named_registry& instance()
    {
        static named_registry r;
        return r;
    }

    void add(const std::string& name, kind k)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_kinds[name] = std::move(k);
    }
    //! nullptr when there is none of that name, also once the modules that add kinds
    //! are loaded (kind_modules.h: a name not known yet loads them).
    const kind* find(const std::string& name) const
    {
        if (const kind* k = find_registered(name))
            return k;
        return load_kind_modules() ? find_registered(name) : nullptr;
    }
    //! The kinds registered so far: those of modules not loaded yet are not among them
    //! (load_kind_modules() first, for a list of every kind there is).
    std::vector<std::string> names() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        std::vector<std::string> out;
        for (const auto& entry : d_kinds)
            out.push_back(entry.first);
        return out;
    }

private:
    named_registry() = default;
    const kind* find_registered(const std::string& name) const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        const auto it = d_kinds.find(name);
        return it == d_kinds.end() ? nullptr : &it->second;
    }

    mutable std::mutex d_mutex;
    std::map<std::string, kind> d_kinds;
};

} // namespace rdma
} // namespace gr

#endif
