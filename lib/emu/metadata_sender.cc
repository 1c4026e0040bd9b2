/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "metadata_sender.h"
#include <sys/socket.h>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace emu {

namespace {

using axioe::status;
using u128 = unsigned __int128;
namespace md = regs::metadata;

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// The block's registers: offset inside the block, 4-byte aligned, up to the counters.
bool exists(uint32_t offset) { return offset % 4 == 0 && offset <= md::source_udp_port; }
bool writable(uint32_t offset) { return offset <= md::control; }

} // namespace

metadata_sender::metadata_sender(const socket_address& bind_to, unsigned streams)
    : d_socket(bind_to), d_streams(streams)
{
    if (streams == 0 || streams > 256)
        throw std::invalid_argument(
            "metadata_sender: 1..256 streams (the record's stream is a byte)");
}

metadata_registers metadata_sender::registers() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    metadata_registers r = d_regs;
    r.source_udp_port = d_socket.local_address().port();
    return r;
}

status metadata_sender::read_register(const metadata_registers& r,
                                      uint32_t offset,
                                      uint32_t& value)
{
    switch (offset) {
    case md::dest_ipv4:
        value = r.dest_ipv4;
        return status::okay;
    case md::dest_udp_port:
        value = r.dest_udp_port;
        return status::okay;
    case md::interval_us:
        value = r.interval_us;
        return status::okay;
    case md::control:
        value = r.control;
        return status::okay;
    case md::packets_sent_lo:
        value = lo(r.packets_sent);
        return status::okay;
    case md::packets_sent_hi:
        value = hi(r.packets_sent);
        return status::okay;
    case md::packets_dropped_lo:
        value = lo(r.packets_dropped);
        return status::okay;
    case md::packets_dropped_hi:
        value = hi(r.packets_dropped);
        return status::okay;
    case md::source_udp_port:
        value = r.source_udp_port;
        return status::okay;
    default:
        return status::decerr;
    }
}

status metadata_sender::write_registers(uint32_t offset,
                                        const uint32_t* words,
                                        size_t count,
                                        bool fixed)
{
    // Check the whole burst first: a refused burst changes nothing.
    for (size_t i = 0; i < count; i++) {
        const uint32_t reg = fixed ? offset : offset + 4 * static_cast<uint32_t>(i);
        if (!exists(reg))
            return status::decerr;
        if (!writable(reg))
            return status::slverr; // counters are read-only
        if (reg == md::dest_udp_port && words[i] > 0xFFFF)
            return status::slverr;
        if (reg == md::control && (words[i] & ~md::control_bits::enable))
            return status::slverr; // reserved bits
    }
    std::lock_guard<std::mutex> lock(d_mutex);
    for (size_t i = 0; i < count; i++) {
        const uint32_t reg = fixed ? offset : offset + 4 * static_cast<uint32_t>(i);
        uint32_t* target = reg == md::dest_ipv4       ? &d_regs.dest_ipv4
                           : reg == md::dest_udp_port ? &d_regs.dest_udp_port
                           : reg == md::interval_us   ? &d_regs.interval_us
                                                      : &d_regs.control;
        *target = words[i];
    }
    return status::okay;
}

void metadata_sender::configure_stream(unsigned stream,
                                       uint32_t rate_num,
                                       uint32_t rate_den)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (stream >= d_streams.size())
        return;
    d_streams[stream].rate_num = rate_num;
    d_streams[stream].rate_den = rate_den ? rate_den : 1;
}

uint64_t metadata_sender::time_of(const stream_state& s, uint64_t sample) const
{
    // Sample k is taken at t0 + k / rate (register-map.md), rounded down to the ns: the
    // same arithmetic as the host's stream clock, so the host can check it exactly.
    if (s.rate_num == 0 || sample < s.first_sample)
        return s.t0_ns;
    return s.t0_ns + static_cast<uint64_t>(u128(sample - s.first_sample) * s.rate_den *
                                           1000000000u / s.rate_num);
}

bool metadata_sender::enabled() const
{
    return (d_regs.control & md::control_bits::enable) && d_regs.dest_ipv4 != 0 &&
           d_regs.dest_udp_port != 0;
}

void metadata_sender::send(meta::record& r)
{
    r.sequence = d_sequence++;
    uint8_t packet[meta::packet_bytes];
    meta::encode(r, packet);
    const socket_address to(d_regs.dest_ipv4,
                            static_cast<uint16_t>(d_regs.dest_udp_port));
    // Non-blocking: a full queue, an unreachable host or an ICMP error of an earlier
    // packet drops this record. Its sequence number is spent, so the host counts it lost.
    const ssize_t n = ::sendto(d_socket.fd(),
                               packet,
                               sizeof(packet),
                               MSG_DONTWAIT,
                               reinterpret_cast<const sockaddr*>(&to.native()),
                               sizeof(sockaddr_in));
    if (n == static_cast<ssize_t>(sizeof(packet)))
        d_regs.packets_sent++;
    else
        d_regs.packets_dropped++;
}

void metadata_sender::stream_started(unsigned stream,
                                     uint64_t t0_ns,
                                     uint64_t first_sample)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (stream >= d_streams.size())
        return;
    stream_state& s = d_streams[stream];
    s.t0_ns = t0_ns;
    s.first_sample = first_sample;
    s.next_timestamp_ns = t0_ns + uint64_t(d_regs.interval_us) * 1000u;
    if (!enabled())
        return;
    meta::record r;
    r.type = meta::record_type::stream_start;
    r.stream = static_cast<uint8_t>(stream);
    r.sample = first_sample;
    r.time_ns = t0_ns;
    send(r);
}

void metadata_sender::progress(unsigned stream, uint64_t samples)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (stream >= d_streams.size() || d_regs.interval_us == 0 || !enabled())
        return;
    stream_state& s = d_streams[stream];
    const uint64_t t = time_of(s, samples);
    if (t < s.next_timestamp_ns)
        return;
    s.next_timestamp_ns = t + uint64_t(d_regs.interval_us) * 1000u;
    meta::record r;
    r.type = meta::record_type::timestamp;
    r.stream = static_cast<uint8_t>(stream);
    r.sample = samples;
    r.time_ns = t;
    send(r);
}

void metadata_sender::stream_ended(unsigned stream, uint64_t samples)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (stream >= d_streams.size() || !enabled())
        return;
    meta::record r;
    r.type = meta::record_type::stream_end;
    r.stream = static_cast<uint8_t>(stream);
    r.sample = samples;
    r.time_ns = time_of(d_streams[stream], samples);
    send(r);
}

void metadata_sender::event(unsigned stream,
                            uint32_t code,
                            uint64_t sample,
                            uint64_t value)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (stream >= d_streams.size() || !enabled())
        return;
    meta::record r;
    r.type = meta::record_type::event;
    r.stream = static_cast<uint8_t>(stream);
    r.sample = sample;
    r.time_ns = time_of(d_streams[stream], sample);
    r.code = code;
    r.value = value;
    send(r);
}

void metadata_sender::tx_event(
    unsigned tx_stream, uint32_t code, uint64_t sample, uint64_t time_ns, uint64_t value)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (tx_stream > 0x7F || !enabled())
        return;
    meta::record r;
    r.type = meta::record_type::event;
    r.stream = meta::tx_stream_byte(tx_stream);
    r.sample = sample;
    r.time_ns = time_ns;
    r.code = code;
    r.value = value;
    send(r);
}

} // namespace emu
} // namespace rdma
} // namespace gr
