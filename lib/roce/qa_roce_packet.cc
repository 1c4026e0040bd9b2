/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "roce_packet.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::roce;

namespace {

// A golden vector generated with /work/shared/notes/roce_ref.py (verified against
// scapy.contrib.roce). The payload is byte i = (i * 7 + payload_seed) & 0xFF.
struct golden {
    const char* name;
    uint8_t opcode;
    bool se;
    bool mig_req;
    uint8_t resv8a;
    uint16_t pkey;
    uint32_t qpn;
    bool ack_req;
    uint32_t psn;
    uint64_t va;
    uint32_t rkey;
    uint32_t dma_length;
    uint32_t imm;
    uint8_t syndrome;
    uint32_t msn;
    size_t payload_len;
    uint8_t payload_seed;
    uint32_t src_ip;
    uint32_t dst_ip;
    uint16_t src_port;
    uint16_t dst_port;
    uint16_t ip_id;
    bool dont_fragment;
    uint8_t tos;
    uint8_t ttl;
    unsigned ihl;
    uint32_t icrc;     //!< as load_icrc() reads it
    const char* frame; //!< IPv4 header .. ICRC as hex; nullptr for the large ones
};

// Columns: name; opcode, SE, MigReq, resv8a, P_Key, DestQP, AckReq, PSN;
// VA, R_Key, DMA length, ImmDt, syndrome, MSN; payload length, payload seed, src IP,
// dst IP, src port, dst port, IP ID, DF, TOS, TTL, IHL; ICRC; frame.
// clang-format off
const golden goldens[] = {
    { "rc_write_only_len0",
      0x0A, false, false, 0x00, 0xFFFF, 0x51C9BD, true, 0x80A4DF,
      0x8306D03BF38B2FFCULL, 0xA5AEC797, 0, 0x00000000, 0x00, 0x000000,
      0, 0x1E, 0x0A000002, 0x0A000001, 0xFCFD, 4791, 0x1A46, true, 0xE2, 58, 5,
      0xEFAAC8F9,
      "45e2003c1a4640003a1111870a0000020a000001fcfd12b7002800000a00ffff0051c9bd"
      "8080a4df8306d03bf38b2ffca5aec79700000000f9c8aaef" },
    { "uc_write_first_len1",
      0x26, false, false, 0x00, 0xFFFF, 0x99DD25, true, 0x9F1995,
      0xC88B28756BAD6BE2ULL, 0x9293DE8F, 4097, 0x00000000, 0x00, 0x000000,
      1, 0xE5, 0x0A000002, 0x0A000001, 0xF5E9, 4791, 0xBB04, true, 0xC6, 197, 5,
      0xDDB53ACF,
      "45c60040bb044000c511e5df0a0000020a000001f5e912b7002c00002630ffff0099dd25"
      "809f1995c88b28756bad6be29293de8f00001001e5000000cf3ab5dd" },
    { "uc_write_middle_len2_migreq",
      0x27, false, true, 0x00, 0xFFFF, 0xC0433D, true, 0xC5E818,
      0x0000000000000000ULL, 0x00000000, 0, 0x00000000, 0x00, 0x000000,
      2, 0x7D, 0x0A000002, 0x0A000001, 0xC52A, 4791, 0x1C59, true, 0x49, 210, 5,
      0x64A27CAD,
      "454900301c594000d21178180a0000020a000001c52a12b7001c00002760ffff00c0433d"
      "80c5e8187d840000ad7ca264" },
    { "rc_write_last_len3",
      0x08, false, false, 0x00, 0xFFFF, 0x731C95, true, 0x02F0EE,
      0x0000000000000000ULL, 0x00000000, 0, 0x00000000, 0x00, 0x000000,
      3, 0x19, 0x0A000002, 0x0A000001, 0xEB7B, 4791, 0x5071, true, 0x35, 102, 5,
      0x098DD1B7,
      "45350030507140006611b0140a0000020a000001eb7b12b7001c00000810ffff00731c95"
      "8002f0ee19202700b7d18d09" },
    { "uc_write_last_imm_len5_se_pkey7fff",
      0x29, true, false, 0x00, 0x7FFF, 0x59001B, true, 0xFADB89,
      0x0000000000000000ULL, 0x00000000, 0, 0x60581CCA, 0x00, 0x000000,
      5, 0x40, 0x0A000002, 0x0A000001, 0xFFFA, 4791, 0xBEF7, true, 0x83, 164, 5,
      0x3C4834C4,
      "45830038bef74000a41103380a0000020a000001fffa12b70024000029b07fff0059001b"
      "80fadb8960581cca40474e555c000000c434483c" },
    { "rc_write_only_imm_len1021",
      0x0B, true, false, 0x00, 0xFFFF, 0xB91DDD, true, 0x572419,
      0x8EB5140F16F44881ULL, 0x89BE9C1C, 1021, 0x4AC87FC0, 0x00, 0x000000,
      1021, 0x13, 0xC0A80714, 0xC0A80701, 0xD268, 4791, 0x751B, true, 0x24, 225, 5,
      0x909B2752,
      nullptr },
    { "uc_write_only_len4096",
      0x2A, false, false, 0x00, 0xFFFF, 0xB437BD, false, 0xB766FF,
      0x4F1A8A1D93D20470ULL, 0x06555096, 4096, 0x00000000, 0x00, 0x000000,
      4096, 0xA5, 0xAC100009, 0xAC100001, 0xED7E, 4791, 0x5E6C, true, 0x5D, 119, 5,
      0x3AE1FA32,
      nullptr },
    { "rc_ack_unlimited",
      0x11, false, false, 0x00, 0xFFFF, 0x173715, false, 0x661602,
      0x0000000000000000ULL, 0x00000000, 0, 0x00000000, 0x1F, 0x00BEEF,
      0, 0x6C, 0x0A000002, 0x0A000001, 0xF780, 4791, 0x1DCF, true, 0x6C, 130, 5,
      0x63033928,
      "456c00301dcf40008211c67f0a0000020a000001f78012b7001c00001100ffff00173715"
      "006616021f00beef28390363" },
    { "rc_nak_psn_sequence",
      0x11, false, false, 0x00, 0xFFFF, 0xC0099F, false, 0xDDE3A3,
      0x0000000000000000ULL, 0x00000000, 0, 0x00000000, 0x60, 0xFFFFFF,
      0, 0xCD, 0x0A000002, 0x0A000001, 0xFAAC, 4791, 0x864F, true, 0x42, 217, 5,
      0x836350FC,
      "45420030864f4000d91107290a0000020a000001faac12b7001c00001100ffff00c0099f"
      "00dde3a360fffffffc506383" },
    { "rc_read_request",
      0x0C, false, false, 0x00, 0xFFFF, 0x90624F, true, 0xED1D9D,
      0x7AAC319FFB759E0FULL, 0x8350A73F, 65536, 0x00000000, 0x00, 0x000000,
      0, 0x6B, 0x0A000002, 0x0A000001, 0xF387, 4791, 0x067F, true, 0x93, 58, 5,
      0xF2A5F210,
      "4593003c067f40003a11259d0a0000020a000001f38712b7002800000c00ffff0090624f"
      "80ed1d9d7aac319ffb759e0f8350a73f0001000010f2a5f2" },
    { "rc_read_response_first_len6",
      0x0D, false, false, 0x00, 0xFFFF, 0x210611, false, 0xD1711C,
      0x0000000000000000ULL, 0x00000000, 0, 0x00000000, 0x1F, 0x000003,
      6, 0xC4, 0x0A000002, 0x0A000001, 0xEAE9, 4791, 0x1A42, true, 0xB7, 160, 5,
      0xCE905017,
      "45b700381a424000a011abb90a0000020a000001eae912b7002400000d20ffff00210611"
      "00d1711c1f000003c4cbd2d9e0e70000175090ce" },
    { "rc_read_response_middle_len7",
      0x0E, false, false, 0x00, 0xFFFF, 0x785491, false, 0x247526,
      0x0000000000000000ULL, 0x00000000, 0, 0x00000000, 0x00, 0x000000,
      7, 0x6D, 0x0A000002, 0x0A000001, 0xC7CF, 4791, 0xA06D, true, 0xB3, 117, 5,
      0x15CE0965,
      "45b30034a06d4000751150960a0000020a000001c7cf12b7002000000e10ffff00785491"
      "002475266d747b82899097006509ce15" },
    { "uc_write_only_len8_port18515_nodf_fecn",
      0x2A, false, false, 0xC0, 0xFFFF, 0x782AFF, true, 0xB6EAFF,
      0xFCBAD167F5A9CA5FULL, 0xFA97002C, 8, 0x00000000, 0x00, 0x000000,
      8, 0xAC, 0x0A000002, 0x0A000001, 0xD010, 18515, 0x8F4E, false, 0x66, 172, 5,
      0x4BB84F8B,
      "456600448f4e0000ac116af20a0000020a000001d0104853003000002a00ffffc0782aff"
      "80b6eafffcbad167f5a9ca5ffa97002c00000008acb3bac1c8cfd6dd8b4fb84b" },
    { "uc_write_only_imm_len4_ip_options",
      0x2B, false, false, 0x00, 0xFFFF, 0x4EC0A9, true, 0x8C5376,
      0x807C7E30A598D0DBULL, 0xB2C55523, 4, 0x7A98B9AC, 0x00, 0x000000,
      4, 0xFF, 0x0A000002, 0x0A000001, 0xF383, 4791, 0xE26B, true, 0x66, 111, 6,
      0x8CFAECBA,
      "46660048e26b40006f1111d00a0000020a00000101010100f38312b7003000002b00ffff"
      "004ec0a9808c5376807c7e30a598d0dbb2c55523000000047a98b9acff060d14baecfa8c" },
};
// clang-format on

std::vector<uint8_t> from_hex(const char* hex)
{
    std::vector<uint8_t> out;
    for (size_t i = 0; hex[i] && hex[i + 1]; i += 2)
        out.push_back(
            static_cast<uint8_t>(std::stoul(std::string(hex + i, 2), nullptr, 16)));
    return out;
}

std::string to_hex(const uint8_t* p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; i++) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 0xF];
    }
    return s;
}

