/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_AXIOE_AXIOE_SERVER_H
#define INCLUDED_RDMA_AXIOE_AXIOE_SERVER_H

#include "axioe_packet.h"
#include "axioe_response_cache.h"
#include "util/event_notifier.h"
#include "util/log.h"
#include "util/socket_address.h"
#include "util/udp_socket.h"
#include <gnuradio/rdma/transport_api.h>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace gr {
namespace rdma {
namespace axioe {

/*!
 * What executes register accesses on the device (the emulator's register file).
 *
 * Each call is one burst and must take effect at one instant with respect to
 * everything else the device does (take the register file's lock once per call), so
 * that, e.g., a 64-bit counter read as a 2-word burst is consistent. Addresses
 * increment by 4 per word unless \p fixed. \p client is the request's source address
 * and port: what AXIoE calls a client (docs/axioe.md §1), and what stream ownership is
 * keyed on. Return the status of the first failing word (an AXI status or NOT_OWNER);
 * on DECERR or NOT_OWNER, nothing of the burst may have been executed. A target that
 * throws is answered with SLVERR.
 */
class register_target
{
public:
    virtual ~register_target() = default;
    virtual status read(const socket_address& client,
                        uint32_t address,
                        uint32_t* out,
                        size_t count,
                        bool fixed) = 0;
    virtual status write(const socket_address& client,
                         uint32_t address,
                         const uint32_t* words,
                         size_t count,
                         bool fixed) = 0;
    /*!
     * Timers of the device that must run while nobody talks to it (an owner's lease).
     * The server's thread calls this between batches of requests and again at the
     * latest after the time it returns (capped at a second).
     */
    virtual std::chrono::microseconds tick() { return std::chrono::seconds(1); }
};

/*!
 * The device side of AXIoE: owns a UDP socket and one thread ("emu-axi", charged to
 * the device) that decodes requests, executes them on a register_target and answers,
 * answering retransmissions from a response_cache without executing them again.
 */
class RDMA_TRANSPORT_API server
{
public:
    /*!
     * Bind to \p bind_to (port 0: an ephemeral port, see address()) and start. Bursts
     * longer than \p max_burst_words (1..axioe::max_burst_words: what the device
     * reports in ID_MAX_BURST_WORDS) are answered BAD_REQUEST and not executed
     * (docs/axioe.md §5).
     */
    server(const socket_address& bind_to,
           register_target& target,
           size_t max_burst_words = axioe::max_burst_words);
    //! Stops and joins the thread; returns promptly (the thread waits on a wake fd).
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    socket_address address() const { return d_socket.local_address(); }

    //! requests = executed + answered_from_cache + malformed + stale.
    struct stats_t {
        uint64_t requests = 0;            //!< datagrams received
        uint64_t executed = 0;            //!< requests executed on the target
        uint64_t answered_from_cache = 0; //!< retransmissions answered again
        uint64_t malformed = 0;           //!< rejected (answered or dropped)
        uint64_t stale = 0;               //!< delayed copies of abandoned requests
        uint64_t evicted_clients = 0;     //!< clients the cache forgot (LRU)
    };
    stats_t stats() const;

private:
    static constexpr size_t batch = 8;

    void run();
    std::chrono::microseconds tick();
    void handle(const datagram& d);
    void execute(const request& r, const datagram& d, uint64_t request_hash);
    void reject(const datagram& d, parse_status why);
    void send(const uint8_t* data, size_t len, const socket_address& to);

    register_target& d_target;
    const size_t d_max_burst_words;
    logger_ptr d_logger;
    udp_socket d_socket;
    event_notifier d_wake;
    response_cache d_cache;
    // Receive slots and scratch, owned by the thread; one byte more than the largest
    // request so that an oversized one is seen as such rather than cut to size.
    std::array<std::array<uint8_t, max_datagram_bytes + 1>, batch> d_rx;
    std::array<datagram, batch> d_slots;
    std::array<uint32_t, max_burst_words> d_words;
    std::array<uint8_t, header_bytes> d_rejection;

    std::atomic<bool> d_stop{ false };
    std::atomic<uint64_t> d_requests{ 0 };
    std::atomic<uint64_t> d_executed{ 0 };
    std::atomic<uint64_t> d_from_cache{ 0 };
    std::atomic<uint64_t> d_malformed{ 0 };
    std::atomic<uint64_t> d_stale{ 0 };
    std::atomic<uint64_t> d_evicted{ 0 };
    std::thread d_thread; // last: starts once everything above exists
};

} // namespace axioe
} // namespace rdma
} // namespace gr

#endif
