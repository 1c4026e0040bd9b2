/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the metadata codec (lib/meta). The input is taken as one datagram
// (what the host's metadata socket delivers) and as a run of 40-byte datagrams whose
// sequence numbers drive the sequence counter. Sanitizers catch reads outside the
// input; abort() marks a broken invariant.

#include "meta/metadata_packet.h"
#include <cstdlib>
#include <cstring>

using namespace gr::rdma::meta;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

// A record parse() accepted is exactly its datagram: encoding it gives the bytes back.
void check_accepted(const uint8_t* data, size_t size, const record& r)
{
    require(size == packet_bytes);
    require(static_cast<uint8_t>(r.type) >= 1 && static_cast<uint8_t>(r.type) <= 4);
    require(to_string(r.type) != nullptr && event_name(r.code) != nullptr);
    // A TX stream's byte (bit 7) names TX stream bits 6..0 and nothing else.
    require(!is_tx_stream(r.stream) || tx_stream_byte(r.stream & 0x7F) == r.stream);
    uint8_t again[packet_bytes];
    require(encode(r, again) == packet_bytes);
    require(std::memcmp(again, data, packet_bytes) == 0);
    record twice;
    require(parse(again, sizeof(again), twice) == parse_status::ok);
    require(twice.sequence == r.sequence && twice.sample == r.sample &&
            twice.time_ns == r.time_ns && twice.code == r.code &&
            twice.value == r.value && twice.stream == r.stream && twice.type == r.type);
}

void fuzz_datagram(const uint8_t* data, size_t size)
{
    record r;
    r.sample = 0x1234;
    const parse_status status = parse(data, size, r);
    require(to_string(status) != nullptr);
    if (status == parse_status::ok)
        check_accepted(data, size, r);
    else
        require(r.sample == 0x1234); // a rejected datagram leaves the output alone
}

void fuzz_sequence(const uint8_t* data, size_t size)
{
    sequence_counter c;
    uint64_t fed = 0, in_order = 0;
    for (size_t at = 0; at + packet_bytes <= size; at += packet_bytes) {
        record r;
        // Accepted or not, use the sequence field: the counter must cope with any.
        uint32_t seq = 0;
        for (size_t i = 0; i < 4; i++)
            seq = (seq << 8) | data[at + offset::sequence + i];
        if (parse(data + at, packet_bytes, r) == parse_status::ok)
            require(r.sequence == seq);
        const auto v = c.on_packet(seq);
        fed++;
        in_order += v == sequence_counter::verdict::in_order;
        // Lost never goes negative (it would wrap to ~2^64); a jump adds below 2^31.
        require(c.lost() < fed * 0x80000000ull);
    }
    require(c.accepted() + c.duplicates() == fed);
    require(in_order <= c.accepted());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_datagram(data, size);
    fuzz_sequence(data, size);
    return 0;
}
