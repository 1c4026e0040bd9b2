/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The RoCEv2 ICRC: byte order, UDP-mode and frame ICRCs agreeing, and which bytes
// and ip_context fields it covers.

#include "qa_roce_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

using namespace qa_roce;

class qa_roce_icrc : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_roce_icrc);
    CPPUNIT_TEST(test_icrc_byte_order);
    CPPUNIT_TEST(test_udp_and_frame_icrc_agree);
    CPPUNIT_TEST(test_icrc_detects_every_bit_flip);
    CPPUNIT_TEST(test_icrc_field_coverage);
    CPPUNIT_TEST(test_icrc_context_coverage);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_icrc_byte_order()
    {
        uint8_t b[4];
        store_icrc(b, 0x11223344);
        CPPUNIT_ASSERT_EQUAL(std::string("44332211"), to_hex(b, 4));
        CPPUNIT_ASSERT_EQUAL(0x11223344u, load_icrc(b));
    }

    // The UDP-mode ICRC equals the frame ICRC when the frame carries the same context,
    // whatever TOS and TTL it was sent with.
    void test_udp_and_frame_icrc_agree()
    {
        ip_context ip;
        ip.src_ip = 0xC0A80002;
        ip.dst_ip = 0xC0A80001;
        ip.src_port = 0xD00D;
        const auto udp = make_udp(opcode::uc | opcode::write_only, 13, ip);
        for (int tos : { 0, 0x2E, 0xFF }) {
            std::vector<uint8_t> frame(28 + udp.size());
            write_ipv4_udp(frame.data(), ip, udp.size(), static_cast<uint8_t>(tos), 3);
            std::memcpy(frame.data() + 28, udp.data(), udp.size());
            CPPUNIT_ASSERT(frame_icrc_ok(frame));
        }
    }

    // CRC-32 catches every burst of up to 32 bits, so any single garbled byte outside
    // the masked fields must fail the receiver's check; inside them it must not matter.
    void test_icrc_detects_every_bit_flip()
    {
        ip_context ip;
        ip.src_ip = 0x0A000002;
        ip.dst_ip = 0x0A000001;
        ip.ip_id = 0x1234;
        const auto udp = make_udp(opcode::rc | opcode::write_only, 4, ip);
        std::vector<uint8_t> frame(28 + udp.size());
        write_ipv4_udp(frame.data(), ip, udp.size(), 0, 64);
        std::memcpy(frame.data() + 28, udp.data(), udp.size());
        CPPUNIT_ASSERT_EQUAL(size_t(64), frame.size());
        CPPUNIT_ASSERT(frame_icrc_ok(frame));

        const size_t masked[] = { 1, 8, 10, 11, 20 + 6, 20 + 7, 28 + 4 };
        int detected = 0;
        for (size_t at = 0; at < frame.size(); at++) {
            const bool is_masked =
                std::find(std::begin(masked), std::end(masked), at) != std::end(masked);
            for (int x = 1; x < 256; x++) {
                auto garbled = frame;
                garbled[at] ^= static_cast<uint8_t>(x);
                const bool ok = frame_icrc_ok(garbled);
                CPPUNIT_ASSERT_EQUAL_MESSAGE("byte " + std::to_string(at) + " xor " +
                                                 std::to_string(x),
                                             is_masked,
                                             ok);
                detected += !ok && (x & (x - 1)) == 0;
            }
        }
        CPPUNIT_ASSERT_EQUAL(int(64 - 7) * 8, detected); // every single-bit flip
    }

    // Field by field, on a frame with pad: what the ICRC ignores and what it covers.
    void test_icrc_field_coverage()
    {
        ip_context ip;
        ip.src_ip = 0x0A000002;
        ip.dst_ip = 0x0A000001;
        const auto udp = make_udp(opcode::uc | opcode::write_only_imm, 5, ip); // pad 3
        std::vector<uint8_t> frame(28 + udp.size());
        write_ipv4_udp(frame.data(), ip, udp.size(), 0, 64);
        std::memcpy(frame.data() + 28, udp.data(), udp.size());
        const uint32_t reference = compute_icrc_frame(frame.data(), frame.size() - 4);
        auto icrc_with = [&](size_t at, uint8_t x) {
            auto f = frame;
            f[at] ^= x;
            return compute_icrc_frame(f.data(), f.size() - 4);
        };
        const size_t bth = 28;
        const size_t payload = bth + headers_size(udp[0]);
        const size_t pad = payload + 5;

        // Ignored: TOS (DSCP/ECN), TTL, IP checksum, UDP checksum, FECN/BECN/resv6.
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(1, 0xFF));
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(8, 0x3F));
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(10, 0x12));
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(11, 0x34));
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(26, 0xAB));
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(27, 0xCD));
        CPPUNIT_ASSERT_EQUAL(reference, icrc_with(bth + 4, 0xC0));

        // Covered: IP total length, ID, DF, addresses, ports, UDP length, P_Key, QPN,
        // AckReq, PSN, extension headers, payload, pad.
        struct field {
            const char* name;
            size_t at;
            uint8_t flip;
        };
        const field covered[] = {
            { "ip version/ihl", 0, 0x80 },  { "ip total length", 3, 0x01 },
            { "ip id", 5, 0x01 },           { "ip df", 6, 0x40 },
            { "ip protocol", 9, 0x01 },     { "ip src", 12, 0x01 },
            { "ip dst", 19, 0x01 },         { "udp sport", 21, 0x01 },
            { "udp dport", 23, 0x01 },      { "udp length", 25, 0x01 },
            { "opcode", bth, 0x01 },        { "solicited", bth + 1, 0x80 },
            { "pad count", bth + 1, 0x10 }, { "pkey", bth + 3, 0x01 },
            { "qpn", bth + 7, 0x01 },       { "ack req", bth + 8, 0x80 },
            { "psn", bth + 11, 0x01 },      { "reth", bth + 12, 0x01 },
            { "immdt", payload - 1, 0x01 }, { "payload", payload, 0x01 },
            { "pad", pad + 2, 0x01 },
        };
        for (const field& c : covered)
            CPPUNIT_ASSERT_MESSAGE(c.name, reference != icrc_with(c.at, c.flip));
    }

    // The UDP-mode ICRC depends on every field of ip_context.
    void test_icrc_context_coverage()
    {
        ip_context ip;
        ip.src_ip = 0x0A000002;
        ip.dst_ip = 0x0A000001;
        const auto udp = make_udp(opcode::uc | opcode::write_only, 8, ip);
        const uint32_t reference = compute_icrc(ip, udp.data(), udp.size() - 4);
        CPPUNIT_ASSERT_EQUAL(reference, load_icrc(udp.data() + udp.size() - 4));
        auto with = [&](auto change) {
            ip_context other = ip;
            change(other);
            return compute_icrc(other, udp.data(), udp.size() - 4);
        };
        CPPUNIT_ASSERT(reference != with([](ip_context& c) { c.src_ip ^= 1; }));
        CPPUNIT_ASSERT(reference != with([](ip_context& c) { c.dst_ip ^= 0x100; }));
        CPPUNIT_ASSERT(reference != with([](ip_context& c) { c.src_port ^= 1; }));
        CPPUNIT_ASSERT(reference != with([](ip_context& c) { c.dst_port = 18515; }));
        CPPUNIT_ASSERT(reference != with([](ip_context& c) { c.ip_id = 1; }));
        CPPUNIT_ASSERT(reference != with([](ip_context& c) { c.dont_fragment = false; }));
        // The length is part of it too (IP total length, UDP length).
        CPPUNIT_ASSERT(reference != compute_icrc(ip, udp.data(), udp.size() - 8));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_roce_icrc);
