/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The AXIoE codec (axioe_packet.h): every opcode round trip, the golden vectors of
// docs/axioe.md, and what the decoders reject and the device answers to it.

#include "qa_axioe_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

using namespace qa_axioe;

class qa_axioe_codec : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_axioe_codec);
    CPPUNIT_TEST(test_codec_round_trip_every_opcode);
    CPPUNIT_TEST(test_codec_golden_read_request);
    CPPUNIT_TEST(test_codec_golden_write_response);
    CPPUNIT_TEST(test_codec_golden_write_request_and_read_response);
    CPPUNIT_TEST(test_codec_golden_not_owner);
    CPPUNIT_TEST(test_codec_rejects_malformed_requests);
    CPPUNIT_TEST(test_codec_rejects_malformed_responses);
    CPPUNIT_TEST(test_codec_rejection_answers);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_codec_round_trip_every_opcode()
    {
        std::mt19937 rng(7);
        for (opcode op :
             { opcode::read, opcode::write, opcode::read_fixed, opcode::write_fixed }) {
            for (uint16_t count : { 1, 7, 256 }) {
                std::vector<uint32_t> words(count);
                for (auto& w : words)
                    w = rng();
                const request sent = make_request(op, rng(), 0x00ABC000, count);
                const bytes b = encode(sent, words);
                CPPUNIT_ASSERT_EQUAL(header_bytes + (is_write(op) ? count * 4u : 0u),
                                     b.size());

                request got;
                CPPUNIT_ASSERT(decode_request(b.data(), b.size(), got) ==
                               parse_status::ok);
                CPPUNIT_ASSERT(got.op == op);
                CPPUNIT_ASSERT_EQUAL(sent.sequence, got.sequence);
                CPPUNIT_ASSERT_EQUAL(sent.address, got.address);
                CPPUNIT_ASSERT_EQUAL(sent.count, got.count);
                CPPUNIT_ASSERT_EQUAL(is_write(op), got.payload != nullptr);
                if (is_write(op)) {
                    std::vector<uint32_t> back(count);
                    load_words(got.payload, back.data(), count);
                    CPPUNIT_ASSERT(back == words);
                }

                for (status code :
                     { status::okay, status::exokay, status::slverr, status::decerr }) {
                    const bytes rb = encode(response_to(got, code), words);
                    const response answer = decode_ok(rb);
                    CPPUNIT_ASSERT_EQUAL(uint8_t(op), answer.request_opcode);
                    CPPUNIT_ASSERT_EQUAL(sent.sequence, answer.sequence);
                    CPPUNIT_ASSERT_EQUAL(sent.address, answer.address);
                    CPPUNIT_ASSERT_EQUAL(sent.count, answer.count);
                    CPPUNIT_ASSERT(answer.code == code);
                    const bool has_data = !is_write(op) && is_success(code);
                    CPPUNIT_ASSERT_EQUAL(has_data, answer.payload != nullptr);
                    CPPUNIT_ASSERT_EQUAL(header_bytes + (has_data ? count * 4u : 0u),
                                         rb.size());
                    if (has_data) {
                        std::vector<uint32_t> back(count);
                        load_words(answer.payload, back.data(), count);
                        CPPUNIT_ASSERT(back == words);
                    }
                }
            }
        }
    }

    // Written out by hand from docs/axioe.md; the same bytes are its read example.
    void test_codec_golden_read_request()
    {
        const bytes golden = { 0xAE, 0x10, 0x01, 0x01, 0x00, 0x00, 0x00, 0x2A,
                               0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00 };
        CPPUNIT_ASSERT(encode(make_request(opcode::read, 42, 0x0100, 2)) == golden);
        request r;
        CPPUNIT_ASSERT(decode_request(golden.data(), golden.size(), r) ==
                       parse_status::ok);
        CPPUNIT_ASSERT(r.op == opcode::read);
        CPPUNIT_ASSERT_EQUAL(uint32_t(42), r.sequence);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0x0100), r.address);
        CPPUNIT_ASSERT_EQUAL(uint16_t(2), r.count);
    }

    // The write example of docs/axioe.md: the response to a write of 0x2000, refused
    // (SLVERR) and accepted.
    void test_codec_golden_write_response()
    {
        const bytes golden = { 0xAE, 0x10, 0x01, 0x82, 0x00, 0x00, 0x00, 0x2B,
                               0x00, 0x00, 0x20, 0x00, 0x00, 0x01, 0x02, 0x00 };
        const request w = make_request(opcode::write, 43, 0x2000, 1);
        CPPUNIT_ASSERT(encode(response_to(w, status::slverr)) == golden);
        const response r = decode_ok(golden);
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x02), r.request_opcode);
        CPPUNIT_ASSERT_EQUAL(uint32_t(43), r.sequence);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0x2000), r.address);
        CPPUNIT_ASSERT_EQUAL(uint16_t(1), r.count);
        CPPUNIT_ASSERT(r.code == status::slverr);
        CPPUNIT_ASSERT(r.payload == nullptr);
        // Accepted, it differs in the status byte only.
        bytes okay = golden;
        okay[14] = 0x00;
        CPPUNIT_ASSERT(encode(response_to(w, status::okay)) == okay);
    }

    // The NOT_OWNER example of docs/axioe.md: the START of RX stream 0 from a client
    // that does not own it. NOT_OWNER answers carry no data, reads included.
    void test_codec_golden_not_owner()
    {
        const bytes golden = { 0xAE, 0x10, 0x01, 0x82, 0x00, 0x00, 0x00, 0x2B,
                               0x00, 0x00, 0x20, 0x00, 0x00, 0x01, 0x12, 0x00 };
        const request w = make_request(opcode::write, 43, 0x2000, 1);
        CPPUNIT_ASSERT(encode(response_to(w, status::not_owner)) == golden);
        const response r = decode_ok(golden);
        CPPUNIT_ASSERT(r.code == status::not_owner);
        CPPUNIT_ASSERT_EQUAL(std::string("NOT_OWNER"), std::string(to_string(r.code)));
        CPPUNIT_ASSERT(!is_success(r.code));
        // A refused read of the stream's rkey: 16 bytes, and data after it is malformed.
        const request rd = make_request(opcode::read, 45, 0x2018, 1);
        bytes refused = encode(response_to(rd, status::not_owner));
        CPPUNIT_ASSERT_EQUAL(header_bytes, refused.size());
        CPPUNIT_ASSERT(decode_ok(refused).payload == nullptr);
        refused.insert(refused.end(), { 0, 0, 0, 1 });
        response ignored;
        CPPUNIT_ASSERT(decode_response(refused.data(), refused.size(), ignored) ==
                       parse_status::bad_length);
        // 0x13 is still unknown.
        bytes unknown = golden;
        unknown[14] = 0x13;
        CPPUNIT_ASSERT(decode_response(unknown.data(), unknown.size(), ignored) ==
                       parse_status::bad_status);
    }

    // The other halves of the two examples: data words are big-endian.
    void test_codec_golden_write_request_and_read_response()
    {
        const bytes write_golden = { 0xAE, 0x10, 0x01, 0x02, 0x00, 0x00, 0x00,
                                     0x2B, 0x00, 0x00, 0x20, 0x00, 0x00, 0x01,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
        CPPUNIT_ASSERT(encode(make_request(opcode::write, 43, 0x2000, 1), { 1 }) ==
                       write_golden);
        const bytes read_golden = { 0xAE, 0x10, 0x01, 0x81, 0x00, 0x00, 0x00, 0x2A,
                                    0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00,
                                    0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67 };
        const request r = make_request(opcode::read, 42, 0x0100, 2);
        CPPUNIT_ASSERT(encode(response_to(r, status::okay), { 0x89ABCDEF, 0x01234567 }) ==
                       read_golden);
        const response got = decode_ok(read_golden);
        uint32_t w[2];
        load_words(got.payload, w, 2);
        CPPUNIT_ASSERT_EQUAL(0x89ABCDEFu, w[0]);
        CPPUNIT_ASSERT_EQUAL(0x01234567u, w[1]);
    }

    void test_codec_rejects_malformed_requests()
    {
        const bytes good = encode(make_request(opcode::write, 5, 0x40, 2), { 1, 2 });
        auto check = [&](parse_status want, bytes b) {
            request r;
            CPPUNIT_ASSERT_EQUAL(
                std::string(to_string(want)),
                std::string(to_string(decode_request(b.data(), b.size(), r))));
        };
        auto with = [&](size_t at, uint8_t value) {
            bytes b = good;
            b[at] = value;
            return b;
        };
        check(parse_status::ok, good);
        check(parse_status::too_short, {});
        check(parse_status::too_short, bytes(good.begin(), good.begin() + 15));
        check(parse_status::bad_magic, with(0, 0xAF));
        check(parse_status::bad_magic, with(1, 0x11));
        check(parse_status::bad_version, with(2, 0));
        check(parse_status::bad_version, with(2, 2));
        check(parse_status::bad_opcode, with(3, 0x00));
        check(parse_status::bad_opcode, with(3, 0x05));
        check(parse_status::bad_opcode, with(3, 0x7F));
        check(parse_status::not_a_request, with(3, 0x82));
        check(parse_status::bad_status, with(14, 0x02));
        check(parse_status::bad_reserved, with(15, 0x01));

        check(parse_status::bad_count, encode(make_request(opcode::read, 5, 0x40, 0)));
        check(parse_status::bad_count, encode(make_request(opcode::read, 5, 0x40, 257)));
        check(parse_status::unaligned, encode(make_request(opcode::read, 5, 0x42, 1)));
        check(parse_status::unaligned, encode(make_request(opcode::read, 5, 0x41, 1)));
        check(parse_status::wraps, encode(make_request(opcode::read, 5, 0xFFFFFFFC, 2)));
        check(parse_status::ok, encode(make_request(opcode::read, 5, 0xFFFFFFFC, 1)));
        check(parse_status::ok,
              encode(make_request(opcode::read_fixed, 5, 0xFFFFFFFC, 2)));

        bytes longer = good;
        longer.push_back(0);
        check(parse_status::bad_length, longer);
        check(parse_status::bad_length, bytes(good.begin(), good.end() - 1));
        bytes read_with_data = encode(make_request(opcode::read, 5, 0x40, 1));
        read_with_data.resize(20);
        check(parse_status::bad_length, read_with_data);
        // A response presented as a request.
        const bytes answer =
            encode(response_to(make_request(opcode::read, 5, 0x40, 1), status::decerr));
        check(parse_status::not_a_request, answer);
    }

    void test_codec_rejects_malformed_responses()
    {
        const request rd = make_request(opcode::read, 9, 0x80, 2);
        const bytes good = encode(response_to(rd, status::okay), { 1, 2 });
        auto check = [&](parse_status want, bytes b) {
            response r;
            CPPUNIT_ASSERT_EQUAL(
                std::string(to_string(want)),
                std::string(to_string(decode_response(b.data(), b.size(), r))));
        };
        auto with = [&](size_t at, uint8_t value) {
            bytes b = good;
            b[at] = value;
            return b;
        };
        check(parse_status::ok, good);
        check(parse_status::too_short, bytes(good.begin(), good.begin() + 15));
        check(parse_status::bad_magic, with(0, 0x00));
        check(parse_status::not_a_response,
              encode(rd)); // a request presented as response
        check(parse_status::bad_status, with(14, 0x04));
        check(parse_status::bad_status, with(14, 0x13));
        check(parse_status::bad_version, with(2, 2));
        check(parse_status::bad_reserved, with(15, 0x80));
        check(parse_status::bad_opcode, with(3, 0x85));
        check(parse_status::bad_opcode, with(3, 0x80));
        check(parse_status::bad_count, with(13, 0));
        check(parse_status::unaligned, with(11, 0x82));
        // Length must follow from opcode, count and status.
        check(parse_status::bad_length, bytes(good.begin(), good.end() - 4));
        bytes longer = good;
        longer.push_back(0);
        check(parse_status::bad_length, longer);
        check(parse_status::bad_length,
              with(14, uint8_t(status::decerr))); // error + data
        bytes write_ok_with_data =
            encode(response_to(make_request(opcode::write, 9, 0x80, 1), status::okay));
        write_ok_with_data.resize(20);
        check(parse_status::bad_length, write_ok_with_data);

        // Rejections echo whatever header the device could not accept, but carry no data.
        bytes rejection = with(14, uint8_t(status::bad_request));
        rejection.resize(header_bytes);
        rejection[3] = 0xFF;  // echoed opcode 0x7F
        rejection[13] = 0x00; // echoed count 0
        check(parse_status::ok, rejection);
        rejection.push_back(0);
        check(parse_status::bad_length, rejection);
        // UNSUPPORTED_VERSION carries the device's version, whatever it is.
        bytes other_version = with(14, uint8_t(status::unsupported_version));
        other_version.resize(header_bytes);
        other_version[2] = 7;
        check(parse_status::ok, other_version);
    }

    void test_codec_rejection_answers()
    {
        bytes b = encode(make_request(opcode::write, 0x11223344, 0x44, 1), { 9 });
        response r;
        // Not answerable: too short, not AXIoE, or a response.
        CPPUNIT_ASSERT(!make_rejection(b.data(), 15, parse_status::too_short, r));
        bytes wrong_magic = b;
        wrong_magic[0] = 0;
        CPPUNIT_ASSERT(
            !make_rejection(wrong_magic.data(), b.size(), parse_status::bad_magic, r));
        bytes a_response = b;
        a_response[3] |= response_bit;
        CPPUNIT_ASSERT(
            !make_rejection(a_response.data(), b.size(), parse_status::not_a_request, r));

        bytes v2 = b;
        v2[2] = 2;
        CPPUNIT_ASSERT(
            make_rejection(v2.data(), v2.size(), parse_status::bad_version, r));
        CPPUNIT_ASSERT(r.code == status::unsupported_version);
        CPPUNIT_ASSERT_EQUAL(protocol_version, r.version);
        CPPUNIT_ASSERT_EQUAL(0x11223344u, r.sequence);

        b[3] = 0x09;
        CPPUNIT_ASSERT(make_rejection(b.data(), b.size(), parse_status::bad_opcode, r));
        CPPUNIT_ASSERT(r.code == status::bad_request);
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x09), r.request_opcode);
        CPPUNIT_ASSERT_EQUAL(0x44u, r.address);
        CPPUNIT_ASSERT_EQUAL(uint16_t(1), r.count);
        CPPUNIT_ASSERT_EQUAL(header_bytes, encode(r).size());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_axioe_codec);
