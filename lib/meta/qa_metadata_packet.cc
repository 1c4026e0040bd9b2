/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The metadata codec against docs/metadata.md: golden datagrams written byte by byte
// from the spec's table, round trips, every malformed form, and the sequence counter.

#include "metadata_packet.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <string>
#include <utility>
#include <vector>

using namespace gr::rdma::meta;
using bytes = std::vector<uint8_t>;

namespace {

// Golden datagrams, one per record type, from the packet table of docs/metadata.md:
// magic "GRMD" | version | type | stream | reserved | sequence | sample | time_ns |
// code | value.
// clang-format off
const bytes golden_start = {
    0x47, 0x52, 0x4D, 0x44, 0x01, 0x01, 0x02, 0x00, // GRMD v1 start, stream 2
    0x00, 0x00, 0x00, 0x07,                         // sequence 7
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // sample 0
    0x17, 0x9A, 0x2B, 0x3C, 0x4D, 0x5E, 0x6F, 0x80, // t0
    0x00, 0x00, 0x00, 0x00,                         // code 0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // value 0
};
const bytes golden_timestamp = {
    0x47, 0x52, 0x4D, 0x44, 0x01, 0x02, 0x00, 0x00, // timestamp, stream 0
    0xFF, 0xFF, 0xFF, 0xFE,                         // sequence 2^32 - 2
    0x00, 0x00, 0x00, 0x00, 0x01, 0x31, 0x2D, 0x00, // sample 20000000
    0x17, 0x9A, 0x2B, 0x3C, 0x8A, 0x7F, 0x10, 0x80, // time
    0x00, 0x00, 0x00, 0x00,                         // code 0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // value 0
};
const bytes golden_end = {
    0x47, 0x52, 0x4D, 0x44, 0x01, 0x03, 0x0F, 0x00, // stream_end, stream 15
    0x12, 0x34, 0x56, 0x78,                         // sequence 0x12345678
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // 2^32 samples
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // time 1 ns
    0x00, 0x00, 0x00, 0x00,                         // code 0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // value 0
};
const bytes golden_event = {
    0x47, 0x52, 0x4D, 0x44, 0x01, 0x04, 0x01, 0x00, // event, stream 1
    0x00, 0x00, 0x01, 0x00,                         // sequence 256
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, // sample 1024
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // time
    0x00, 0x00, 0x00, 0x02,                         // fault_injected
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, // fault kind 5 (bad rkey)
};
// A TX record (docs/metadata.md, "TX records"): tx_underflow of TX stream 0.
const bytes golden_tx_underflow = {
    0x47, 0x52, 0x4D, 0x44, 0x01, 0x04, 0x80, 0x00, // event, stream byte 0x80: TX 0
    0x00, 0x00, 0x00, 0x2A,                         // sequence 42
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, // item 65536 waited for
    0x17, 0x9A, 0x2B, 0x3C, 0x4D, 0x5E, 0x6F, 0x80, // time of the first zero
    0x00, 0x00, 0x00, 0x10,                         // code 16 tx_underflow
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x39, // 12345 zeros
};
// clang-format on

record make(record_type t,
            uint8_t stream,
            uint32_t seq,
            uint64_t sample,
            uint64_t time,
            uint32_t code = 0,
            uint64_t value = 0)
{
    record r;
    r.type = t;
    r.stream = stream;
    r.sequence = seq;
    r.sample = sample;
    r.time_ns = time;
    r.code = code;
    r.value = value;
    return r;
}

void assert_equal(const record& a, const record& b)
{
    CPPUNIT_ASSERT(a.type == b.type);
    CPPUNIT_ASSERT_EQUAL(a.stream, b.stream);
    CPPUNIT_ASSERT_EQUAL(a.sequence, b.sequence);
    CPPUNIT_ASSERT_EQUAL(a.sample, b.sample);
    CPPUNIT_ASSERT_EQUAL(a.time_ns, b.time_ns);
    CPPUNIT_ASSERT_EQUAL(a.code, b.code);
    CPPUNIT_ASSERT_EQUAL(a.value, b.value);
}

bytes encoded(const record& r)
{
    bytes out(packet_bytes + 8, 0xCC); // the encoder must stay within packet_bytes
    CPPUNIT_ASSERT_EQUAL(packet_bytes, encode(r, out.data()));
    for (size_t i = packet_bytes; i < out.size(); i++)
        CPPUNIT_ASSERT_EQUAL(uint8_t(0xCC), out[i]);
    out.resize(packet_bytes);
    return out;
}

parse_status parse_bytes(const bytes& b)
{
    record r;
    return parse(b.data(), b.size(), r);
}

} // namespace

