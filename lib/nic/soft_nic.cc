/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/thread_role.h"
#include "soft_completion_queue.h"
#include "soft_nic.h"
#include "soft_protection_domain.h"
#include "soft_tables.h"
#include <system_error>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr auto report_interval = std::chrono::seconds(10);
constexpr auto idle_wait = std::chrono::seconds(1);
constexpr uint8_t syndrome_type_mask = 0xE0;

const soft_nic_config& validated(const soft_nic_config& config)
{
    if (!valid_path_mtu(config.max_path_mtu))
        throw std::invalid_argument("soft_nic: max_path_mtu " +
                                    std::to_string(config.max_path_mtu) +
                                    " is not one of 256, 512, 1024, 2048, 4096");
    return config;
}
} // namespace

soft_nic::soft_nic(const soft_nic_config& config)
    : d_config(validated(config)),
      d_logger(make_logger("soft_nic")),
      d_tables(std::make_shared<soft_tables>()),
      d_responder(*d_tables),
      d_socket(config.bind_to),
      d_tx_packet(read_response_bytes(d_config.max_path_mtu)),
      d_next_report(std::chrono::steady_clock::now() + report_interval)
{
    size_socket_buffer();
    // Coalesced receives need buffers for 64 KiB; without them, a datagram a buffer.
    d_gro = d_socket.enable_gro();
    const size_t buffers = d_gro ? receive_buffers : batch_size;
    const size_t bytes = d_gro ? receive_buffer_bytes : slot_bytes;
    d_slot_memory.assign(buffers * bytes, 0);
    d_slots.resize(buffers);
    for (size_t i = 0; i < buffers; i++) {
        d_slots[i].data = d_slot_memory.data() + i * bytes;
        d_slots[i].capacity = bytes;
    }
    d_inproc = std::make_shared<wire::frame_queue>(d_wake, slot_bytes);
    wire::frame_queue::publish(roce_address(), d_inproc);
    if (d_config.start_thread)
        d_thread = std::thread([this] { run(); });
}

soft_nic::~soft_nic()
{
    if (d_thread.joinable()) {
        d_stop.store(true, std::memory_order_release);
        d_wake.notify();
        d_thread.join();
    }
    wire::frame_queue::withdraw(roce_address(), d_inproc.get());
    d_inproc->close(); // no producer touches d_wake from here on
}

void soft_nic::size_socket_buffer()
{
    const size_t want = d_config.socket_buffer_bytes;
    if (want == 0)
        return;
    d_granted_buffer = d_socket.request_receive_buffer(want);
    // A sender on loopback can outpace this thread for a moment; what does not fit in
    // the socket buffer is lost before the NIC sees it, and shows up as PSN gaps.
    if (d_granted_buffer < want / 2)
        d_logger->warn("{}: socket receive buffer is {} bytes, {} requested; bursts "
                       "beyond it are lost. Fix: sysctl -w net.core.rmem_max={} (or "
                       "run with CAP_NET_ADMIN)",
                       name(),
                       d_granted_buffer,
                       want,
                       want);
}

std::string soft_nic::name() const
{
    return "soft_nic@" + d_socket.local_address().to_string();
}

std::unique_ptr<protection_domain> soft_nic::alloc_pd()
{
    return std::make_unique<soft_protection_domain>(d_tables, d_config.max_path_mtu);
}

std::unique_ptr<completion_queue> soft_nic::create_cq(int entries)
{
    return std::make_unique<soft_completion_queue>(
        std::make_shared<completion_ring>(entries, d_tables.get()));
}

counters soft_nic::read_counters() const { return d_tables->counters().snapshot(); }

rx_result soft_nic::process_udp_payload(const uint8_t* data,
                                        size_t len,
                                        const socket_address& from,
                                        const socket_address& to)
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    reply r;
    const rx_result result = d_responder.process_udp(data, len, from, to, r);
    send_replies(r);
    return result;
}

rx_result soft_nic::process_ipv4_frame(const uint8_t* frame, size_t len)
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    reply r;
    const rx_result result =
        d_responder.process_frame(frame, len, d_socket.local_address(), r);
    send_replies(r);
    return result;
}

void soft_nic::run()
{
    thread_role_scope role(thread_role::nic, "nic-rx");
    while (!d_stop.load(std::memory_order_acquire)) {
        size_t n = 0;
        try {
            n = d_socket.receive_batch(d_slots.data(), d_slots.size());
        } catch (const std::system_error& e) {
            // Not expected on a bound UDP socket; keep serving, but do not spin.
            d_logger->error("{}: receive failed: {}", name(), e.what());
            d_wake.wait(std::chrono::milliseconds(100));
            continue;
        }
        if (n > 0)
            process_batch(n);
        const size_t frames = process_inproc();
        if (n == 0 && frames == 0) {
            if (d_inproc->prepare_sleep()) {
                d_socket.wait_readable(idle_wait, d_wake.fd());
                d_inproc->woke();
                d_wake.drain(); // in-process wake-ups; stop is d_stop
            }
            continue;
        }
        report_drops();
    }
}