uint8_t payload_byte(size_t i, uint8_t seed)
{
    return static_cast<uint8_t>(i * 7 + seed);
}

ip_context context_of(const golden& g)
{
    ip_context ip;
    ip.src_ip = g.src_ip;
    ip.dst_ip = g.dst_ip;
    ip.src_port = g.src_port;
    ip.dst_port = g.dst_port;
    ip.ip_id = g.ip_id;
    ip.dont_fragment = g.dont_fragment;
    return ip;
}

bth bth_of(const golden& g)
{
    bth b;
    b.opcode = g.opcode;
    b.solicited = g.se;
    b.mig_req = g.mig_req;
    b.pad_count = pad_for(g.payload_len);
    b.pkey = g.pkey;
    b.resv8a = g.resv8a;
    b.dest_qp = g.qpn;
    b.ack_req = g.ack_req;
    b.psn = g.psn;
    return b;
}

// Builds the UDP payload of \p g at \p out (sized by the caller); returns its length.
size_t build_udp_payload(const golden& g, uint8_t* out)
{
    const reth r{ g.va, g.rkey, g.dma_length };
    const aeth a{ g.syndrome, g.msn };
    const size_t hdr = write_headers(out, bth_of(g), &r, &g.imm, &a);
    for (size_t i = 0; i < g.payload_len; i++)
        out[hdr + i] = payload_byte(i, g.payload_seed);
    return finish(out, hdr, g.payload_len);
}

