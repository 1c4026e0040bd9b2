/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// raw_wire on loopback: frames sent to 127.0.0.1 are caught by a raw IPv4 receive
// socket, which sees the IPv4 header exactly as the wire wrote it, and checked field by
// field against what rxe requires (docs/roce-wire.md). Needs CAP_NET_RAW for both
// sockets: without it this program says so and exits 77, which ctest reports as skipped.

#include "../axioe/axioe_client.h"
#include "../qa/qa_runner.h"
#include "../regs/register_map.h"
#include "../roce/roce_packet.h"
#include "../util/file_descriptor.h"
#include "../util/poll_wait.h"
#include "../util/udp_socket.h"
#include "ack_receiver.h"
#include "emulator.h"
#include "raw_wire.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

const uint32_t loopback = 0x7F000001;

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t be32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

bool ipv4_checksum_ok(const uint8_t* h, size_t len)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < len; i += 2)
        sum += be16(h + i);
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return sum == 0xFFFF;
}

//! Every UDP datagram delivered to this host, with its IPv4 header (raw socket).
class frame_capture
{
public:
    frame_capture() : d_fd(::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP))
    {
        CPPUNIT_ASSERT_MESSAGE("raw capture socket", static_cast<bool>(d_fd));
        const int want = 16 << 20;
        ::setsockopt(d_fd.get(), SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want));
    }

    //! Frames to UDP port \p dport from UDP source port \p sport (0: any), until
    //! \p count arrived or \p patience passed.
    std::vector<std::vector<uint8_t>> collect(uint16_t sport,
                                              uint16_t dport,
                                              size_t count,
                                              std::chrono::milliseconds patience)
    {
        std::vector<std::vector<uint8_t>> out;
        const auto deadline = std::chrono::steady_clock::now() + patience;
        std::vector<uint8_t> buf(70000);
        while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
            pollfd p{ d_fd.get(), POLLIN, 0 };
            if (poll_wait(&p, 1, 20ms) <= 0)
                continue;
            const ssize_t n = ::recv(d_fd.get(), buf.data(), buf.size(), MSG_DONTWAIT);
            if (n < 28)
                continue;
            const size_t ihl = size_t(buf[0] & 0x0F) * 4;
            const uint8_t* udp = buf.data() + ihl;
            if ((sport && be16(udp) != sport) || be16(udp + 2) != dport)
                continue; // someone else's traffic
            out.emplace_back(buf.begin(), buf.begin() + n);
        }
        return out;
    }

private:
    file_descriptor d_fd;
};

//! A UC WRITE ONLY packet with wire::headroom in front, as the RX engine lays it out.
struct test_packet {
    std::vector<uint8_t> buffer;
    emu::outgoing_packet out;

    test_packet(uint32_t psn, size_t payload_len, uint8_t fill)
        : buffer(emu::wire::headroom + roce::bth_bytes + roce::reth_bytes + payload_len +
                 3 + roce::icrc_bytes)
    {
        uint8_t* udp_payload = buffer.data() + emu::wire::headroom;
        roce::bth bth;
        bth.opcode = roce::opcode::uc | roce::opcode::write_only;
        bth.pad_count = roce::pad_for(payload_len);
        bth.dest_qp = 0x11;
        bth.psn = psn;
        roce::reth reth;
        reth.va = 0x7f0000001000ull + psn * payload_len;
        reth.rkey = 0x1234;
        reth.dma_length = static_cast<uint32_t>(payload_len);
        const size_t headers = roce::write_headers(udp_payload, bth, &reth);
        for (size_t i = 0; i < payload_len; i++)
            udp_payload[headers + i] = static_cast<uint8_t>(fill + i);
        out.udp_payload = udp_payload;
        out.length = roce::finish(udp_payload, headers, payload_len);
    }
};

