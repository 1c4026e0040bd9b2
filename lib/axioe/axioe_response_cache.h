/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_AXIOE_AXIOE_RESPONSE_CACHE_H
#define INCLUDED_RDMA_AXIOE_AXIOE_RESPONSE_CACHE_H

#include "axioe_packet.h"
#include "util/socket_address.h"
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace rdma {
namespace axioe {

/*!
 * The device's memory of what it answered, which makes retries idempotent
 * (docs/axioe.md, "Reliability"): per client (source IP and port) the last
 * responses_per_client responses, for at most max_clients clients, the least recently
 * heard from forgotten first.
 *
 * All storage is allocated once, in the constructor: the server's receive path does
 * not allocate.
 */
class response_cache
{
public:
    static constexpr size_t responses_per_client = 32;
    static constexpr size_t max_clients = 64;

    struct entry {
        bool valid = false;
        uint32_t sequence = 0;
        uint64_t request_hash = 0; //!< of the whole request datagram
        size_t length = 0;
        std::array<uint8_t, max_datagram_bytes> bytes; //!< the response datagram
    };

    //! What to do with a request, given its client's history.
    enum class verdict {
        fresh,     //!< execute it, then record() the response
        duplicate, //!< a retransmission: send the cached response again
        stale,     //!< a delayed copy of a request the client has given up: drop
        conflict,  //!< a cached sequence number reused for a different request
    };

    struct lookup_result {
        verdict what;
        const entry* cached; //!< the response to resend, for verdict::duplicate
    };

    explicit response_cache(size_t clients = max_clients);

    /*!
     * Classify the request \p sequence (whose datagram hashes to \p request_hash) from
     * \p peer, and make \p peer the most recently heard client; a new peer takes the
     * place of the least recently heard one when the cache is full.
     */
    lookup_result
    lookup(const socket_address& peer, uint32_t sequence, uint64_t request_hash);

    /*!
     * The slot for the response to the fresh request \p sequence from the peer of the
     * last lookup(): the oldest of its responses is overwritten. Fill in bytes and
     * length.
     */
    entry& record(uint32_t sequence, uint64_t request_hash);

    size_t clients() const; //!< clients currently remembered
    uint64_t evictions() const { return d_evictions; }

    //! FNV-1a (64 bits) of a datagram: tells a retransmission from a reused sequence.
    static uint64_t hash(const uint8_t* data, size_t len);

private:
    struct client_history {
        bool in_use = false;
        socket_address peer;
        uint64_t last_heard = 0; //!< d_clock at the last lookup
        bool has_newest = false;
        uint32_t newest = 0; //!< sequence of the last executed request
        size_t next = 0;     //!< slot record() overwrites next
        std::array<entry, responses_per_client> entries;
    };

    client_history& find_or_evict(const socket_address& peer);

    std::vector<client_history> d_clients;
    client_history* d_current = nullptr; //!< the client of the last lookup()
    uint64_t d_clock = 0;
    uint64_t d_evictions = 0;
};

} // namespace axioe
} // namespace rdma
} // namespace gr

#endif