class qa_metadata_packet : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_packet);
    CPPUNIT_TEST(test_golden_encodings);
    CPPUNIT_TEST(test_golden_decodings);
    CPPUNIT_TEST(test_round_trips);
    CPPUNIT_TEST(test_malformed_rejected);
    CPPUNIT_TEST(test_unknown_event_code_is_valid);
    CPPUNIT_TEST(test_tx_records);
    CPPUNIT_TEST(test_sequence_in_order_and_gaps);
    CPPUNIT_TEST(test_sequence_late_duplicate_and_wrap);
    CPPUNIT_TEST(test_sequence_restart_resyncs);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_golden_encodings()
    {
        CPPUNIT_ASSERT(
            golden_start ==
            encoded(make(record_type::stream_start, 2, 7, 0, 0x179A2B3C4D5E6F80ull)));
        CPPUNIT_ASSERT(
            golden_timestamp ==
            encoded(make(
                record_type::timestamp, 0, 0xFFFFFFFE, 20000000, 0x179A2B3C8A7F1080ull)));
        CPPUNIT_ASSERT(
            golden_end ==
            encoded(make(record_type::stream_end, 15, 0x12345678, 1ull << 32, 1)));
        CPPUNIT_ASSERT(golden_event == encoded(make(record_type::event,
                                                    1,
                                                    256,
                                                    1024,
                                                    0x0102030405060708ull,
                                                    event_code::fault_injected,
                                                    5)));
    }

    void test_golden_decodings()
    {
        record r;
        CPPUNIT_ASSERT(parse(golden_event.data(), golden_event.size(), r) ==
                       parse_status::ok);
        assert_equal(make(record_type::event, 1, 256, 1024, 0x0102030405060708ull, 2, 5),
                     r);
        CPPUNIT_ASSERT(parse(golden_timestamp.data(), golden_timestamp.size(), r) ==
                       parse_status::ok);
        assert_equal(
            make(record_type::timestamp, 0, 0xFFFFFFFE, 20000000, 0x179A2B3C8A7F1080ull),
            r);
        CPPUNIT_ASSERT(parse(golden_start.data(), golden_start.size(), r) ==
                       parse_status::ok);
        assert_equal(make(record_type::stream_start, 2, 7, 0, 0x179A2B3C4D5E6F80ull), r);
        CPPUNIT_ASSERT(parse(golden_end.data(), golden_end.size(), r) ==
                       parse_status::ok);
        assert_equal(make(record_type::stream_end, 15, 0x12345678, 1ull << 32, 1), r);
    }

    void test_round_trips()
    {
        const uint64_t extremes[] = {
            0, 1, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, ~0ull
        };
        for (uint8_t t = 1; t <= 4; t++) {
            for (uint64_t v : extremes) {
                const record in = make(static_cast<record_type>(t),
                                       uint8_t(v),
                                       uint32_t(v >> 7),
                                       v,
                                       ~v,
                                       uint32_t(v >> 32),
                                       v ^ 0x5A5A5A5A5A5A5A5Aull);
                const bytes b = encoded(in);
                record out;
                CPPUNIT_ASSERT(parse(b.data(), b.size(), out) == parse_status::ok);
                assert_equal(in, out);
                CPPUNIT_ASSERT(b == encoded(out));
            }
        }
    }

    void test_malformed_rejected()
    {
        for (size_t n = 0; n < packet_bytes; n++)
            CPPUNIT_ASSERT(
                parse_bytes(bytes(golden_start.begin(), golden_start.begin() + n)) ==
                parse_status::too_short);
        record untouched = make(record_type::event, 9, 9, 9, 9, 9, 9);
        CPPUNIT_ASSERT(parse(nullptr, 0, untouched) == parse_status::too_short);

        bytes longer = golden_start;
        longer.push_back(0);
        CPPUNIT_ASSERT(parse_bytes(longer) == parse_status::too_long);
        longer.resize(1500, 0);
        CPPUNIT_ASSERT(parse_bytes(longer) == parse_status::too_long);

        for (size_t i = 0; i < 4; i++) {
            bytes b = golden_timestamp;
            b[i] ^= 0x20; // "grmd" is not "GRMD"
            CPPUNIT_ASSERT(parse_bytes(b) == parse_status::bad_magic);
        }
        for (uint8_t v : { 0, 2, 0x81, 0xFF }) {
            bytes b = golden_timestamp;
            b[offset::version] = v;
            CPPUNIT_ASSERT(parse_bytes(b) == parse_status::bad_version);
        }
        for (uint8_t t : { 0, 5, 0x41, 0xFF }) {
            bytes b = golden_timestamp;
            b[offset::type] = t;
            CPPUNIT_ASSERT(parse_bytes(b) == parse_status::bad_type);
        }
        bytes reserved = golden_end;
        reserved[offset::reserved] = 1;
        CPPUNIT_ASSERT(parse_bytes(reserved) == parse_status::bad_reserved);

        // A rejected datagram leaves the output alone.
        record r = make(record_type::event, 9, 9, 9, 9, 9, 9);
        CPPUNIT_ASSERT(parse(reserved.data(), reserved.size(), r) != parse_status::ok);
        assert_equal(make(record_type::event, 9, 9, 9, 9, 9, 9), r);
        CPPUNIT_ASSERT_EQUAL(std::string("trailing bytes"),
                             std::string(to_string(parse_status::too_long)));
    }

    void test_unknown_event_code_is_valid()
    {
        bytes b = golden_event;
        b[offset::code + 3] = 0x77; // a code this host does not know
        record r;
        CPPUNIT_ASSERT(parse(b.data(), b.size(), r) == parse_status::ok);
        CPPUNIT_ASSERT_EQUAL(0x77u, r.code);
        CPPUNIT_ASSERT_EQUAL(std::string("unknown"), std::string(event_name(r.code)));
        CPPUNIT_ASSERT_EQUAL(std::string("zero_substituted"),
                             std::string(event_name(event_code::zero_substituted)));
        CPPUNIT_ASSERT_EQUAL(std::string("device_overflow"),
                             std::string(event_name(event_code::device_overflow)));
    }

    void test_tx_records()
    {
        // TX records are events with the stream byte 0x80 + t and codes 16..21.
        const record r = make(record_type::event,
                              tx_stream_byte(0),
                              42,
                              65536,
                              0x179A2B3C4D5E6F80ull,
                              event_code::tx_underflow,
                              12345);
        CPPUNIT_ASSERT(encoded(r) == golden_tx_underflow);
        record back;
        CPPUNIT_ASSERT(parse(golden_tx_underflow.data(), packet_bytes, back) ==
                       parse_status::ok);
        assert_equal(r, back);
        CPPUNIT_ASSERT(is_tx_stream(back.stream));
        CPPUNIT_ASSERT(!is_tx_stream(15));
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x87), tx_stream_byte(7));
        const std::pair<uint32_t, const char*> names[] = {
            { 16, "tx_underflow" },  { 17, "tx_late" }, { 18, "tx_burst_ack" },
            { 19, "tx_time_error" }, { 20, "tx_lead" }, { 21, "tx_seq_error" },
        };
        for (const auto& n : names)
            CPPUNIT_ASSERT_EQUAL(std::string(n.second), std::string(event_name(n.first)));
        CPPUNIT_ASSERT_EQUAL(std::string("unknown"), std::string(event_name(22)));
    }

    void test_sequence_in_order_and_gaps()
    {
        using v = sequence_counter::verdict;
        sequence_counter c;
        CPPUNIT_ASSERT(c.on_packet(100) == v::in_order);
        CPPUNIT_ASSERT(c.on_packet(101) == v::in_order);
        CPPUNIT_ASSERT(c.on_packet(105) == v::after_gap); // 102..104 missing
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.lost());
        CPPUNIT_ASSERT(c.on_packet(1105) == v::after_gap); // beyond the window
        CPPUNIT_ASSERT_EQUAL(uint64_t(3 + 999), c.lost());
        CPPUNIT_ASSERT(c.on_packet(1106) == v::in_order);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), c.accepted());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.duplicates());
    }

    void test_sequence_late_duplicate_and_wrap()
    {
        using v = sequence_counter::verdict;
        sequence_counter c;
        CPPUNIT_ASSERT(c.on_packet(0xFFFFFFFD) == v::in_order);
        CPPUNIT_ASSERT(c.on_packet(0xFFFFFFFE) == v::in_order);
        CPPUNIT_ASSERT(c.on_packet(1) == v::after_gap); // 0xFFFFFFFF and 0 missing
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.lost());
        CPPUNIT_ASSERT(c.on_packet(0) == v::late); // only late: no longer lost
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.lost());
        CPPUNIT_ASSERT(c.on_packet(0) == v::duplicate);
        CPPUNIT_ASSERT(c.on_packet(1) == v::duplicate);
        CPPUNIT_ASSERT(c.on_packet(0xFFFFFFFE) == v::duplicate);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.duplicates());
        CPPUNIT_ASSERT(c.on_packet(0xFFFFFFFF) == v::late);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.lost());
        // Late before the first packet seen: accepted, never counted lost.
        CPPUNIT_ASSERT(c.on_packet(0xFFFFFFFC) == v::late);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), c.accepted());
        // A gap far behind the newest is still filled when within 64.
        for (uint32_t s = 2; s < 62; s++)
            CPPUNIT_ASSERT(c.on_packet(s) == v::in_order);
        CPPUNIT_ASSERT(c.on_packet(70) == v::after_gap); // 62..69
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), c.lost());
        CPPUNIT_ASSERT(c.on_packet(62) == v::late); // age 8
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), c.lost());
    }

    void test_sequence_restart_resyncs()
    {
        using v = sequence_counter::verdict;
        sequence_counter c;
        for (uint32_t s = 5000; s < 5010; s++)
            c.on_packet(s);
        CPPUNIT_ASSERT(c.on_packet(3) == v::resync); // the device restarted its count
        CPPUNIT_ASSERT(c.on_packet(4) == v::in_order);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.resyncs());
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), c.accepted());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_packet);