// Checks one captured frame against what rxe needs; returns its IP ID.
uint16_t check_frame(const std::vector<uint8_t>& f,
                     uint16_t sport,
                     uint16_t dport,
                     const uint8_t* udp_payload,
                     size_t udp_payload_len)
{
    CPPUNIT_ASSERT_EQUAL(size_t(28) + udp_payload_len, f.size());
    CPPUNIT_ASSERT_EQUAL(uint8_t(0x45), f[0]);             // IPv4, no options
    CPPUNIT_ASSERT_EQUAL(uint16_t(f.size()), be16(&f[2])); // total length
    CPPUNIT_ASSERT_EQUAL(uint16_t(0x4000), be16(&f[6]));   // DF, offset 0
    CPPUNIT_ASSERT_EQUAL(uint8_t(64), f[8]);               // TTL
    CPPUNIT_ASSERT_EQUAL(uint8_t(17), f[9]);               // UDP
    CPPUNIT_ASSERT(ipv4_checksum_ok(f.data(), 20));
    CPPUNIT_ASSERT_EQUAL(loopback, be32(&f[12]));
    CPPUNIT_ASSERT_EQUAL(loopback, be32(&f[16]));
    CPPUNIT_ASSERT_EQUAL(sport, be16(&f[20]));
    CPPUNIT_ASSERT(sport >= 0xC000);
    CPPUNIT_ASSERT_EQUAL(dport, be16(&f[22]));
    CPPUNIT_ASSERT_EQUAL(uint16_t(8 + udp_payload_len), be16(&f[24]));
    CPPUNIT_ASSERT_EQUAL(uint16_t(0), be16(&f[26])); // UDP checksum: none
    // What went out is what the RX engine built, and the ICRC covers the real header.
    CPPUNIT_ASSERT(std::memcmp(&f[28], udp_payload, udp_payload_len) == 0);
    const size_t body = f.size() - roce::icrc_bytes;
    CPPUNIT_ASSERT_EQUAL(roce::compute_icrc_frame(f.data(), body),
                         roce::load_icrc(&f[body]));
    roce::packet pkt;
    CPPUNIT_ASSERT(roce::parse(&f[28], udp_payload_len, pkt) == roce::parse_status::ok);
    const uint16_t id = be16(&f[4]);
    CPPUNIT_ASSERT(id != 0);
    return id;
}

uint16_t next_id(uint16_t id) { return id == 0xFFFF ? 1 : static_cast<uint16_t>(id + 1); }

} // namespace

class qa_raw_wire : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_raw_wire);
    CPPUNIT_TEST(test_link);
    CPPUNIT_TEST(test_frames);
    CPPUNIT_TEST(test_flip_after_seal_once);
    CPPUNIT_TEST(test_receive);
    CPPUNIT_TEST(test_rc_acks_reach_their_stream);
    CPPUNIT_TEST(test_bad_link);
    CPPUNIT_TEST(test_emulator_stream);
    CPPUNIT_TEST_SUITE_END();

    // The destination port the frames go to; a UDP socket holds it so that the kernel
    // does not answer each frame with ICMP port unreachable.
    udp_socket d_sink{ socket_address::parse("127.0.0.1:0") };

