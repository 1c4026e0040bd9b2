/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "consumer_pacing.h"
#include <map>
#include <mutex>
#include <string>

namespace gr {
namespace rdma {

namespace {

std::mutex& registry_mutex()
{
    static std::mutex m;
    return m;
}

std::map<std::string, pacing_registry::lookup>& registry()
{
    static std::map<std::string, pacing_registry::lookup> r;
    return r;
}

} // namespace

void pacing_registry::publish(const socket_address& control, lookup streams)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry()[control.to_string()] = std::move(streams);
}

void pacing_registry::withdraw(const socket_address& control)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().erase(control.to_string());
}

std::shared_ptr<consumer_pacing>
pacing_registry::find(const socket_address& control, bool tx, unsigned stream)
{
    std::lock_guard<std::mutex> lock(registry_mutex());
    const auto it = registry().find(control.to_string());
    return it == registry().end() ? nullptr : it->second(tx, stream);
}

} // namespace rdma
} // namespace gr
