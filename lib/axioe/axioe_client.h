/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_AXIOE_AXIOE_CLIENT_H
#define INCLUDED_RDMA_AXIOE_AXIOE_CLIENT_H

#include "axioe_packet.h"
#include "util/log.h"
#include "util/socket_address.h"
#include "util/udp_socket.h"
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {
namespace axioe {

struct client_options {
    //! How long to wait for the response to one transmission before sending it again.
    std::chrono::microseconds timeout{ 20000 };
    //! Retransmissions after the first attempt before giving up with timeout_error.
    int retries = 10;
    //! Longest burst put in one transaction. A host lowers it further to the
    //! device's ID_MAX_BURST_WORDS once it has read it (client::set_max_burst_words).
    size_t max_burst_words = axioe::max_burst_words;
};

//! The device answered a transaction with an error status.
class error : public std::runtime_error
{
public:
    error(const std::string& what, status code, uint32_t address)
        : std::runtime_error(what), d_code(code), d_address(address)
    {
    }
    status code() const { return d_code; }
    uint32_t address() const { return d_address; } //!< of the failed transaction

private:
    status d_code;
    uint32_t d_address;
};

//! An access that must be one burst (executed at one instant) is longer than the
//! device takes (its ID_MAX_BURST_WORDS): nothing was sent.
class burst_limit_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! No valid response to a transaction after all its attempts.
class timeout_error : public std::runtime_error
{
public:
    timeout_error(const std::string& what, uint32_t address, int attempts)
        : std::runtime_error(what), d_address(address), d_attempts(attempts)
    {
    }
    uint32_t address() const { return d_address; }
    int attempts() const { return d_attempts; }

private:
    uint32_t d_address;
    int d_attempts;
};

/*!
 * The host side of AXIoE: register reads and writes on one device, made reliable by
 * retransmission (docs/axioe.md, "Reliability").
 *
 * Thread-safe: transactions from several threads are serialized, one outstanding at a
 * time, as the protocol requires. A read() or write() longer than the burst limit
 * (options.max_burst_words, lowered to the device's ID_MAX_BURST_WORDS with
 * set_max_burst_words()) is split into several transactions, each atomic on the device
 * but not together; an error in one of them leaves the earlier ones done. What must
 * happen at one instant goes by read_atomic()/write_atomic() (and read64()/write64()),
 * which are never split. A count of 0 does nothing.
 * Unaligned addresses and incrementing bursts past the end of the 32-bit address space
 * throw std::invalid_argument before anything is sent.
 */
class client
{
public:
    explicit client(const socket_address& device, client_options options = {});
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    void read(uint32_t address, uint32_t* out, size_t count, bool fixed = false);
    void write(uint32_t address, const uint32_t* words, size_t count, bool fixed = false);
    /*!
     * One burst, executed at one instant (a claim, a block written as a whole): throws
     * burst_limit_error, naming the limit, before anything is sent if \p count exceeds
     * the burst limit.
     */
    void read_atomic(uint32_t address, uint32_t* out, size_t count, bool fixed = false);
    void write_atomic(uint32_t address,
                      const uint32_t* words,
                      size_t count,
                      bool fixed = false);
    uint32_t read32(uint32_t address);
    void write32(uint32_t address, uint32_t value);
    //! One 2-word burst, low word first: both halves from the same instant.
    uint64_t read64(uint32_t address_lo);
    void write64(uint32_t address_lo, uint64_t value);

    /*!
     * Lower (or raise, up to options.max_burst_words) the longest burst this client
     * sends: a host sets it to the device's ID_MAX_BURST_WORDS once it has read it.
     * Throws std::invalid_argument outside 1..options.max_burst_words.
     */
    void set_max_burst_words(size_t words);
    size_t max_burst_words() const;

    /*!
     * Send a 1-word READ of \p address and give up on it at once: for a request whose
     * only purpose is to be heard (an owner renewing its lease), from a thread that
     * must not wait for the network. Never blocks and never allocates. Sends nothing
     * and returns false when another thread's transaction is in progress, which the
     * device hears anyway. Its response, if any, is discarded later like any stale one.
     */
    bool post_read(uint32_t address);

    socket_address device() const { return d_device; }
    //! Where the device's responses must come back to.
    socket_address local_address() const { return d_socket.local_address(); }

    /*!
     * Round-trip time of the last answered transaction (an error status is an answer
     * too), from its last transmission to its response. If that transaction was sent more
     * than once (last_attempts() > 1), the response may answer an earlier copy and the
     * figure is too short: a clock offset estimate should use only single-attempt
     * transactions.
     */
    std::chrono::nanoseconds last_round_trip() const;
    //! Transmissions the last answered transaction needed (1: no retry).
    int last_attempts() const;

    struct stats_t {
        uint64_t transactions = 0;        //!< started (each with a fresh sequence number)
        uint64_t retries = 0;             //!< retransmissions after a timeout
        uint64_t timeouts = 0;            //!< transactions abandoned (timeout_error)
        uint64_t discarded_responses = 0; //!< invalid, stale, duplicate or foreign
        uint64_t posted = 0;              //!< post_read() requests sent
    };
    stats_t stats() const;

private:
    // One transaction of at most max_burst_words words: sends \p in (writes) or fills
    // \p out (reads).
    void transact(
        opcode op, uint32_t address, const uint32_t* in, uint32_t* out, uint16_t count);
    // Wait until \p deadline for the response to \p r (its payload stays in d_rx),
    // discarding anything else. False at the deadline.
    bool await(const request& r,
               std::chrono::steady_clock::time_point deadline,
               response& answer);
    // Whether the received datagram is the response to the outstanding request.
    bool matches(const datagram& d, const request& r, response& out) const;
    std::string describe(opcode op, uint32_t address, size_t count) const;
    void check_burst(uint32_t address, size_t count, bool fixed) const;
    // Throws burst_limit_error if \p count words cannot go in one burst.
    void check_atomic(opcode op, uint32_t address, size_t count) const;

    const socket_address d_device;
    const client_options d_options;
    logger_ptr d_logger;
    udp_socket d_socket;

    std::atomic<size_t> d_max_burst_words;
    std::mutex d_mutex; // one transaction at a time; guards everything below
    uint32_t d_next_sequence;
    std::array<uint8_t, max_datagram_bytes> d_tx;
    std::array<uint8_t, max_datagram_bytes + 1> d_rx; // + 1: see oversized responses

    std::atomic<int64_t> d_round_trip_ns{ 0 };
    std::atomic<int> d_last_attempts{ 0 };
    std::atomic<uint64_t> d_transactions{ 0 };
    std::atomic<uint64_t> d_retries{ 0 };
    std::atomic<uint64_t> d_timeouts{ 0 };
    std::atomic<uint64_t> d_discarded{ 0 };
    std::atomic<uint64_t> d_posted{ 0 };
};

} // namespace axioe
} // namespace rdma
} // namespace gr

#endif