size_t soft_nic::process_inproc()
{
    const size_t n = d_inproc->available(batch_size);
    if (n == 0)
        return 0;
    {
        std::lock_guard<std::mutex> lock(d_tables->mutex());
        for (size_t i = 0; i < n; i++) {
            const wire::inproc_frame& f = d_inproc->at(i);
            reply r;
            d_responder.process_udp(f.data, f.length, f.from, f.to, r);
            send_replies(r);
        }
    }
    d_inproc->release(n);
    return n;
}

void soft_nic::process_batch(size_t count)
{
    const socket_address& local = d_socket.local_address();
    for (size_t i = 0; i < count; i++) {
        // The lock a receive at a time: a batch of coalesced receives holds hundreds
        // of packets, and the host's post_receives() waits for the same lock.
        std::lock_guard<std::mutex> lock(d_tables->mutex());
        const datagram& d = d_slots[i];
        if (d.truncated) {
            d_responder.count(rx_result::drop_truncated);
            continue;
        }
        if (d.coalesced())
            d_tables->counters().add(nic_event::rx_coalesced);
        // IP_PKTINFO tells which of our addresses the peer used, which is what its
        // ICRC covers when we are bound to 0.0.0.0.
        const socket_address to(d.local_ip ? d.local_ip : local.ip(), local.port());
        for_each_segment(d, [&](const uint8_t* data, size_t length) {
            // No RoCE packet of a path MTU up to 4096 comes near a slot; what does is
            // refused as the 9 KiB slots of old refused it.
            if (length > slot_bytes) {
                d_responder.count(rx_result::drop_truncated);
                return;
            }
            reply r;
            d_responder.process_udp(data, length, d.peer, to, r);
            send_replies(r);
        });
    }
}

void soft_nic::send_replies(reply& r)
{
    if (!r.needed && !r.read.needed)
        return;
    // The reply leaves through this socket, so its ICRC must name this socket's port
    // (a frame may have come in on 4791) and, when bound, its address.
    const socket_address& local = d_socket.local_address();
    r.from = socket_address(local.ip() ? local.ip() : r.from.ip(), local.port());
    if (r.read.needed)
        send_read_responses(r);
    if (!r.needed)
        return;
    uint8_t packet[reply_bytes];
    const size_t len = write_reply(r, packet);
    const bool is_ack = (r.syndrome & syndrome_type_mask) == 0;
    try {
        d_socket.send_to(packet, len, r.to);
        d_tables->counters().add(is_ack ? nic_event::acks_sent : nic_event::naks_sent);
    } catch (const std::system_error&) {
        d_tables->counters().add(nic_event::tx_errors);
    }
}

void soft_nic::send_read_responses(const reply& r)
{
    // Served inline, under the table lock that keeps the MR registered: a large READ
    // holds up the receive path for as long as it takes to send (rxe queues READs to
    // its responder task instead). The payload goes from the MR straight into the
    // packet; a refused packet is counted, and the requester re-requests from its PSN.
    soft_counters& c = d_tables->counters();
    for (uint32_t i = 0; i < r.read.packets; i++) {
        const size_t len = write_read_response(r, i, d_tx_packet.data());
        try {
            d_socket.send_to(d_tx_packet.data(), len, r.to);
            c.add(nic_event::read_responses_sent);
            const bool last = i + 1 == r.read.packets;
            c.add(nic_event::tx_bytes,
                  last ? r.read.length - size_t(i) * r.read.mtu : r.read.mtu);
        } catch (const std::system_error&) {
            c.add(nic_event::tx_errors);
        }
    }
}

void soft_nic::report_drops()
{
    const auto now = std::chrono::steady_clock::now();
    if (now < d_next_report)
        return;
    d_next_report = now + report_interval;
    const soft_counters& c = d_tables->counters();
    uint64_t total = 0;
    uint64_t most = 0;
    rx_result most_reason = rx_result::accepted;
    for (size_t i = 0; i < rx_result_count; i++) {
        const auto reason = static_cast<rx_result>(i);
        if (reason == rx_result::accepted || reason == rx_result::duplicate)
            continue;
        const uint64_t now_count = c.get(reason);
        const uint64_t delta = now_count - d_reported[i];
        d_reported[i] = now_count;
        total += delta;
        if (delta > most) {
            most = delta;
            most_reason = reason;
        }
    }
    if (total > 0)
        d_logger->warn("{}: dropped {} packets since the last report, most ({}) as {}",
                       name(),
                       total,
                       most,
                       to_string(most_reason));
}

} // namespace nic
} // namespace rdma
} // namespace gr
