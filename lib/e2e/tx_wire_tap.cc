/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../roce/roce_packet.h"
#include "tx_wire_tap.h"
#include <algorithm>
#include <chrono>

namespace gr {
namespace rdma {

namespace {

constexpr uint32_t psn_mask = 0xFFFFFF;
constexpr size_t max_datagram = 9000;

int32_t psn_diff(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>((a - b) << 8) >> 8;
}

int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

tx_wire_tap::tx_wire_tap(const socket_address& device_link)
    : d_device_link(device_link),
      d_device_side(socket_address::parse("127.0.0.1:0")),
      d_host_side(socket_address::parse("127.0.0.1:0"))
{
    d_device_side.request_receive_buffer(4u << 20);
    d_host_side.request_receive_buffer(4u << 20);
}

tx_wire_tap::~tx_wire_tap() { stop(); }

void tx_wire_tap::start(const socket_address& nic,
                        const layout& l,
                        std::function<verdict(const incoming&)> gate,
                        std::mutex* gate_lock)
{
    d_nic = nic;
    d_layout = l;
    d_next_psn = l.start_psn & psn_mask;
    d_gate = std::move(gate);
    d_gate_lock = gate_lock;
    d_thread = std::thread([this] { run(); });
}

void tx_wire_tap::stop()
{
    d_stop = true;
    if (d_thread.joinable())
        d_thread.join();
}

void tx_wire_tap::run()
{
    std::vector<uint8_t> buffer(max_datagram);
    while (!d_stop) {
        bool any = false;
        for (udp_socket* s : { &d_device_side, &d_host_side }) {
            datagram d;
            d.data = buffer.data();
            d.capacity = buffer.size();
            while (s->receive_batch(&d, 1) == 1) {
                any = true;
                if (d.truncated)
                    continue;
                if (s == &d_device_side)
                    from_device(d.data, d.length);
                else
                    from_host(d.data, d.length);
            }
        }
        drain_queue();
        if (!any)
            d_device_side.wait_readable(std::chrono::microseconds(50), d_host_side.fd());
    }
}

unsigned tx_wire_tap::reads_outstanding() const
{
    return static_cast<unsigned>(
        std::count_if(d_outstanding.begin(), d_outstanding.end(), [](const request& r) {
            return r.kind != request_kind::notify;
        }));
}

void tx_wire_tap::from_device(uint8_t* data, size_t length)
{
    d_last_device_ns = steady_ns();
    roce::packet p;
    if (roce::parse(data, length, p) == roce::parse_status::ok) {
        const roce::opcode_info info = roce::describe(p.base.opcode);
        // A request at the next PSN is new; one before it is a request sent again.
        if (psn_diff(p.base.psn, d_next_psn) == 0 &&
            (info.is_read_request || info.is_send)) {
            request r;
            r.first_psn = p.base.psn;
            if (info.is_send) {
                r.kind = request_kind::notify;
            } else if (p.reth_hdr.va == d_layout.control_va) {
                r.kind = request_kind::control;
            } else {
                // Messages are requested in order, skipping at most a ring's worth.
                const uint64_t slot =
                    (p.reth_hdr.va - d_layout.ring_va) / d_layout.payload_bytes;
                const uint64_t n = d_layout.ring_slots;
                const uint64_t after = uint64_t(d_last_message + 1);
                r.message = after + (slot + n - after % n) % n;
                d_last_message = static_cast<int64_t>(r.message);
            }
            if (info.is_read_request)
                r.packets = std::max<uint32_t>(
                    1,
                    (p.reth_hdr.dma_length + d_layout.path_mtu - 1) / d_layout.path_mtu);
            d_next_psn = (d_next_psn + r.packets) & psn_mask;
            d_outstanding.push_back(r);
            d_requests++;
            d_peak = std::max(d_peak.load(), reads_outstanding());
        } else {
            d_repeats++;
        }
    }
    reseal_and_send(d_host_side, data, length, d_nic);
}

void tx_wire_tap::from_host(const uint8_t* data, size_t length)
{
    d_queue.push_back(packet{ std::vector<uint8_t>(data, data + length) });
}

tx_wire_tap::incoming tx_wire_tap::classify(const std::vector<uint8_t>& bytes) const
{
    incoming in;
    roce::packet p;
    if (roce::parse(bytes.data(), bytes.size(), p) != roce::parse_status::ok)
        return in;
    const roce::opcode_info info = roce::describe(p.base.opcode);
    in.response = info.is_read_response;
    if (!in.response || d_outstanding.empty())
        return in;
    const request& head = d_outstanding.front();
    const bool in_order = head.kind != request_kind::notify &&
                          psn_diff(p.base.psn, head.first_psn) == int32_t(head.received);
    in.completes = in_order && head.kind == request_kind::sample &&
                   head.received + 1 == head.packets;
    in.message = head.message;
    return in;
}

void tx_wire_tap::account(const std::vector<uint8_t>& bytes)
{
    // As the device's requester takes it: responses in order, for the oldest request;
    // an ACK completes the SENDs it covers.
    roce::packet p;
    if (roce::parse(bytes.data(), bytes.size(), p) != roce::parse_status::ok ||
        d_outstanding.empty())
        return;
    const roce::opcode_info info = roce::describe(p.base.opcode);
    request& head = d_outstanding.front();
    if (info.is_read_response) {
        if (head.kind == request_kind::notify ||
            psn_diff(p.base.psn, head.first_psn) != int32_t(head.received))
            return;
        if (++head.received < head.packets)
            return;
        const request done = head;
        d_outstanding.pop_front();
        if (done.kind == request_kind::sample && d_delivered)
            d_delivered(done.message);
    } else if (info.is_ack && (p.aeth_hdr.syndrome >> 5) == 0) {
        while (!d_outstanding.empty() &&
               d_outstanding.front().kind == request_kind::notify &&
               psn_diff(d_outstanding.front().first_psn, p.base.psn) <= 0)
            d_outstanding.pop_front();
    }
}

void tx_wire_tap::drain_queue()
{
    while (!d_queue.empty()) {
        std::unique_lock<std::mutex> lock;
        if (d_gate_lock)
            lock = std::unique_lock<std::mutex>(*d_gate_lock);
        packet& head = d_queue.front();
        const verdict v = d_gate ? d_gate(classify(head.bytes)) : verdict::forward;
        if (v == verdict::hold)
            return;
        if (v == verdict::drop) {
            d_dropped++;
        } else {
            // Sent under the lock: a test that advances the device's clock under it
            // knows the packet was at the device before the clock moved.
            account(head.bytes);
            reseal_and_send(
                d_device_side, head.bytes.data(), head.bytes.size(), d_device_link);
            d_forwarded++;
        }
        d_queue.pop_front();
    }
}

void tx_wire_tap::reseal_and_send(udp_socket& from,
                                  uint8_t* data,
                                  size_t length,
                                  const socket_address& to)
{
    // The ICRC covers the UDP addresses, which the tap changes (both ends rebuild the
    // same canonical header for a UDP socket).
    if (length >= roce::bth_bytes + roce::icrc_bytes) {
        roce::ip_context ip;
        ip.src_ip = from.local_address().ip();
        ip.src_port = from.local_address().port();
        ip.dst_ip = to.ip();
        ip.dst_port = to.port();
        roce::seal_udp(ip, data, length);
    }
    from.send_to(data, length, to);
}

} // namespace rdma
} // namespace gr