// The whole IPv4 frame of \p g, built and sealed through the public API.
std::vector<uint8_t> build_frame(const golden& g)
{
    std::vector<uint8_t> frame(28 + headers_size(g.opcode) + g.payload_len + 3 + 4);
    const size_t udp_len = build_udp_payload(g, frame.data() + 28);
    frame.resize(28 + udp_len);
    CPPUNIT_ASSERT_EQUAL(
        size_t(28), write_ipv4_udp(frame.data(), context_of(g), udp_len, g.tos, g.ttl));
    seal_frame(frame.data(), frame.size());
    return frame;
}

void check_parsed(const golden& g, const uint8_t* udp, size_t len)
{
    const std::string m = g.name;
    packet p;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, parse_status::ok, parse(udp, len, p));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, int(g.opcode), int(p.base.opcode));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.se, p.base.solicited);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.mig_req, p.base.mig_req);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, int(pad_for(g.payload_len)), int(p.base.pad_count));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, int(g.pkey), int(p.base.pkey));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, int(g.resv8a), int(p.base.resv8a));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.qpn, p.base.dest_qp);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.ack_req, p.base.ack_req);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.psn, p.base.psn);
    const opcode_info info = describe(g.opcode);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, info.has_reth, p.has_reth);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, info.has_imm, p.has_imm);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, info.has_aeth, p.has_aeth);
    if (info.has_reth) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.va, p.reth_hdr.va);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.rkey, p.reth_hdr.rkey);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.dma_length, p.reth_hdr.dma_length);
    }
    if (info.has_imm)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.imm, p.imm);
    if (info.has_aeth) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE(m, int(g.syndrome), int(p.aeth_hdr.syndrome));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.msn, p.aeth_hdr.msn);
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, headers_size(g.opcode), p.headers_len);
    CPPUNIT_ASSERT_MESSAGE(m, p.payload == udp + p.headers_len);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.payload_len, p.payload_len);
    for (size_t i = 0; i < g.payload_len; i++)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            m, int(payload_byte(i, g.payload_seed)), int(p.payload[i]));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(m, g.icrc, p.icrc);
}

