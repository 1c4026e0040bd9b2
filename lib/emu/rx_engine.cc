/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rx_engine.h"
#include "../nic/nic.h"
#include "../regs/register_map.h"
#include "../util/thread_role.h"
#include "device_clock.h"
#include <algorithm>
#include <chrono>
#include <string>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr size_t max_batch_packets = 64;
constexpr uint32_t max_payload_bytes = 65536;
// BTH + RETH + ImmDt, the largest header set the engine sends.
constexpr size_t max_headers = roce::bth_bytes + roce::reth_bytes + roce::immdt_bytes;
// Wake at most this often: a hardware engine sends as samples come, the emulator
// trades a little latency for fewer wake-ups.
constexpr int64_t min_sleep_ns = 50000;

using u128 = unsigned __int128;

uint64_t samples_per_message(const rx_descriptor& d)
{
    return d.payload_bytes / item_size(d.signal.format);
}

uint64_t total_messages(const rx_descriptor& d)
{
    const uint64_t spm = samples_per_message(d);
    return d.num_samples ? (d.num_samples + spm - 1) / spm : UINT64_MAX;
}

// Samples the converter has produced t_ns after sample 0 was taken.
uint64_t samples_at(const rx_descriptor& d, int64_t t_ns)
{
    if (t_ns <= 0)
        return 0;
    return static_cast<uint64_t>(u128(t_ns) * d.rate_num / (u128(d.rate_den) * 1000000000u));
}

// Time (ns after sample 0) at which the converter has produced \p samples samples.
int64_t time_of(const rx_descriptor& d, uint64_t samples)
{
    const u128 num = u128(samples) * d.rate_den * 1000000000u;
    return static_cast<int64_t>((num + d.rate_num - 1) / d.rate_num);
}

} // namespace

uint32_t validate(const rx_descriptor& d, unsigned link_mtu)
{
    namespace ec = regs::error_code;
    const uint32_t fmt = static_cast<uint32_t>(d.signal.format);
    if (fmt != regs::format::sc16 && fmt != regs::format::fc32)
        return ec::bad_format;
    const size_t item = item_size(d.signal.format);
    if (d.payload_bytes == 0 || d.payload_bytes % item || d.payload_bytes > max_payload_bytes)
        return ec::bad_payload;
    if (!nic::valid_path_mtu(d.path_mtu) ||
        d.path_mtu + wire::headroom + max_headers + roce::icrc_bytes > link_mtu)
        return ec::bad_mtu;
    if (d.ring_bytes == 0 || d.ring_bytes % d.payload_bytes || d.va + d.ring_bytes < d.va)
        return ec::bad_ring;
    if (d.rate_num == 0 || d.rate_den == 0)
        return ec::bad_rate;
    if (d.destination.ip() == 0 || d.destination.port() == 0 || d.dest_qpn == 0)
        return ec::bad_destination;
    if (d.transport != 0)
        return ec::bad_transport;
    return ec::none;
}

rx_engine::rx_engine(unsigned index, wire& link)
    : d_index(index),
      d_link(link),
      d_batch(max_batch_packets),
      d_thread([this] { run(); })
{
}

rx_engine::~rx_engine()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_shutdown = true;
        d_running = false;
    }
    d_wake.notify_all();
    d_thread.join();
}

uint32_t rx_engine::start(const rx_descriptor& d)
{
    std::unique_lock<std::mutex> lock(d_mutex);
    if (d_running)
        return regs::error_code::busy;
    const uint32_t error = validate(d, d_link.mtu());
    if (error != regs::error_code::none) {
        d_status = regs::status::error | (error << regs::status::error_shift);
        return error;
    }
    // Wait for the thread to leave the previous run before handing it a new one.
    d_wake.wait(lock, [this] { return d_idle; });
    d_desc = d;
    d_next_psn = d.start_psn & 0xFFFFFF;
    const uint64_t now = device_time_ns();
    const uint64_t t0 = d.start_time_ns ? d.start_time_ns : now;
    d_mono_t0_ns = monotonic_ns() + static_cast<int64_t>(t0 - now);
    d_start_time_ns = t0;
    d_packets_sent = 0;
    d_samples_emitted = 0;
    d_imm_sent = 0;
    const size_t slot = wire::headroom + max_headers + d.path_mtu + 3 + roce::icrc_bytes;
    d_slots.assign(max_batch_packets * ((slot + 63) & ~size_t(63)), 0);
    d_status = regs::status::running;
    d_running = true;
    d_idle = false;
    lock.unlock();
    d_wake.notify_all();
    return regs::error_code::none;
}

void rx_engine::stop()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    d_running = false;
    d_wake.notify_all();
    d_wake.wait(lock, [this] { return d_idle; });
    d_status = d_status.load() & ~regs::status::running;
}

uint32_t rx_engine::status() const { return d_status.load(); }

rx_counters rx_engine::counters() const
{
    rx_counters c;
    c.packets_sent = d_packets_sent.load();
    c.samples_emitted = d_samples_emitted.load();
    c.imm_sent = d_imm_sent.load();
    return c;
}

void rx_engine::run()
{
    const std::string name = "emu-rx" + std::to_string(d_index);
    thread_role_scope role(thread_role::device, name.c_str());
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_shutdown) {
        if (!d_running) {
            d_idle = true;
            d_wake.notify_all();
            d_wake.wait(lock, [this] { return d_running || d_shutdown; });
            continue;
        }
        stream(lock);
        d_running = false;
    }
    d_idle = true;
    d_wake.notify_all();
}

