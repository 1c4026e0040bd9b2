/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_axioe_helpers.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

namespace qa_axioe {

status test_registers::read(const socket_address& client,
                            uint32_t address,
                            uint32_t* out,
                            size_t count,
                            bool fixed)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_last_count = count;
    d_last_client = client;
    for (size_t i = 0; i < count; i++) {
        const status s = check(at(address, i, fixed), false, client);
        if (s != status::okay)
            return s;
    }
    for (size_t i = 0; i < count; i++) {
        const uint32_t a = at(address, i, fixed);
        if (a == fifo) {
            out[i] = d_fifo.empty() ? 0 : d_fifo.front();
            if (!d_fifo.empty())
                d_fifo.pop_front();
        } else if (a == read_only) {
            out[i] = 0xC0FFEE00;
        } else if (a == owned) {
            out[i] = d_owned;
        } else {
            out[i] = d_ram[a / 4];
        }
    }
    return status::okay;
}

status test_registers::write(const socket_address& client,
                             uint32_t address,
                             const uint32_t* words,
                             size_t count,
                             bool fixed)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_last_count = count;
    d_last_client = client;
    for (size_t i = 0; i < count; i++) {
        const status s = check(at(address, i, fixed), true, client);
        if (s != status::okay)
            return s;
    }
    for (size_t i = 0; i < count; i++) {
        const uint32_t a = at(address, i, fixed);
        if (a == command)
            d_command_executions++;
        else if (a == fifo)
            d_fifo.push_back(words[i]);
        else if (a == owned)
            d_owned = words[i];
        else
            d_ram[a / 4] = words[i];
    }
    return status::okay;
}

uint64_t test_registers::command_executions() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_command_executions;
}

size_t test_registers::last_count() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_last_count;
}

uint32_t test_registers::ram(uint32_t address) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_ram[address / 4];
}

socket_address test_registers::last_client() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_last_client;
}

void test_registers::set_owner(const socket_address& client)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_owner = client;
}

uint64_t test_registers::ticks() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_ticks;
}

std::chrono::microseconds test_registers::tick()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_ticks++;
    return tick_interval;
}

uint32_t test_registers::at(uint32_t address, size_t i, bool fixed)
{
    return fixed ? address : address + static_cast<uint32_t>(4 * i);
}

status
test_registers::check(uint32_t a, bool is_write, const socket_address& client) const
{
    if (a == owned)
        return client == d_owner ? status::okay : status::not_owner;
    if (a < ram_words * 4 || a == fifo)
        return status::okay;
    if (a == command)
        return is_write ? status::okay : status::slverr;
    if (a == read_only)
        return is_write ? status::slverr : status::okay;
    return status::decerr;
}

socket_address loopback() { return socket_address::parse("127.0.0.1:0"); }

bytes encode(const request& r, const std::vector<uint32_t>& words)
{
    bytes out(request_length(r.op, r.count));
    encode_request(out.data(), r, words.data());
    return out;
}

request make_request(opcode op, uint32_t sequence, uint32_t address, uint16_t count)
{
    request r;
    r.op = op;
    r.sequence = sequence;
    r.address = address;
    r.count = count;
    return r;
}

bytes encode(const response& r, const std::vector<uint32_t>& words)
{
    bytes out(response_length(r));
    encode_response(out.data(), r, words.data());
    return out;
}

raw_peer::raw_peer() : d_socket(loopback()) {}

socket_address raw_peer::address() const { return d_socket.local_address(); }

void raw_peer::send(const bytes& b, const socket_address& to)
{
    d_socket.send_to(b.data(), b.size(), to);
}

bytes raw_peer::receive(std::chrono::microseconds timeout, socket_address* from)
{
    uint8_t buf[2048];
    datagram d;
    d.data = buf;
    d.capacity = sizeof(buf);
    if (!d_socket.receive(d, timeout))
        return {};
    if (from)
        *from = d.peer;
    return bytes(buf, buf + d.length);
}

response decode_ok(const bytes& b)
{
    response r;
    CPPUNIT_ASSERT_EQUAL(std::string("ok"),
                         std::string(to_string(decode_response(b.data(), b.size(), r))));
    return r;
}

} // namespace qa_axioe