// The receiver's check: the carried ICRC equals the one computed over the frame.
bool frame_icrc_ok(const std::vector<uint8_t>& f)
{
    return load_icrc(f.data() + f.size() - 4) ==
           compute_icrc_frame(f.data(), f.size() - 4);
}

// parse() on an exactly-sized heap copy, so that a sanitizer build sees any overrun.
parse_status parse_copy(const uint8_t* data, size_t len, packet& out)
{
    std::unique_ptr<uint8_t[]> exact(new uint8_t[len ? len : 1]);
    if (len)
        std::memcpy(exact.get(), data, len);
    return parse(len ? exact.get() : nullptr, len, out);
}

// A UDP payload for \p op with \p payload_len bytes of payload, sealed for \p ip.
std::vector<uint8_t> make_udp(uint8_t op, size_t payload_len, const ip_context& ip = {})
{
    std::vector<uint8_t> buf(bth_bytes + reth_bytes + immdt_bytes + aeth_bytes +
                             payload_len + 3 + icrc_bytes);
    bth b;
    b.opcode = op;
    b.dest_qp = 0x000123;
    b.psn = 0x000456;
    b.pad_count = pad_for(payload_len);
    const reth r{ 0x1000, 0x77, static_cast<uint32_t>(payload_len) };
    const uint32_t imm = 0xCAFEF00D;
    const aeth a{ syndrome::ack_unlimited, 9 };
    const size_t hdr = write_headers(buf.data(), b, &r, &imm, &a);
    for (size_t i = 0; i < payload_len; i++)
        buf[hdr + i] = static_cast<uint8_t>(0xA0 + i);
    buf.resize(finish(buf.data(), hdr, payload_len));
    seal_udp(ip, buf.data(), buf.size());
    return buf;
}

std::vector<uint8_t> all_known_opcodes()
{
    std::vector<uint8_t> ops;
    for (int op = 0; op < 256; op++)
        if (describe(static_cast<uint8_t>(op)).known)
            ops.push_back(static_cast<uint8_t>(op));
    return ops;
}

} // namespace

CPPUNIT_NS_BEGIN
template <>
struct assertion_traits<parse_status> {
    static bool equal(parse_status a, parse_status b) { return a == b; }
    static std::string toString(parse_status s) { return to_string(s); }
};
CPPUNIT_NS_END