void rx_engine::stream(std::unique_lock<std::mutex>& lock)
{
    const rx_descriptor& d = d_desc;
    const uint64_t spm = samples_per_message(d);
    const uint64_t messages = total_messages(d);
    const size_t slot_bytes = d_slots.size() / max_batch_packets;
    const size_t packets_per_message = (d.payload_bytes + d.path_mtu - 1) / d.path_mtu;
    const size_t messages_per_batch = std::max<size_t>(1, max_batch_packets / packets_per_message);
    uint64_t next = 0;

    while (d_running) {
        if (next == messages) {
            d_status = regs::status::done;
            return;
        }
        const int64_t elapsed = monotonic_ns() - d_mono_t0_ns;
        const uint64_t produced = std::min<uint64_t>(samples_at(d, elapsed),
                                                     d.num_samples ? d.num_samples : UINT64_MAX);
        const uint64_t ready = d.num_samples && produced == d.num_samples
                                   ? messages
                                   : produced / spm;
        if (next >= ready) {
            const int64_t due = time_of(d, std::min((next + 1) * spm,
                                                    d.num_samples ? d.num_samples : UINT64_MAX));
            const int64_t sleep_ns = std::max(due - elapsed, min_sleep_ns);
            d_wake.wait_for(lock, std::chrono::nanoseconds(sleep_ns), [this] { return !d_running; });
            continue;
        }
        // Build and send a batch without holding the lock: STOP waits for d_idle, and
        // d_desc does not change while running.
        lock.unlock();
        size_t count = 0;
        const uint64_t last = std::min<uint64_t>(ready, next + messages_per_batch);
        for (; next < last; next++)
            count += build_message(next, d_slots.data() + count * slot_bytes, slot_bytes,
                                   d_batch.data() + count);
        const size_t sent = send_all(d_batch.data(), count, lock);
        account(sent);
        if (sent < count)
            return;
    }
}

void rx_engine::account(size_t sent)
{
    const size_t item = item_size(d_desc.signal.format);
    uint64_t samples = 0, imms = 0;
    for (size_t i = 0; i < sent; i++) {
        const outgoing_packet& p = d_batch[i];
        const roce::opcode_info info = roce::describe(p.udp_payload[0]);
        const size_t headers = roce::headers_size(p.udp_payload[0]);
        const size_t pad = (p.udp_payload[1] >> 4) & 3;
        samples += (p.length - headers - pad - roce::icrc_bytes) / item;
        imms += info.has_imm ? 1 : 0;
    }
    d_packets_sent += sent;
    d_samples_emitted += samples;
    d_imm_sent += imms;
}

size_t rx_engine::build_message(uint64_t message,
                                 uint8_t* slots,
                                 size_t slot_bytes,
                                 outgoing_packet* out)
{
    const rx_descriptor& d = d_desc;
    const size_t item = item_size(d.signal.format);
    const uint64_t spm = samples_per_message(d);
    const uint64_t first_sample = message * spm;
    const uint64_t samples =
        d.num_samples ? std::min<uint64_t>(spm, d.num_samples - first_sample) : spm;
    const size_t message_bytes = samples * item;
    const bool last_of_burst = d.num_samples && first_sample + samples == d.num_samples;
    const bool with_imm =
        last_of_burst || (d.notify_interval && (message + 1) % d.notify_interval == 0);
    const uint32_t imm = static_cast<uint32_t>(message);

    roce::reth reth;
    reth.va = d.va + (message * d.payload_bytes) % d.ring_bytes;
    reth.rkey = d.rkey;
    reth.dma_length = static_cast<uint32_t>(message_bytes);

    const signal_source signal(d.signal);
    const size_t packets = (message_bytes + d.path_mtu - 1) / d.path_mtu;
    for (size_t j = 0; j < packets; j++) {
        const size_t offset = j * d.path_mtu;
        const size_t bytes = std::min<size_t>(d.path_mtu, message_bytes - offset);
        const bool first = j == 0, last = j + 1 == packets;
        uint8_t op;
        if (first && last)
            op = with_imm ? roce::opcode::write_only_imm : roce::opcode::write_only;
        else if (first)
            op = roce::opcode::write_first;
        else if (last)
            op = with_imm ? roce::opcode::write_last_imm : roce::opcode::write_last;
        else
            op = roce::opcode::write_middle;
        roce::bth bth;
        bth.opcode = roce::opcode::uc | op;
        bth.pad_count = roce::pad_for(bytes);
        bth.dest_qp = d.dest_qpn;
        bth.psn = d_next_psn;
        d_next_psn = (d_next_psn + 1) & 0xFFFFFF;

        uint8_t* packet = slots + j * slot_bytes + wire::headroom;
        const size_t headers = roce::write_headers(packet, bth, &reth, &imm);
        signal.generate(first_sample + offset / item, bytes / item, packet + headers);
        out[j].udp_payload = packet;
        out[j].length = roce::finish(packet, headers, bytes);
    }
    return packets;
}

size_t rx_engine::send_all(outgoing_packet* packets, size_t count, std::unique_lock<std::mutex>& lock)
{
    size_t sent = 0;
    while (true) {
        sent += d_link.send(packets + sent, count - sent, d_desc.destination);
        lock.lock();
        if (sent == count || !d_running)
            return sent;
        // The transmit queue is full: back off briefly, as a link would.
        d_wake.wait_for(lock, std::chrono::microseconds(20), [this] { return !d_running; });
        lock.unlock();
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
