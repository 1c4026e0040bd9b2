/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_WIRE_ADDRESS_REGISTRY_H
#define INCLUDED_RDMA_WIRE_ADDRESS_REGISTRY_H

#include "../util/socket_address.h"
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace gr {
namespace rdma {
namespace wire {

/*!
 * The in-process "network" of NICs that need no socket (the soft NIC's in-process wire,
 * the null NIC): objects found by their RoCE address. Holds them weakly: an owner that
 * goes away is simply not found any more. One registry per type, process-wide.
 */
template <typename T>
class address_registry
{
public:
    static void publish(const socket_address& address, const std::shared_ptr<T>& object)
    {
        registry& r = the();
        std::lock_guard<std::mutex> lock(r.mutex);
        r.objects[key_of(address)] = object;
    }
    //! Remove \p object's entry (or an expired one); a newer object there stays.
    static void withdraw(const socket_address& address, const T* object)
    {
        registry& r = the();
        std::lock_guard<std::mutex> lock(r.mutex);
        const auto it = r.objects.find(key_of(address));
        if (it == r.objects.end())
            return;
        const auto current = it->second.lock();
        if (!current || current.get() == object)
            r.objects.erase(it);
    }
    static std::shared_ptr<T> find(const socket_address& address)
    {
        registry& r = the();
        std::lock_guard<std::mutex> lock(r.mutex);
        const auto it = r.objects.find(key_of(address));
        return it == r.objects.end() ? nullptr : it->second.lock();
    }

private:
    struct registry {
        std::mutex mutex;
        std::map<uint64_t, std::weak_ptr<T>> objects;
    };
    static registry& the()
    {
        static registry r;
        return r;
    }
    static uint64_t key_of(const socket_address& a)
    {
        return (uint64_t(a.ip()) << 16) | a.port();
    }
};

} // namespace wire
} // namespace rdma
} // namespace gr

#endif