class qa_roce_packet : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_roce_packet);
    CPPUNIT_TEST(test_notes_golden_vector);
    CPPUNIT_TEST(test_generated_golden_vectors);
    CPPUNIT_TEST(test_golden_vector_with_ip_options);
    CPPUNIT_TEST(test_icrc_byte_order);
    CPPUNIT_TEST(test_round_trip_every_opcode_and_pad);
    CPPUNIT_TEST(test_write_headers_keeps_fields_in_their_bits);
    CPPUNIT_TEST(test_finish_zeroes_pad_and_icrc);
    CPPUNIT_TEST(test_write_ipv4_udp);
    CPPUNIT_TEST(test_udp_and_frame_icrc_agree);
    CPPUNIT_TEST(test_truncation_rejected);
    CPPUNIT_TEST(test_negative_payload_rejected);
    CPPUNIT_TEST(test_bad_version);
    CPPUNIT_TEST(test_unknown_opcodes);
    CPPUNIT_TEST(test_icrc_detects_every_bit_flip);
    CPPUNIT_TEST(test_icrc_field_coverage);
    CPPUNIT_TEST(test_icrc_context_coverage);
    CPPUNIT_TEST(test_describe_table);
    CPPUNIT_TEST(test_headers_size);
    CPPUNIT_TEST(test_to_string);
    CPPUNIT_TEST_SUITE_END();

