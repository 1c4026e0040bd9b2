/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RoCEv2 golden vectors: the one of the notes, frames generated with the reference
// script (IP options included), and a round trip of every opcode and pad length.

#include "qa_roce_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace qa_roce;

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

} // namespace

class qa_roce_golden : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_roce_golden);
    CPPUNIT_TEST(test_notes_golden_vector);
    CPPUNIT_TEST(test_generated_golden_vectors);
    CPPUNIT_TEST(test_golden_vector_with_ip_options);
    CPPUNIT_TEST(test_round_trip_every_opcode_and_pad);
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

    void test_round_trip_every_opcode_and_pad()
    {
        std::mt19937 rng(4791);
        const auto ops = all_known_opcodes();
        CPPUNIT_ASSERT_EQUAL(size_t(20), ops.size()); // with RC SEND ONLY (WITH IMMEDIATE)
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
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_roce_golden);