public:
    void test_link()
    {
        emu::raw_wire wire(socket_address::parse("127.0.0.1"));
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:4791"),
                             wire.local_address().to_string());
        CPPUNIT_ASSERT(wire.mtu() >= 1500); // lo: 65536
        CPPUNIT_ASSERT((wire.source_port() & 0xC000) == 0xC000);
        emu::raw_wire other(socket_address::parse("127.0.0.1:14791"), 0xC123);
        CPPUNIT_ASSERT_EQUAL(uint16_t(14791), other.local_address().port());
        CPPUNIT_ASSERT_EQUAL(uint16_t(0xC123), other.source_port());
    }

    void test_frames()
    {
        frame_capture capture;
        emu::raw_wire wire(socket_address::parse("127.0.0.1"));
        const uint16_t dport = d_sink.local_address().port();
        std::vector<test_packet> packets;
        for (uint32_t i = 0; i < 40; i++)
            packets.emplace_back(i, 1021 + i, static_cast<uint8_t>(i)); // every pad 0..3
        std::vector<emu::outgoing_packet> batch;
        for (auto& p : packets)
            batch.push_back(p.out);
        CPPUNIT_ASSERT_EQUAL(
            batch.size(), wire.send(batch.data(), batch.size(), d_sink.local_address()));

        const auto frames =
            capture.collect(wire.source_port(), dport, batch.size(), 2000ms);
        CPPUNIT_ASSERT_EQUAL(batch.size(), frames.size());
        uint16_t previous = 0;
        for (size_t i = 0; i < frames.size(); i++) {
            CPPUNIT_ASSERT(batch[i].sealed);
            const uint16_t id = check_frame(frames[i],
                                            wire.source_port(),
                                            dport,
                                            batch[i].udp_payload,
                                            batch[i].length);
            if (i > 0)
                CPPUNIT_ASSERT_EQUAL(next_id(previous), id); // one ID per frame, in order
            previous = id;
        }
    }

    void test_flip_after_seal_once()
    {
        frame_capture capture;
        emu::raw_wire wire(socket_address::parse("127.0.0.1"));
        const uint16_t dport = d_sink.local_address().port();
        test_packet p(7, 64, 0x40);
        const size_t flip_at = roce::bth_bytes + roce::reth_bytes + 5; // a payload byte
        const uint8_t original = p.out.udp_payload[flip_at];
        p.out.flip_after_seal = static_cast<int32_t>(flip_at);
        CPPUNIT_ASSERT_EQUAL(size_t(1), wire.send(&p.out, 1, d_sink.local_address()));
        // Offered again (as after a full queue): neither re-sealed nor flipped back.
        CPPUNIT_ASSERT_EQUAL(size_t(1), wire.send(&p.out, 1, d_sink.local_address()));

        const auto frames = capture.collect(wire.source_port(), dport, 2, 2000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(2), frames.size());
        CPPUNIT_ASSERT(frames[0] == frames[1]); // same IP ID, same bytes
        const auto& f = frames[0];
        CPPUNIT_ASSERT_EQUAL(uint8_t(original ^ 0x01), f[28 + flip_at]);
        const size_t body = f.size() - roce::icrc_bytes;
        // The ICRC was computed before the flip: it matches the unflipped frame only.
        CPPUNIT_ASSERT(roce::compute_icrc_frame(f.data(), body) !=
                       roce::load_icrc(&f[body]));
        std::vector<uint8_t> unflipped = f;
        unflipped[28 + flip_at] ^= 0x01;
        CPPUNIT_ASSERT_EQUAL(roce::compute_icrc_frame(unflipped.data(), body),
                             roce::load_icrc(&unflipped[body]));
    }

    void test_receive()
    {
        emu::raw_wire wire(socket_address::parse("127.0.0.1"));
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        const uint8_t ack[16] = { 0x11, 0, 0xFF, 0xFF, 0, 0, 0, 0x22 };
        host.send_to(ack, sizeof(ack), wire.local_address());
        pollfd p{ wire.receive_fd(), POLLIN, 0 };
        CPPUNIT_ASSERT(poll_wait(&p, 1, 2000ms) > 0);
        uint8_t buf[64];
        datagram d;
        d.data = buf;
        d.capacity = sizeof(buf);
        CPPUNIT_ASSERT_EQUAL(size_t(1), wire.receive(&d, 1));
        CPPUNIT_ASSERT_EQUAL(sizeof(ack), d.length);
        CPPUNIT_ASSERT(std::memcmp(buf, ack, sizeof(ack)) == 0);
        CPPUNIT_ASSERT(d.peer == host.local_address());
    }

    // RC on a raw wire: what rxe sends back to port 4791 reaches the stream whose QP it
    // names. The ICRC cannot be checked there (the UDP socket hides the IP ID it covers).
    void test_rc_acks_reach_their_stream()
    {
        emu::raw_wire wire(socket_address::parse("127.0.0.1"));
        emu::ack_receiver acks(wire, 2);
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        auto ack = [&](uint32_t qpn, uint32_t psn, uint8_t syndrome) {
            roce::bth b;
            b.opcode = roce::opcode::rc | roce::opcode::acknowledge;
            b.dest_qp = qpn;
            b.psn = psn;
            roce::aeth a;
            a.syndrome = syndrome;
            a.msn = 7;
            uint8_t out[roce::bth_bytes + roce::aeth_bytes + roce::icrc_bytes];
            const size_t h = roce::write_headers(out, b, nullptr, nullptr, &a);
            host.send_to(out, roce::finish(out, h, 0), wire.local_address());
        };
        ack(emu::rx_source_qpn(1), 0x123456, roce::syndrome::nak_psn_sequence);
        ack(emu::rx_source_qpn(0), 0x000010, roce::syndrome::ack_unlimited);
        ack(0x999, 1, roce::syndrome::ack_unlimited); // no stream's
        const uint8_t garbage[8] = { 0x0A };
        host.send_to(garbage, sizeof(garbage), wire.local_address());
        pollfd p{ wire.receive_fd(), POLLIN, 0 };
        CPPUNIT_ASSERT(poll_wait(&p, 1, 2000ms) > 0);
        std::this_thread::sleep_for(20ms); // all four queued
        emu::rc_ack got[4];
        CPPUNIT_ASSERT_EQUAL(size_t(1), acks.poll(0, got, 4));
        CPPUNIT_ASSERT_EQUAL(0x000010u, got[0].psn);
        CPPUNIT_ASSERT_EQUAL(int(roce::syndrome::ack_unlimited), int(got[0].syndrome));
        CPPUNIT_ASSERT_EQUAL(size_t(1), acks.poll(1, got, 4));
        CPPUNIT_ASSERT_EQUAL(0x123456u, got[0].psn);
        CPPUNIT_ASSERT_EQUAL(int(roce::syndrome::nak_psn_sequence), int(got[0].syndrome));
        CPPUNIT_ASSERT_EQUAL(7u, got[0].msn);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), acks.unknown_qp());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), acks.malformed());
    }

    void test_bad_link()
    {
        CPPUNIT_ASSERT_THROW(emu::raw_wire(socket_address::parse("0.0.0.0")),
                             std::invalid_argument);
        // Not an address of this host: the frames could not honestly carry it.
        CPPUNIT_ASSERT_THROW(emu::raw_wire(socket_address::parse("192.0.2.77")),
                             std::exception);
    }

    // The whole emulator on a raw wire: every frame of a burst carries a valid ICRC over
    // its real header, consecutive IP IDs and the ramp.
    void test_emulator_stream()
    {
        frame_capture capture;
        emu::emulator_config config;
        config.link = socket_address::parse("127.0.0.1");
        config.wire = emu::wire_type::raw;
        emu::emulator dev(config);
        CPPUNIT_ASSERT_EQUAL(uint16_t(4791), dev.link_address().port());
        axioe::client axi(dev.control_address());
        CPPUNIT_ASSERT_EQUAL(uint32_t(4791),
                             axi.read32(regs::link_reg(0, regs::link::roce_port)));

        const uint32_t payload = 1024, messages = 48;
        auto reg = [](uint32_t r) { return regs::rx_reg(0, r); };
        axi.write32(reg(regs::rx::dest_ipv4), loopback);
        axi.write32(reg(regs::rx::dest_udp_port), d_sink.local_address().port());
        axi.write32(reg(regs::rx::dest_qpn), 0x123);
        axi.write32(reg(regs::rx::start_psn), 0xFFFFF8);
        axi.write32(reg(regs::rx::rkey), 0xABCD);
        axi.write64(reg(regs::rx::va_lo), 0x7f0000000000ull);
        axi.write64(reg(regs::rx::ring_bytes_lo), 16 * payload);
        axi.write32(reg(regs::rx::payload_bytes), payload);
        axi.write32(reg(regs::rx::path_mtu), 1024);
        axi.write32(reg(regs::rx::notify_interval), 16);
        axi.write32(reg(regs::rx::rate_num), 4000000);
        axi.write32(reg(regs::rx::rate_den), 1);
        axi.write32(reg(regs::rx::format), regs::format::sc16);
        axi.write64(reg(regs::rx::num_samples_lo), uint64_t(messages) * payload / 4);
        axi.write32(reg(regs::rx::command), regs::command::start);

        const auto frames =
            capture.collect(0, d_sink.local_address().port(), messages, 3000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(messages), frames.size());
        const uint16_t sport = be16(&frames[0][20]);
        uint16_t previous = 0;
        ramp_errors errors;
        for (size_t m = 0; m < frames.size(); m++) {
            const auto& f = frames[m];
            const uint16_t id = check_frame(
                f, sport, d_sink.local_address().port(), &f[28], f.size() - 28);
            if (m > 0)
                CPPUNIT_ASSERT_EQUAL(next_id(previous), id);
            previous = id;
            roce::packet pkt;
            CPPUNIT_ASSERT(roce::parse(&f[28], f.size() - 28, pkt) ==
                           roce::parse_status::ok);
            CPPUNIT_ASSERT_EQUAL(uint32_t((0xFFFFF8 + m) & 0xFFFFFF), pkt.base.psn);
            CPPUNIT_ASSERT_EQUAL(size_t(payload), pkt.payload_len);
            check_ramp(
                sample_format::sc16, m * payload / 4, pkt.payload, payload / 4, errors);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), errors.mismatches);
        // The device counts a batch just after sending it: its count is final once it
        // says it is no longer running (the frames can be here a moment before).
        const auto give_up = std::chrono::steady_clock::now() + 1s;
        while ((axi.read32(reg(regs::rx::status)) & regs::status::running) &&
               std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(1ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(messages),
                             axi.read64(reg(regs::rx::packets_sent_lo)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_raw_wire);

int main(int argc, char** argv)
{
    // Both the wire and the capture need CAP_NET_RAW; without it, skip loudly.
    file_descriptor probe(::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW));
    if (!probe) {
        std::cerr << "SKIPPED: qa_raw_wire: raw IPv4 sockets are not permitted here ("
                  << std::strerror(errno) << "); run as root or with CAP_NET_RAW\n";
        return 77;
    }
    probe.reset();

    return run_registered_tests(argc, argv);
}
