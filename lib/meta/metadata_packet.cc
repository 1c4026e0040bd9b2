/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "metadata_packet.h"

namespace gr {
namespace rdma {
namespace meta {

namespace {

void put32(uint8_t* p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = static_cast<uint8_t>(v);
}

void put64(uint8_t* p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = static_cast<uint8_t>(v);
}

uint32_t get32(const uint8_t* p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = (v << 8) | p[i];
    return v;
}

uint64_t get64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

bool known_type(uint8_t t)
{
    return t >= static_cast<uint8_t>(record_type::stream_start) &&
           t <= static_cast<uint8_t>(record_type::event);
}

} // namespace

const char* to_string(record_type t)
{
    switch (t) {
    case record_type::stream_start:
        return "stream_start";
    case record_type::timestamp:
        return "timestamp";
    case record_type::stream_end:
        return "stream_end";
    case record_type::event:
        return "event";
    }
    return "unknown";
}

const char* event_name(uint32_t code)
{
    switch (code) {
    case event_code::zero_substituted:
        return "zero_substituted";
    case event_code::fault_injected:
        return "fault_injected";
    case event_code::device_overflow:
        return "device_overflow";
    case event_code::tx_underflow:
        return "tx_underflow";
    case event_code::tx_late:
        return "tx_late";
    case event_code::tx_burst_ack:
        return "tx_burst_ack";
    case event_code::tx_time_error:
        return "tx_time_error";
    case event_code::tx_lead:
        return "tx_lead";
    case event_code::tx_seq_error:
        return "tx_seq_error";
    default:
        return "unknown";
    }
}

const char* to_string(parse_status s)
{
    switch (s) {
    case parse_status::ok:
        return "ok";
    case parse_status::too_short:
        return "too short";
    case parse_status::too_long:
        return "trailing bytes";
    case parse_status::bad_magic:
        return "bad magic";
    case parse_status::bad_version:
        return "unsupported version";
    case parse_status::bad_type:
        return "unknown record type";
    case parse_status::bad_reserved:
        return "reserved byte not zero";
    }
    return "unknown";
}

size_t encode(const record& r, uint8_t* out)
{
    put32(out + offset::magic, magic);
    out[offset::version] = protocol_version;
    out[offset::type] = static_cast<uint8_t>(r.type);
    out[offset::stream] = r.stream;
    out[offset::reserved] = 0;
    put32(out + offset::sequence, r.sequence);
    put64(out + offset::sample, r.sample);
    put64(out + offset::time_ns, r.time_ns);
    put32(out + offset::code, r.code);
    put64(out + offset::value, r.value);
    return packet_bytes;
}

parse_status parse(const uint8_t* data, size_t len, record& out)
{
    if (len < packet_bytes || data == nullptr)
        return parse_status::too_short;
    if (len > packet_bytes)
        return parse_status::too_long;
    if (get32(data + offset::magic) != magic)
        return parse_status::bad_magic;
    if (data[offset::version] != protocol_version)
        return parse_status::bad_version;
    if (!known_type(data[offset::type]))
        return parse_status::bad_type;
    if (data[offset::reserved] != 0)
        return parse_status::bad_reserved;
    out.type = static_cast<record_type>(data[offset::type]);
    out.stream = data[offset::stream];
    out.sequence = get32(data + offset::sequence);
    out.sample = get64(data + offset::sample);
    out.time_ns = get64(data + offset::time_ns);
    out.code = get32(data + offset::code);
    out.value = get64(data + offset::value);
    return parse_status::ok;
}

sequence_counter::verdict sequence_counter::on_packet(uint32_t sequence)
{
    if (!d_started) {
        d_started = true;
        d_next = sequence + 1;
        d_seen = 1;
        d_missing = 0;
        d_accepted++;
        return verdict::in_order;
    }
    // Distance from the expected number, modulo 2^32: ahead (>= 0) or behind.
    const uint32_t ahead = sequence - d_next;
    if (ahead > max_jump && ahead < 0x80000000u) {
        // Farther ahead than any real loss: start over from here, count nothing lost.
        d_next = sequence + 1;
        d_seen = 1;
        d_missing = 0;
        d_accepted++;
        d_resyncs++;
        return verdict::resync;
    }
    if (ahead < 0x80000000u) {
        d_lost += ahead;
        const uint64_t skipped =
            ahead >= window ? ~uint64_t(0) : (uint64_t(1) << ahead) - 1;
        if (ahead + 1 >= window) {
            d_seen = 1;
            d_missing = skipped << 1;
        } else {
            d_seen = (d_seen << (ahead + 1)) | 1;
            d_missing = (d_missing << (ahead + 1)) | (skipped << 1);
        }
        d_next = sequence + 1;
        d_accepted++;
        return ahead == 0 ? verdict::in_order : verdict::after_gap;
    }
    const uint32_t age = d_next - 1 - sequence; // 0: the newest
    if (age >= window) {
        // Nothing this old can still be in flight: the device counts afresh.
        d_resyncs++;
        d_started = false;
        on_packet(sequence);
        return verdict::resync;
    }
    const uint64_t bit = uint64_t(1) << age;
    if (d_seen & bit) {
        d_duplicates++;
        return verdict::duplicate;
    }
    d_seen |= bit;
    if (d_missing & bit) { // counted lost when the gap was seen: it was only late
        d_missing &= ~bit;
        d_lost--;
    }
    d_accepted++;
    return verdict::late;
}

} // namespace meta
} // namespace rdma
} // namespace gr
