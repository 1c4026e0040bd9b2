/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "axioe_server.h"
#include "util/thread_role.h"
#include <system_error>
#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {
namespace axioe {

namespace {
// The wake fd ends the wait at shutdown; the timeout only bounds the damage of a lost
// wake-up.
constexpr std::chrono::seconds idle_wait{ 1 };

// What a register target may answer: the AXI statuses, and NOT_OWNER.
bool is_target_status(status s)
{
    return s == status::okay || s == status::exokay || s == status::slverr ||
           s == status::decerr || s == status::not_owner;
}

// The target's timers run at least this often (and no more than once per batch).
constexpr std::chrono::microseconds shortest_tick{ 1000 };
} // namespace

namespace {
size_t validated_burst_limit(size_t words)
{
    if (words == 0 || words > max_burst_words)
        throw std::invalid_argument("AXIoE server: max_burst_words must be 1.." +
                                    std::to_string(max_burst_words) + ", not " +
                                    std::to_string(words));
    return words;
}
} // namespace

server::server(const socket_address& bind_to, register_target& target, size_t max_words)
    : d_target(target),
      d_max_burst_words(validated_burst_limit(max_words)),
      d_logger(make_logger("axioe server")),
      d_socket(bind_to)
{
    for (size_t i = 0; i < batch; i++) {
        d_slots[i].data = d_rx[i].data();
        d_slots[i].capacity = d_rx[i].size();
    }
    d_thread = std::thread([this] { run(); });
}

server::~server()
{
    d_stop.store(true, std::memory_order_release);
    d_wake.notify();
    if (d_thread.joinable())
        d_thread.join();
}

server::stats_t server::stats() const
{
    stats_t s;
    s.requests = d_requests.load(std::memory_order_relaxed);
    s.executed = d_executed.load(std::memory_order_relaxed);
    s.answered_from_cache = d_from_cache.load(std::memory_order_relaxed);
    s.malformed = d_malformed.load(std::memory_order_relaxed);
    s.stale = d_stale.load(std::memory_order_relaxed);
    s.evicted_clients = d_evicted.load(std::memory_order_relaxed);
    return s;
}

void server::run()
{
    thread_role_scope role(thread_role::device, "emu-axi");
    try {
        while (!d_stop.load(std::memory_order_acquire)) {
            if (!d_socket.wait_readable(tick(), d_wake.fd()))
                continue;
            const size_t n = d_socket.receive_batch(d_slots.data(), batch);
            for (size_t i = 0; i < n; i++)
                handle(d_slots[i]);
        }
    } catch (const std::exception& e) {
        // Only socket failures get here (receive errors other than EAGAIN); the device
        // stops answering and clients report a timeout naming this address.
        d_logger->error(
            "AXIoE server on {} stopped: {}", address().to_string(), e.what());
    }
}

std::chrono::microseconds server::tick()
{
    try {
        return std::clamp<std::chrono::microseconds>(
            d_target.tick(), shortest_tick, idle_wait);
    } catch (const std::exception& e) {
        // A timer that fails must not stop the device from answering.
        d_logger->warn("register target's timers failed: {}", e.what());
        return idle_wait;
    }
}

void server::handle(const datagram& d)
{
    d_requests.fetch_add(1, std::memory_order_relaxed);
    // An oversized datagram arrives cut to capacity, one byte longer than any valid
    // request, so decode_request() reports bad_length for it without a special case.
    request r;
    const parse_status why = decode_request(d.data, d.length, r);
    if (why != parse_status::ok) {
        d_malformed.fetch_add(1, std::memory_order_relaxed);
        reject(d, why);
        return;
    }

    if (r.count > d_max_burst_words) {
        // A burst longer than this device takes (ID_MAX_BURST_WORDS) is malformed here,
        // as one above 256 is everywhere: answered, not executed, not recorded.
        d_malformed.fetch_add(1, std::memory_order_relaxed);
        d_logger->debug("rejected a {}-word burst from {}: this device takes at most {}",
                        r.count,
                        d.peer.to_string(),
                        d_max_burst_words);
        const size_t len =
            encode_response(d_rejection.data(), response_to(r, status::bad_request));
        send(d_rejection.data(), len, d.peer);
        return;
    }
    const uint64_t request_hash = response_cache::hash(d.data, d.length);
    const auto found = d_cache.lookup(d.peer, r.sequence, request_hash);
    d_evicted.store(d_cache.evictions(), std::memory_order_relaxed);
    switch (found.what) {
    case response_cache::verdict::fresh:
        execute(r, d, request_hash);
        break;
    case response_cache::verdict::duplicate:
        d_from_cache.fetch_add(1, std::memory_order_relaxed);
        send(found.cached->bytes.data(), found.cached->length, d.peer);
        break;
    case response_cache::verdict::stale:
        d_stale.fetch_add(1, std::memory_order_relaxed);
        d_logger->debug("dropped a delayed copy of request {} from {}",
                        r.sequence,
                        d.peer.to_string());
        break;
    case response_cache::verdict::conflict: {
        // Executing it could be a repeat, answering from the cache would answer another
        // request: refuse, so that a broken client learns rather than guesses.
        d_malformed.fetch_add(1, std::memory_order_relaxed);
        const size_t len =
            encode_response(d_rejection.data(), response_to(r, status::bad_request));
        send(d_rejection.data(), len, d.peer);
        break;
    }
    }
}

void server::execute(const request& r, const datagram& d, uint64_t request_hash)
{
    status code = status::slverr;
    try {
        if (is_write(r.op)) {
            load_words(r.payload, d_words.data(), r.count);
            code = d_target.write(
                d.peer, r.address, d_words.data(), r.count, is_fixed(r.op));
        } else {
            code =
                d_target.read(d.peer, r.address, d_words.data(), r.count, is_fixed(r.op));
        }
        if (!is_target_status(code)) {
            d_logger->warn("register target returned status {:#x} for {:#x}; sent SLVERR",
                           static_cast<unsigned>(code),
                           r.address);
            code = status::slverr;
        }
    } catch (const std::exception& e) {
        d_logger->warn("register {} at {:#x} failed: {}; sent SLVERR",
                       to_string(r.op),
                       r.address,
                       e.what());
        code = status::slverr;
    }
    // Counted before the answer leaves, so that a client holding the answer sees it.
    d_executed.fetch_add(1, std::memory_order_relaxed);
    response_cache::entry& e = d_cache.record(r.sequence, request_hash);
    e.length = encode_response(e.bytes.data(), response_to(r, code), d_words.data());
    send(e.bytes.data(), e.length, d.peer);
}

void server::send(const uint8_t* data, size_t len, const socket_address& to)
{
    try {
        d_socket.send_to(data, len, to);
    } catch (const std::system_error& e) {
        // One unreachable client (no route, firewall) must not stop the device; the
        // client retries and, if it was answered from the cache, gets the same answer.
        d_logger->warn("AXIoE response to {} not sent: {}", to.to_string(), e.what());
    }
}

void server::reject(const datagram& d, parse_status why)
{
    response answer;
    if (!make_rejection(d.data, d.length, why, answer)) {
        d_logger->debug("dropped a {}-byte datagram from {}: {}",
                        d.length,
                        d.peer.to_string(),
                        to_string(why));
        return;
    }
    d_logger->debug("rejected a {}-byte request from {}: {}",
                    d.length,
                    d.peer.to_string(),
                    to_string(why));
    const size_t len = encode_response(d_rejection.data(), answer);
    send(d_rejection.data(), len, d.peer);
}

} // namespace axioe
} // namespace rdma
} // namespace gr
