/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "axioe_response_cache.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace axioe {

namespace {
// How far behind the newest executed sequence a request that is not in the history
// counts as a delayed copy rather than a new request. A client that restarts on the
// same port picks a random first sequence, which lands in this window with
// probability 2^16 / 2^32; a wider window would make that likelier, a narrower one
// would let a copy delayed by more than that many transactions execute again.
constexpr uint32_t stale_window = 1u << 16;
} // namespace

response_cache::response_cache(size_t clients) : d_clients(clients)
{
    if (clients == 0)
        throw std::invalid_argument("AXIoE response cache needs room for a client");
}

uint64_t response_cache::hash(const uint8_t* data, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= data[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

response_cache::client_history& response_cache::find_or_evict(const socket_address& peer)
{
    // An unused slot if there is one, else the least recently heard client. A linear
    // scan of 64 slots costs less than the system call that brought the request.
    auto age_rank = [](const client_history& c) { return c.in_use ? c.last_heard : 0; };
    client_history* victim = nullptr;
    for (auto& c : d_clients) {
        if (c.in_use && c.peer == peer)
            return c;
        if (!victim || age_rank(c) < age_rank(*victim))
            victim = &c;
    }
    if (victim->in_use)
        d_evictions++;
    victim->in_use = true;
    victim->peer = peer;
    victim->has_newest = false;
    victim->next = 0;
    for (auto& e : victim->entries)
        e.valid = false;
    return *victim;
}

response_cache::lookup_result response_cache::lookup(const socket_address& peer,
                                                     uint32_t sequence,
                                                     uint64_t request_hash)
{
    client_history& c = find_or_evict(peer);
    c.last_heard = ++d_clock;
    d_current = &c;
    for (const auto& e : c.entries) {
        if (e.valid && e.sequence == sequence) {
            if (e.request_hash != request_hash)
                return { verdict::conflict, nullptr };
            return { verdict::duplicate, &e };
        }
    }
    // Serial-number arithmetic: "behind" means within stale_window before newest.
    const uint32_t behind = c.newest - sequence;
    if (c.has_newest && behind != 0 && behind < stale_window)
        return { verdict::stale, nullptr };
    return { verdict::fresh, nullptr };
}

response_cache::entry& response_cache::record(uint32_t sequence, uint64_t request_hash)
{
    if (!d_current)
        throw std::logic_error("response_cache::record() without lookup()");
    client_history& c = *d_current;
    entry& e = c.entries[c.next];
    c.next = (c.next + 1) % responses_per_client;
    e.valid = true;
    e.sequence = sequence;
    e.request_hash = request_hash;
    e.length = 0;
    c.has_newest = true;
    c.newest = sequence;
    return e;
}

size_t response_cache::clients() const
{
    return static_cast<size_t>(std::count_if(
        d_clients.begin(), d_clients.end(), [](const auto& c) { return c.in_use; }));
}

} // namespace axioe
} // namespace rdma
} // namespace gr