public:
    // The vector in roce-wire-rxe-axioe.md 2.8 (UC WRITE_ONLY_IMM, 8 bytes payload).
    void test_notes_golden_vector()
    {
        const auto expected = from_hex(
            "45000048000040004011b751c0a80102c0a80101c00012b7003400002b00ffff0000001100"
            "00000000007f00000010000000123400000008deadbeef00010203040506076f9cabff");
        ip_context ip;
        ip.src_ip = 0xC0A80102;
        ip.dst_ip = 0xC0A80101;
        ip.src_port = 0xC000;
        ip.ip_id = 0;
        bth b;
        b.opcode = opcode::uc | opcode::write_only_imm;
        b.dest_qp = 0x11;
        b.psn = 0;
        b.pad_count = pad_for(8);
        const reth r{ 0x7f0000001000, 0x1234, 8 };
        const uint32_t imm = 0xdeadbeef;

        uint8_t frame[128];
        uint8_t* udp = frame + 28;
        const size_t hdr = write_headers(udp, b, &r, &imm);
        CPPUNIT_ASSERT_EQUAL(size_t(32), hdr);
        for (int i = 0; i < 8; i++)
            udp[hdr + i] = static_cast<uint8_t>(i);
        const size_t udp_len = finish(udp, hdr, 8);
        CPPUNIT_ASSERT_EQUAL(size_t(44), udp_len);
        CPPUNIT_ASSERT_EQUAL(size_t(28), write_ipv4_udp(frame, ip, udp_len, 0, 64));
        seal_frame(frame, 28 + udp_len);
        CPPUNIT_ASSERT_EQUAL(to_hex(expected.data(), expected.size()),
                             to_hex(frame, 28 + udp_len));

        CPPUNIT_ASSERT_EQUAL(0xFFAB9C6Fu, compute_icrc(ip, udp, udp_len - 4));
        CPPUNIT_ASSERT_EQUAL(0xFFAB9C6Fu, load_icrc(frame + 28 + udp_len - 4));

        // The UDP-socket path gives the same bytes.
        std::memset(udp + udp_len - 4, 0, 4);
        seal_udp(ip, udp, udp_len);
        CPPUNIT_ASSERT_EQUAL(to_hex(expected.data(), expected.size()),
                             to_hex(frame, 28 + udp_len));

        packet p;
        CPPUNIT_ASSERT_EQUAL(parse_status::ok, parse(udp, udp_len, p));
        CPPUNIT_ASSERT_EQUAL(0xdeadbeefu, p.imm);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0x7f0000001000), p.reth_hdr.va);
        CPPUNIT_ASSERT_EQUAL(size_t(8), p.payload_len);
        CPPUNIT_ASSERT_EQUAL(0xFFAB9C6Fu, p.icrc);
    }

    void test_generated_golden_vectors()
    {
        int with_frame = 0;
        for (const golden& g : goldens) {
            if (g.ihl != 5)
                continue;
            const std::string m = g.name;
            const auto frame = build_frame(g);
            if (g.frame) {
                const auto expected = from_hex(g.frame);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(m,
                                             to_hex(expected.data(), expected.size()),
                                             to_hex(frame.data(), frame.size()));
                with_frame++;
            }
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                m, g.icrc, load_icrc(frame.data() + frame.size() - 4));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                m, g.icrc, compute_icrc_frame(frame.data(), frame.size() - 4));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                m,
                g.icrc,
                compute_icrc(context_of(g), frame.data() + 28, frame.size() - 32));
            check_parsed(g, frame.data() + 28, frame.size() - 28);
        }
        CPPUNIT_ASSERT(with_frame >= 8);
    }

    // rxe hashes the whole IP header, options included; compute_icrc_frame must too.
    void test_golden_vector_with_ip_options()
    {
        int seen = 0;
        for (const golden& g : goldens) {
            if (g.ihl == 5)
                continue;
            const std::string m = g.name;
            const auto frame = from_hex(g.frame);
            const size_t udp_at = g.ihl * 4 + udp_header_bytes;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                m, g.icrc, compute_icrc_frame(frame.data(), frame.size() - 4));
            check_parsed(g, frame.data() + udp_at, frame.size() - udp_at);

            std::vector<uint8_t> udp(frame.size());
            udp.resize(build_udp_payload(g, udp.data()));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                m,
                to_hex(frame.data() + udp_at, frame.size() - udp_at - 4),
                to_hex(udp.data(), udp.size() - 4));
            // Sealing in place reproduces the frame.
            auto copy = frame;
            std::memset(copy.data() + copy.size() - 4, 0, 4);
            seal_frame(copy.data(), copy.size());
            CPPUNIT_ASSERT(copy == frame);
            seen++;
        }
        CPPUNIT_ASSERT(seen > 0);
    }

    void test_icrc_byte_order()
    {
        uint8_t b[4];
        store_icrc(b, 0x11223344);
        CPPUNIT_ASSERT_EQUAL(std::string("44332211"), to_hex(b, 4));
        CPPUNIT_ASSERT_EQUAL(0x11223344u, load_icrc(b));
    }

    void test_round_trip_every_opcode_and_pad()
    {
        std::mt19937 rng(4791);
        const auto ops = all_known_opcodes();
        CPPUNIT_ASSERT_EQUAL(size_t(18), ops.size());
        for (uint8_t op : ops) {
            for (size_t payload_len : { 0, 1, 2, 3, 4, 5, 6, 7, 1021, 4096 }) {
                golden g{};
                g.name = "round trip";
                g.opcode = op;
                g.se = rng() & 1;
                g.mig_req = rng() & 1;
                g.resv8a = static_cast<uint8_t>(rng());
                g.pkey = static_cast<uint16_t>(rng());
                g.qpn = rng() & 0xFFFFFF;
                g.ack_req = rng() & 1;
                g.psn = rng() & 0xFFFFFF;
                g.va = (uint64_t(rng()) << 32) | rng();
                g.rkey = rng();
                g.dma_length = rng();
                g.imm = rng();
                g.syndrome = static_cast<uint8_t>(rng());
                g.msn = rng() & 0xFFFFFF;
                g.payload_len = payload_len;
                g.payload_seed = static_cast<uint8_t>(rng());
                g.src_ip = rng();
                g.dst_ip = rng();
                g.src_port = static_cast<uint16_t>(0xC000 | rng());
                g.dst_port = udp_port;
                g.ip_id = static_cast<uint16_t>(rng());
                g.dont_fragment = rng() & 1;
                g.tos = static_cast<uint8_t>(rng());
                g.ttl = static_cast<uint8_t>(rng());
                const auto frame = build_frame(g);
                g.icrc = load_icrc(frame.data() + frame.size() - 4);
                CPPUNIT_ASSERT_EQUAL(28 + headers_size(op) + payload_len +
                                         pad_for(payload_len) + 4,
                                     frame.size());
                check_parsed(g, frame.data() + 28, frame.size() - 28);
                CPPUNIT_ASSERT(frame_icrc_ok(frame));
                CPPUNIT_ASSERT_EQUAL(
                    g.icrc,
                    compute_icrc(context_of(g), frame.data() + 28, frame.size() - 32));
            }
        }
    }

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
        const uint8_t unknown[] = { 0x40, 0x64, 0x81, 0x2C, 0x13,     0x00,
                                    0x04, 0x12, 0x31, 0x2D, 0x26 - 1, 0xFF };
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
        CPPUNIT_ASSERT_EQUAL(18, accepted);
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

CPPUNIT_TEST_SUITE_REGISTRATION(qa_roce_packet);
