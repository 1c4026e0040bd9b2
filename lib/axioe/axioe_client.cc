/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "axioe_client.h"
#include <spdlog/fmt/fmt.h>
#include <system_error>
#include <algorithm>
#include <random>

namespace gr {
namespace rdma {
namespace axioe {

namespace {

using clock_type = std::chrono::steady_clock;

const client_options& validated(const client_options& o)
{
    if (o.timeout.count() <= 0)
        throw std::invalid_argument("AXIoE client timeout must be positive");
    if (o.retries < 0)
        throw std::invalid_argument("AXIoE client retries must not be negative");
    if (o.max_burst_words == 0 || o.max_burst_words > max_burst_words)
        throw std::invalid_argument(
            fmt::format("AXIoE max_burst_words must be 1..{}, not {}",
                        max_burst_words,
                        o.max_burst_words));
    return o;
}

const socket_address& validated(const socket_address& device)
{
    if (device.port() == 0)
        throw std::invalid_argument("AXIoE device address " + device.to_string() +
                                    " has no port");
    return device;
}

// Random rather than 0, so that a client restarted on the same source port does not
// reuse sequence numbers the device still holds responses for.
uint32_t initial_sequence() { return static_cast<uint32_t>(std::random_device{}()); }

std::string words(size_t count)
{
    return fmt::format("{} word{}", count, count == 1 ? "" : "s");
}

} // namespace

client::client(const socket_address& device, client_options options)
    : d_device(validated(device)),
      d_options(validated(options)),
      d_logger(make_logger("axioe client")),
      d_socket(socket_address(0, 0)),
      d_max_burst_words(d_options.max_burst_words),
      d_next_sequence(initial_sequence())
{
}

void client::set_max_burst_words(size_t words)
{
    if (words == 0 || words > d_options.max_burst_words)
        throw std::invalid_argument(
            fmt::format("AXIoE burst limit for {} must be 1..{} words, not {}",
                        d_device.to_string(),
                        d_options.max_burst_words,
                        words));
    d_max_burst_words.store(words);
}

size_t client::max_burst_words() const { return d_max_burst_words.load(); }

void client::check_atomic(opcode op, uint32_t address, size_t count) const
{
    const size_t limit = d_max_burst_words.load();
    if (count > limit)
        throw burst_limit_error(fmt::format(
            "{} must be one burst, but the device takes at most {} per burst (its "
            "ID_MAX_BURST_WORDS, or client_options::max_burst_words): it cannot serve "
            "this host",
            describe(op, address, count),
            words(limit)));
}

void client::check_burst(uint32_t address, size_t count, bool fixed) const
{
    if (address % word_bytes != 0)
        throw std::invalid_argument(
            fmt::format("AXIoE address {:#x} is not a multiple of 4", address));
    if (!fixed && uint64_t(address) + uint64_t(count) * word_bytes > (1ull << 32))
        throw std::invalid_argument(fmt::format(
            "AXIoE burst of {} at {:#x} runs past the end of the address space",
            words(count),
            address));
}

void client::read(uint32_t address, uint32_t* out, size_t count, bool fixed)
{
    check_burst(address, count, fixed);
    const opcode op = fixed ? opcode::read_fixed : opcode::read;
    std::lock_guard<std::mutex> lock(d_mutex);
    for (size_t done = 0; done < count;) {
        const size_t n = std::min(count - done, d_max_burst_words.load());
        const uint32_t at = fixed ? address : address + uint32_t(done * word_bytes);
        transact(op, at, nullptr, out + done, static_cast<uint16_t>(n));
        done += n;
    }
}

void client::write(uint32_t address, const uint32_t* words, size_t count, bool fixed)
{
    check_burst(address, count, fixed);
    const opcode op = fixed ? opcode::write_fixed : opcode::write;
    std::lock_guard<std::mutex> lock(d_mutex);
    for (size_t done = 0; done < count;) {
        const size_t n = std::min(count - done, d_max_burst_words.load());
        const uint32_t at = fixed ? address : address + uint32_t(done * word_bytes);
        transact(op, at, words + done, nullptr, static_cast<uint16_t>(n));
        done += n;
    }
}

void client::read_atomic(uint32_t address, uint32_t* out, size_t count, bool fixed)
{
    check_burst(address, count, fixed);
    const opcode op = fixed ? opcode::read_fixed : opcode::read;
    std::lock_guard<std::mutex> lock(d_mutex);
    check_atomic(op, address, count);
    if (count)
        transact(op, address, nullptr, out, static_cast<uint16_t>(count));
}

void client::write_atomic(uint32_t address,
                          const uint32_t* words,
                          size_t count,
                          bool fixed)
{
    check_burst(address, count, fixed);
    const opcode op = fixed ? opcode::write_fixed : opcode::write;
    std::lock_guard<std::mutex> lock(d_mutex);
    check_atomic(op, address, count);
    if (count)
        transact(op, address, words, nullptr, static_cast<uint16_t>(count));
}

uint32_t client::read32(uint32_t address)
{
    uint32_t value = 0;
    read(address, &value, 1);
    return value;
}

void client::write32(uint32_t address, uint32_t value) { write(address, &value, 1); }

uint64_t client::read64(uint32_t address_lo)
{
    uint32_t w[2] = { 0, 0 };
    read_atomic(address_lo, w, 2);
    return (uint64_t(w[1]) << 32) | w[0];
}

void client::write64(uint32_t address_lo, uint64_t value)
{
    const uint32_t w[2] = { static_cast<uint32_t>(value),
                            static_cast<uint32_t>(value >> 32) };
    write_atomic(address_lo, w, 2);
}

bool client::post_read(uint32_t address)
{
    check_burst(address, 1, false);
    std::unique_lock<std::mutex> lock(d_mutex, std::try_to_lock);
    if (!lock.owns_lock())
        return false;
    request r;
    r.op = opcode::read;
    r.sequence = d_next_sequence++; // given up at once: the next one takes a new number
    r.address = address;
    r.count = 1;
    const size_t len = encode_request(d_tx.data(), r);
    try {
        d_socket.send_to(d_tx.data(), len, d_device);
    } catch (const std::system_error&) {
        return false; // as a lost datagram: the next one may get through
    }
    d_posted.fetch_add(1, std::memory_order_relaxed);
    return true;
}

std::chrono::nanoseconds client::last_round_trip() const
{
    return std::chrono::nanoseconds(d_round_trip_ns.load(std::memory_order_relaxed));
}

int client::last_attempts() const
{
    return d_last_attempts.load(std::memory_order_relaxed);
}

client::stats_t client::stats() const
{
    stats_t s;
    s.transactions = d_transactions.load(std::memory_order_relaxed);
    s.retries = d_retries.load(std::memory_order_relaxed);
    s.timeouts = d_timeouts.load(std::memory_order_relaxed);
    s.discarded_responses = d_discarded.load(std::memory_order_relaxed);
    s.posted = d_posted.load(std::memory_order_relaxed);
    return s;
}

std::string client::describe(opcode op, uint32_t address, size_t count) const
{
    return fmt::format("AXIoE {} {:#x} ({}) {} {}",
                       to_string(op),
                       address,
                       words(count),
                       is_write(op) ? "to" : "from",
                       d_device.to_string());
}

bool client::matches(const datagram& d, const request& r, response& out) const
{
    // Anything else in the socket is a late copy of an earlier response (the device
    // answered a retransmission too), a response the network duplicated, or noise.
    if (d.truncated || d.peer != d_device)
        return false;
    if (decode_response(d.data, d.length, out) != parse_status::ok)
        return false;
    return out.sequence == r.sequence &&
           out.request_opcode == static_cast<uint8_t>(r.op) && out.address == r.address &&
           out.count == r.count;
}

bool client::await(const request& r,
                   std::chrono::steady_clock::time_point deadline,
                   response& answer)
{
    datagram slot;
    slot.data = d_rx.data();
    slot.capacity = d_rx.size();
    for (auto now = clock_type::now(); now < deadline; now = clock_type::now()) {
        if (!d_socket.receive(
                slot, std::chrono::ceil<std::chrono::microseconds>(deadline - now)))
            continue;
        if (matches(slot, r, answer))
            return true;
        d_discarded.fetch_add(1, std::memory_order_relaxed);
    }
    return false;
}

void client::transact(
    opcode op, uint32_t address, const uint32_t* in, uint32_t* out, uint16_t count)
{
    request r;
    r.op = op;
    r.sequence = d_next_sequence++;
    r.address = address;
    r.count = count;
    const size_t len = encode_request(d_tx.data(), r, in);
    d_transactions.fetch_add(1, std::memory_order_relaxed);

    const int attempts = 1 + d_options.retries;
    for (int attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) {
            d_retries.fetch_add(1, std::memory_order_relaxed);
            d_logger->debug("{}: no response to sequence {:#x}, attempt {} of {}",
                            describe(op, address, count),
                            r.sequence,
                            attempt,
                            attempts);
        }
        // The same datagram every time: the device recognises the sequence number and
        // answers a copy it has executed from its cache instead of executing it again.
        d_socket.send_to(d_tx.data(), len, d_device);
        const auto sent = clock_type::now();
        response answer;
        if (!await(r, sent + d_options.timeout, answer))
            continue;
        d_round_trip_ns.store(
            std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - sent)
                .count(),
            std::memory_order_relaxed);
        d_last_attempts.store(attempt, std::memory_order_relaxed);
        if (!is_success(answer.code)) {
            std::string what = fmt::format("{} failed: {} ({})",
                                           describe(op, address, count),
                                           to_string(answer.code),
                                           axioe::describe(answer.code));
            if (answer.code == status::unsupported_version)
                what += fmt::format("; the device speaks version {}, this client {}",
                                    answer.version,
                                    protocol_version);
            if (answer.code == status::not_owner)
                what += "; the owner frees it by releasing it or by staying silent for "
                        "its lease, and a take-over claim takes it at once";
            throw error(what, answer.code, address);
        }
        if (!is_write(op))
            load_words(answer.payload, out, count);
        return;
    }
    d_timeouts.fetch_add(1, std::memory_order_relaxed);
    throw timeout_error(
        fmt::format("{}: no valid response after {} attempts {} ms apart; is the device "
                    "at {} running and reachable? check addr= in the device args",
                    describe(op, address, count),
                    attempts,
                    std::chrono::duration<double, std::milli>(d_options.timeout).count(),
                    d_device.to_string()),
        address,
        attempts);
}

} // namespace axioe
} // namespace rdma
} // namespace gr
