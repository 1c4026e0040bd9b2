/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_AXIOE_QA_AXIOE_HELPERS_H
#define INCLUDED_RDMA_AXIOE_QA_AXIOE_HELPERS_H

// Test helpers shared by the qa_axioe suites (codec, client, server): a register
// target, requests and responses built with the codec, and a raw UDP peer.

#include "axioe_packet.h"
#include "axioe_server.h"
#include "util/socket_address.h"
#include "util/udp_socket.h"
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace qa_axioe {

using namespace gr::rdma;
using namespace gr::rdma::axioe;
using bytes = std::vector<uint8_t>;

/*
 * The device's registers as far as these tests need them:
 *   0x0000..0x0FFC  1024 read/write words
 *   0x1000          command: write-only, counts the words written to it (executions);
 *                   reading it is refused (SLVERR)
 *   0x2000          read-only: writing it is refused (SLVERR)
 *   0x3000          FIFO: writes push, reads pop (0 when empty)
 *   0x4000          owned: read/write for the client set_owner() names, NOT_OWNER for
 *                   any other client
 *   anything else   DECERR
 * A burst is checked whole before any of it is executed, so a failing burst has no
 * effect, as register_target asks. Every call records its client; tick() counts.
 */
class test_registers : public register_target
{
public:
    static constexpr uint32_t ram_words = 1024;
    static constexpr uint32_t command = 0x1000;
    static constexpr uint32_t read_only = 0x2000;
    static constexpr uint32_t fifo = 0x3000;
    static constexpr uint32_t owned = 0x4000;
    static constexpr std::chrono::milliseconds tick_interval{ 5 };

    status read(const socket_address& client,
                uint32_t address,
                uint32_t* out,
                size_t count,
                bool fixed) override;
    status write(const socket_address& client,
                 uint32_t address,
                 const uint32_t* words,
                 size_t count,
                 bool fixed) override;
    std::chrono::microseconds tick() override;

    uint64_t command_executions() const;
    size_t last_count() const;
    uint32_t ram(uint32_t address) const;
    socket_address last_client() const;
    void set_owner(const socket_address& client);
    uint64_t ticks() const;

private:
    static uint32_t at(uint32_t address, size_t i, bool fixed);
    status check(uint32_t a, bool is_write, const socket_address& client) const;

    mutable std::mutex d_mutex;
    std::vector<uint32_t> d_ram = std::vector<uint32_t>(ram_words, 0);
    std::deque<uint32_t> d_fifo;
    uint64_t d_command_executions = 0;
    size_t d_last_count = 0;
    socket_address d_last_client;
    socket_address d_owner;
    uint32_t d_owned = 0;
    uint64_t d_ticks = 0;
};

socket_address loopback();

bytes encode(const request& r, const std::vector<uint32_t>& words = {});

request make_request(opcode op, uint32_t sequence, uint32_t address, uint16_t count);

bytes encode(const response& r, const std::vector<uint32_t>& words = {});

// A plain UDP endpoint for speaking raw AXIoE to a server.
class raw_peer
{
public:
    raw_peer();
    socket_address address() const;
    void send(const bytes& b, const socket_address& to);
    //! The next datagram, or an empty vector after \p timeout.
    bytes receive(std::chrono::microseconds timeout, socket_address* from = nullptr);

private:
    udp_socket d_socket;
};

//! Decodes \p b as a response, asserting that it is well-formed.
response decode_ok(const bytes& b);

} // namespace qa_axioe

#endif
