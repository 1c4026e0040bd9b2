/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RoCEv2 headers field by field: writing them (BTH, extension headers, pad, IPv4/UDP),
// the opcode table, and what parse() rejects.

#include "qa_roce_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace qa_roce;

namespace {

// parse() on an exactly-sized heap copy, so that a sanitizer build sees any overrun.
parse_status parse_copy(const uint8_t* data, size_t len, packet& out)
{
    std::unique_ptr<uint8_t[]> exact(new uint8_t[len ? len : 1]);
    if (len)
        std::memcpy(exact.get(), data, len);
    return parse(len ? exact.get() : nullptr, len, out);
}

} // namespace

class qa_roce_headers : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_roce_headers);
    CPPUNIT_TEST(test_write_headers_keeps_fields_in_their_bits);
    CPPUNIT_TEST(test_finish_zeroes_pad_and_icrc);
    CPPUNIT_TEST(test_write_ipv4_udp);
    CPPUNIT_TEST(test_truncation_rejected);
    CPPUNIT_TEST(test_negative_payload_rejected);
    CPPUNIT_TEST(test_bad_version);
    CPPUNIT_TEST(test_unknown_opcodes);
    CPPUNIT_TEST(test_describe_table);
    CPPUNIT_TEST(test_headers_size);
    CPPUNIT_TEST(test_to_string);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_write_headers_keeps_fields_in_their_bits()
    {
        bth b;
        b.opcode = opcode::rc | opcode::acknowledge;
        b.pad_count = 0xFF; // only 2 bits exist
        b.tver = 0;
        b.dest_qp = 0xFFFFFFFF;
        b.psn = 0xFF000001;
        b.ack_req = false;
        const aeth a{ syndrome::nak_psn_sequence, 0xFF123456 };
        uint8_t out[bth_bytes + aeth_bytes];
        CPPUNIT_ASSERT_EQUAL(sizeof(out), write_headers(out, b, nullptr, nullptr, &a));
        CPPUNIT_ASSERT_EQUAL(std::string("1130ffff00ffffff00000001"),
                             to_hex(out, bth_bytes));
        CPPUNIT_ASSERT_EQUAL(std::string("60123456"),
                             to_hex(out + bth_bytes, aeth_bytes));

        // Headers the opcode does not call for are not written.
        uint8_t only[64];
        std::memset(only, 0xEE, sizeof(only));
        const reth r{ 1, 2, 3 };
        const uint32_t imm = 4;
        b.opcode = opcode::uc | opcode::write_middle;
        CPPUNIT_ASSERT_EQUAL(bth_bytes, write_headers(only, b, &r, &imm, &a));
        CPPUNIT_ASSERT_EQUAL(int(0xEE), int(only[bth_bytes]));
    }

    void test_finish_zeroes_pad_and_icrc()
    {
        for (size_t payload_len = 0; payload_len < 8; payload_len++) {
            uint8_t buf[64];
            std::memset(buf, 0xAA, sizeof(buf));
            const size_t total = finish(buf, bth_bytes, payload_len);
            const size_t pad = pad_for(payload_len);
            CPPUNIT_ASSERT_EQUAL(bth_bytes + payload_len + pad + 4, total);
            CPPUNIT_ASSERT_EQUAL(size_t(0), total % 4);
            for (size_t i = 0; i < bth_bytes + payload_len; i++)
                CPPUNIT_ASSERT_EQUAL(int(0xAA), int(buf[i]));
            for (size_t i = bth_bytes + payload_len; i < total; i++)
                CPPUNIT_ASSERT_EQUAL(0, int(buf[i]));
            CPPUNIT_ASSERT_EQUAL(int(0xAA), int(buf[total]));
        }
    }

    void test_write_ipv4_udp()
    {
        ip_context ip;
        ip.src_ip = 0x0A000002;
        ip.dst_ip = 0x0A000001;
        ip.src_port = 0xC123;
        ip.dst_port = 18515;
        ip.ip_id = 0xBEEF;
        uint8_t h[28];
        CPPUNIT_ASSERT_EQUAL(size_t(28), write_ipv4_udp(h, ip, 100, 0x02, 17));
        CPPUNIT_ASSERT_EQUAL(std::string("45020080beef40001111"), to_hex(h, 10));
        CPPUNIT_ASSERT_EQUAL(std::string("0a0000020a000001"), to_hex(h + 12, 8));
        CPPUNIT_ASSERT_EQUAL(std::string("c1234853006c0000"), to_hex(h + 20, 8));
        uint32_t sum = 0;
        for (int i = 0; i < 20; i += 2)
            sum += (h[i] << 8) | h[i + 1];
        while (sum >> 16)
            sum = (sum & 0xFFFF) + (sum >> 16);
        CPPUNIT_ASSERT_EQUAL(0xFFFFu, sum);

        ip.dont_fragment = false;
        write_ipv4_udp(h, ip, 100);
        CPPUNIT_ASSERT_EQUAL(std::string("0000"), to_hex(h + 6, 2));
        CPPUNIT_ASSERT_EQUAL(64, int(h[8]));
    }

    void test_truncation_rejected()
    {
        // Without payload, every proper prefix is shorter than headers + pad + ICRC.
        const std::vector<std::vector<uint8_t>> empty = {
            make_udp(opcode::rc | opcode::acknowledge, 0),
            make_udp(opcode::uc | opcode::write_only, 0),
            make_udp(opcode::rc | opcode::write_only_imm, 0),
            make_udp(opcode::rc | opcode::read_request, 0),
            make_udp(opcode::uc | opcode::write_middle, 0),
        };
        for (const auto& pkt : empty) {
            packet p;
            CPPUNIT_ASSERT_EQUAL(parse_status::ok, parse_copy(pkt.data(), pkt.size(), p));
            for (size_t len = 0; len < pkt.size(); len++)
                CPPUNIT_ASSERT_EQUAL(parse_status::truncated,
                                     parse_copy(pkt.data(), len, p));
        }
        // With payload, a prefix that still holds headers + pad + ICRC is a shorter
        // packet as far as the wire can tell (UDP carries the only length), so only
        // the shorter prefixes are errors.
        for (uint8_t op : all_known_opcodes()) {
            for (size_t payload_len : { 1, 2, 3, 4, 9 }) {
                const auto pkt = make_udp(op, payload_len);
                const size_t minimum = headers_size(op) + pad_for(payload_len) + 4;
                packet p;
                for (size_t len = 0; len < minimum; len++)
                    CPPUNIT_ASSERT_EQUAL(parse_status::truncated,
                                         parse_copy(pkt.data(), len, p));
                CPPUNIT_ASSERT_EQUAL(parse_status::ok,
                                     parse_copy(pkt.data(), minimum, p));
                CPPUNIT_ASSERT_EQUAL(size_t(0), p.payload_len);
            }
        }
    }

    void test_negative_payload_rejected()
    {
        // PadCnt 3 on a packet that has room for the ICRC but not for the pad.
        auto pkt = make_udp(opcode::uc | opcode::write_only, 0);
        pkt[1] |= 3 << 4;
        const size_t hdr = headers_size(pkt[0]);
        packet p;
        for (size_t extra = 0; extra < 3; extra++)
            CPPUNIT_ASSERT_EQUAL(parse_status::truncated,
                                 parse_copy(pkt.data(), hdr + 4 + extra, p));
        pkt.resize(hdr + 4 + 3);
        CPPUNIT_ASSERT_EQUAL(parse_status::ok, parse_copy(pkt.data(), pkt.size(), p));
        CPPUNIT_ASSERT_EQUAL(size_t(0), p.payload_len);
    }

    void test_bad_version()
    {
        auto pkt = make_udp(opcode::uc | opcode::write_only_imm, 6);
        packet p;
        CPPUNIT_ASSERT_EQUAL(parse_status::ok, parse(pkt.data(), pkt.size(), p));
        for (uint8_t tver = 1; tver < 16; tver++) {
            pkt[1] = static_cast<uint8_t>((pkt[1] & 0xF0) | tver);
            CPPUNIT_ASSERT_EQUAL(parse_status::bad_version,
                                 parse(pkt.data(), pkt.size(), p));
            CPPUNIT_ASSERT_EQUAL(int(tver), int(p.base.tver));
        }
    }

    void test_unknown_opcodes()
    {
        const uint8_t unknown[] = { 0x40, 0x64, 0x81, 0x2C, 0x13, 0x00, 0x24,
                                    0x25, 0x12, 0x31, 0x2D, 0x25, 0xFF, 0x03 };
        uint8_t buf[64] = {};
        packet p;
        for (uint8_t op : unknown) {
            buf[0] = op;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(op),
                                         parse_status::unknown_opcode,
                                         parse(buf, sizeof(buf), p));
        }
        // Exhaustively: parse() accepts exactly the opcodes describe() knows.
        int accepted = 0;
        for (int op = 0; op < 256; op++) {
            buf[0] = static_cast<uint8_t>(op);
            const parse_status s = parse(buf, sizeof(buf), p);
            const bool known = describe(static_cast<uint8_t>(op)).known;
            CPPUNIT_ASSERT_EQUAL(known ? parse_status::ok : parse_status::unknown_opcode,
                                 s);
            accepted += s == parse_status::ok;
        }
        CPPUNIT_ASSERT_EQUAL(20, accepted); // 18 and RC SEND ONLY (with immediate)
    }

    void test_describe_table()
    {
        struct row {
            uint8_t op;
            bool reth, imm, aeth, starts, ends, write, read_req, read_resp, ack;
        };
        // After rxe_opcode.c (roce-wire-rxe-axioe.md 2.3).
        const row rows[] = {
            { 0x06, 1, 0, 0, 1, 0, 1, 0, 0, 0 }, { 0x07, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
            { 0x08, 0, 0, 0, 0, 1, 1, 0, 0, 0 }, { 0x09, 0, 1, 0, 0, 1, 1, 0, 0, 0 },
            { 0x0A, 1, 0, 0, 1, 1, 1, 0, 0, 0 }, { 0x0B, 1, 1, 0, 1, 1, 1, 0, 0, 0 },
            { 0x0C, 1, 0, 0, 1, 1, 0, 1, 0, 0 }, { 0x0D, 0, 0, 1, 1, 0, 0, 0, 1, 0 },
            { 0x0E, 0, 0, 0, 0, 0, 0, 0, 1, 0 }, { 0x0F, 0, 0, 1, 0, 1, 0, 0, 1, 0 },
            { 0x10, 0, 0, 1, 1, 1, 0, 0, 1, 0 }, { 0x11, 0, 0, 1, 1, 1, 0, 0, 0, 1 },
        };
        for (const row& r : rows) {
            for (uint8_t transport : { opcode::rc, opcode::uc }) {
                const uint8_t op = transport | r.op;
                const opcode_info i = describe(op);
                const std::string m = "opcode " + std::to_string(op);
                // UC carries the WRITE family only.
                const bool known =
                    transport == opcode::rc || r.op <= opcode::write_only_imm;
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, known, i.known);
                if (!known)
                    continue;
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.reth, i.has_reth);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.imm, i.has_imm);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.aeth, i.has_aeth);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.starts, i.starts_message);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.ends, i.ends_message);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.write, i.is_write);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.read_req, i.is_read_request);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.read_resp, i.is_read_response);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m, r.ack, i.is_ack);
            }
        }
        // SEND ONLY, with and without immediate: RC only, one packet, no RETH.
        const opcode_info send = describe(opcode::rc | opcode::send_only);
        CPPUNIT_ASSERT(send.known && send.is_send && !send.has_imm && !send.has_reth);
        CPPUNIT_ASSERT(send.starts_message && send.ends_message && !send.is_write);
        const opcode_info send_imm = describe(opcode::rc | opcode::send_only_imm);
        CPPUNIT_ASSERT(send_imm.known && send_imm.is_send && send_imm.has_imm);
        CPPUNIT_ASSERT(!send_imm.has_reth && !send_imm.has_aeth);
        CPPUNIT_ASSERT_EQUAL(size_t(16),
                             headers_size(opcode::rc | opcode::send_only_imm));
        CPPUNIT_ASSERT(!describe(opcode::uc | opcode::send_only_imm).known);
        const opcode_info none = describe(0x40 | opcode::write_only);
        CPPUNIT_ASSERT(!none.known);
        CPPUNIT_ASSERT(!none.has_reth && !none.is_write);
    }

    void test_headers_size()
    {
        CPPUNIT_ASSERT_EQUAL(size_t(28), headers_size(opcode::uc | opcode::write_first));
        CPPUNIT_ASSERT_EQUAL(size_t(12), headers_size(opcode::uc | opcode::write_middle));
        CPPUNIT_ASSERT_EQUAL(size_t(12), headers_size(opcode::rc | opcode::write_last));
        CPPUNIT_ASSERT_EQUAL(size_t(16),
                             headers_size(opcode::uc | opcode::write_last_imm));
        CPPUNIT_ASSERT_EQUAL(size_t(28), headers_size(opcode::rc | opcode::write_only));
        CPPUNIT_ASSERT_EQUAL(size_t(32),
                             headers_size(opcode::uc | opcode::write_only_imm));
        CPPUNIT_ASSERT_EQUAL(size_t(28), headers_size(opcode::rc | opcode::read_request));
        CPPUNIT_ASSERT_EQUAL(size_t(16),
                             headers_size(opcode::rc | opcode::read_response_first));
        CPPUNIT_ASSERT_EQUAL(size_t(12),
                             headers_size(opcode::rc | opcode::read_response_middle));
        CPPUNIT_ASSERT_EQUAL(size_t(16), headers_size(opcode::rc | opcode::acknowledge));
        CPPUNIT_ASSERT_EQUAL(size_t(0), headers_size(opcode::uc | opcode::acknowledge));
        CPPUNIT_ASSERT_EQUAL(size_t(0), headers_size(0x81));
    }

    void test_to_string()
    {
        const parse_status all[] = { parse_status::ok,
                                     parse_status::truncated,
                                     parse_status::bad_version,
                                     parse_status::unknown_opcode };
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++)
                CPPUNIT_ASSERT_EQUAL(i == j,
                                     std::string(to_string(all[i])) == to_string(all[j]));
        CPPUNIT_ASSERT_EQUAL(std::string("truncated"),
                             std::string(to_string(parse_status::truncated)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_roce_headers);
