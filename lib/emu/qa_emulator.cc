/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator seen from the wire: program it through AXIoE like a host would, catch
// its RoCEv2 packets on a plain UDP socket and check every field of every packet.

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <gnuradio/rdma/test_signal.h>
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct received_packet {
    roce::packet pkt;
    std::vector<uint8_t> bytes;
    uint32_t expected_icrc = 0;
};

class emulator_bench
{
public:
    emulator_bench()
        : dev(emu::emulator_config{}),
          axi(dev.control_address()),
          host(socket_address::parse("127.0.0.1:0"))
    {
        host.request_receive_buffer(16u << 20);
    }

    void program(unsigned stream,
                 uint64_t ring_bytes,
                 uint32_t payload,
                 uint32_t mtu,
                 uint32_t notify,
                 uint32_t rate,
                 uint32_t format,
                 uint64_t num_samples)
    {
        auto reg = [stream](uint32_t r) { return regs::rx_reg(stream, r); };
        axi.write32(reg(regs::rx::dest_ipv4), host.local_address().ip());
        axi.write32(reg(regs::rx::dest_udp_port), host.local_address().port());
        axi.write32(reg(regs::rx::dest_qpn), 0x123);
        axi.write32(reg(regs::rx::start_psn), 0xFFFFF0); // wraps during the test
        axi.write32(reg(regs::rx::rkey), 0xABCD);
        axi.write64(reg(regs::rx::va_lo), 0x7f0000000000ull);
        axi.write64(reg(regs::rx::ring_bytes_lo), ring_bytes);
        axi.write32(reg(regs::rx::payload_bytes), payload);
        axi.write32(reg(regs::rx::path_mtu), mtu);
        axi.write32(reg(regs::rx::notify_interval), notify);
        axi.write32(reg(regs::rx::rate_num), rate);
        axi.write32(reg(regs::rx::rate_den), 1);
        axi.write32(reg(regs::rx::format), format);
        axi.write64(reg(regs::rx::num_samples_lo), num_samples);
    }

    std::vector<received_packet> receive(size_t count, std::chrono::milliseconds patience)
    {
        std::vector<received_packet> out;
        const auto deadline = std::chrono::steady_clock::now() + patience;
        std::vector<uint8_t> buf(9000);
        while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
            datagram d;
            d.data = buf.data();
            d.capacity = buf.size();
            if (!host.receive(d, 20ms))
                continue;
            received_packet r;
            r.bytes.assign(buf.begin(), buf.begin() + d.length);
            CPPUNIT_ASSERT(roce::parse(r.bytes.data(), r.bytes.size(), r.pkt) ==
                           roce::parse_status::ok);
            roce::ip_context ip;
            ip.src_ip = d.peer.ip();
            ip.src_port = d.peer.port();
            ip.dst_ip = host.local_address().ip();
            ip.dst_port = host.local_address().port();
            r.expected_icrc = roce::compute_icrc(ip, r.bytes.data(), r.bytes.size() - 4);
            out.push_back(std::move(r));
        }
        return out;
    }

    emu::emulator dev;
    axioe::client axi;
    udp_socket host;
};

} // namespace

class qa_emulator : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_emulator);
    CPPUNIT_TEST(test_identity_and_link);
    CPPUNIT_TEST(test_register_access_errors);
    CPPUNIT_TEST(test_burst_packets_exact);
    CPPUNIT_TEST(test_multi_packet_messages);
    CPPUNIT_TEST(test_start_refused_with_reason);
    CPPUNIT_TEST(test_stop_silences_the_stream);
    CPPUNIT_TEST(test_stop_right_after_start);
    CPPUNIT_TEST(test_continuous_start_in_the_future_waits);
    CPPUNIT_TEST(test_stop_counts_what_the_converter_produced);
    CPPUNIT_TEST(test_pacing_never_early);
    CPPUNIT_TEST(test_targeted_faults_on_the_wire);
    CPPUNIT_TEST(test_random_loss_is_counted_exactly);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_identity_and_link()
    {
        emulator_bench b;
        uint32_t id[3];
        b.axi.read(regs::id_magic, id, 3);
        CPPUNIT_ASSERT_EQUAL(regs::magic_value, id[0]);
        CPPUNIT_ASSERT_EQUAL(regs::map_version, id[1]);
        CPPUNIT_ASSERT(id[2] & regs::cap::emulator);
        CPPUNIT_ASSERT_EQUAL(0x7F000001u,
                             b.axi.read32(regs::link_reg(0, regs::link::ipv4)));
        CPPUNIT_ASSERT_EQUAL(uint32_t(b.dev.link_address().port()),
                             b.axi.read32(regs::link_reg(0, regs::link::roce_port)));
        CPPUNIT_ASSERT(b.axi.read32(regs::link_reg(0, regs::link::mtu)) >= 1500);
        const uint64_t t = b.axi.read64(regs::clock_time_ns_lo);
        CPPUNIT_ASSERT(t > 1700000000ull * 1000000000ull); // after 2023: a wall clock
    }

    void test_register_access_errors()
    {
        emulator_bench b;
        b.axi.write32(regs::scratch, 0xCAFEF00D);
        CPPUNIT_ASSERT_EQUAL(0xCAFEF00Du, b.axi.read32(regs::scratch));
        auto code_of = [](auto&& f) {
            try {
                f();
            } catch (const axioe::error& e) {
                return e.code();
            }
            return axioe::status::okay;
        };
        CPPUNIT_ASSERT(code_of([&] { b.axi.read32(0x0800); }) == axioe::status::decerr);
        CPPUNIT_ASSERT(code_of([&] { b.axi.write32(regs::id_magic, 1); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT(code_of([&] {
                           b.axi.write32(regs::rx_reg(0, regs::rx::packets_sent_lo), 1);
                       }) == axioe::status::slverr);
        CPPUNIT_ASSERT(code_of([&] {
                           b.axi.write32(regs::emu_reg(0, regs::emu::signal), 9);
                       }) == axioe::status::slverr);
        // A burst that runs into a hole fails as a whole and writes nothing.
        // (SCRATCH, ID_NUM_RF_CHANNELS, then the first hole of the identity block.)
        const uint32_t words[3] = { 11, 22, 33 };
        CPPUNIT_ASSERT(code_of([&] { b.axi.write(regs::scratch, words, 3); }) ==
                       axioe::status::decerr);
        CPPUNIT_ASSERT_EQUAL(0xCAFEF00Du, b.axi.read32(regs::scratch));
    }

    void test_burst_packets_exact()
    {
        emulator_bench b;
        const uint32_t payload = 1024, notify = 4, rate = 10000000;
        const uint64_t ring = 8 * payload, samples = 64 * 256 + 100; // short last message
        b.program(0, ring, payload, 1024, notify, rate, regs::format::sc16, samples);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        const uint64_t t0 = b.axi.read64(regs::rx_reg(0, regs::rx::start_time_lo));
        CPPUNIT_ASSERT(t0 > 0);
        const size_t messages = 65;
        auto got = b.receive(messages, 5000ms);
        CPPUNIT_ASSERT_EQUAL(messages, got.size());
        uint64_t sample = 0;
        for (size_t m = 0; m < messages; m++) {
            const roce::packet& p = got[m].pkt;
            const bool last = m + 1 == messages;
            const bool imm = last || (m + 1) % notify == 0;
            CPPUNIT_ASSERT_EQUAL(uint32_t(got[m].expected_icrc), p.icrc);
            CPPUNIT_ASSERT_EQUAL(
                int(roce::opcode::uc |
                    (imm ? roce::opcode::write_only_imm : roce::opcode::write_only)),
                int(p.base.opcode));
            CPPUNIT_ASSERT_EQUAL(uint32_t(0x123), p.base.dest_qp);
            CPPUNIT_ASSERT_EQUAL(uint32_t((0xFFFFF0 + m) & 0xFFFFFF), p.base.psn);
            CPPUNIT_ASSERT_EQUAL(uint16_t(0xFFFF), p.base.pkey);
            CPPUNIT_ASSERT(p.has_reth);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0x7f0000000000ull + (m * payload) % ring),
                                 p.reth_hdr.va);
            CPPUNIT_ASSERT_EQUAL(uint32_t(0xABCD), p.reth_hdr.rkey);
            const size_t bytes = last ? 100 * 4 : payload;
            CPPUNIT_ASSERT_EQUAL(bytes, p.payload_len);
            CPPUNIT_ASSERT_EQUAL(uint32_t(bytes), p.reth_hdr.dma_length);
            CPPUNIT_ASSERT_EQUAL(imm, p.has_imm);
            if (imm)
                CPPUNIT_ASSERT_EQUAL(uint32_t(m), p.imm);
            for (size_t i = 0; i < bytes / 4; i++, sample++) {
                uint8_t expect[4];
                ramp_item(sample_format::sc16, sample, expect);
                CPPUNIT_ASSERT(std::memcmp(expect, p.payload + 4 * i, 4) == 0);
            }
        }
        CPPUNIT_ASSERT_EQUAL(samples, sample);
        // Finite burst: DONE, not running, counters exact.
        uint32_t status = 0;
        for (int i = 0; i < 100 && !(status & regs::status::done); i++) {
            status = b.axi.read32(regs::rx_reg(0, regs::rx::status));
            std::this_thread::sleep_for(5ms);
        }
        CPPUNIT_ASSERT_EQUAL(regs::status::done, status);
        CPPUNIT_ASSERT_EQUAL(uint64_t(messages),
                             b.axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo)));
        CPPUNIT_ASSERT_EQUAL(samples,
                             b.axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(messages / notify + 1),
                             b.axi.read64(regs::rx_reg(0, regs::rx::imm_sent_lo)));
        CPPUNIT_ASSERT(b.receive(1, 50ms).empty());
    }

    void test_multi_packet_messages()
    {
        emulator_bench b;
        // 4 KiB messages over a 1 KiB path MTU: FIRST, MIDDLE, MIDDLE, LAST(_IMM).
        const uint32_t payload = 4096;
        b.program(0, 4 * payload, payload, 1024, 2, 1000000, regs::format::fc32, 4 * 512);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        auto got = b.receive(16, 5000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(16), got.size());
        uint64_t sample = 0;
        for (size_t i = 0; i < 16; i++) {
            const roce::packet& p = got[i].pkt;
            const size_t m = i / 4, j = i % 4;
            const bool imm = (m + 1) % 2 == 0;
            const uint8_t op =
                j == 0   ? roce::opcode::write_first
                : j == 3 ? (imm ? roce::opcode::write_last_imm : roce::opcode::write_last)
                         : roce::opcode::write_middle;
            CPPUNIT_ASSERT_EQUAL(int(roce::opcode::uc | op), int(p.base.opcode));
            CPPUNIT_ASSERT_EQUAL(j == 0, p.has_reth);
            if (j == 0) {
                CPPUNIT_ASSERT_EQUAL(uint64_t(0x7f0000000000ull + m * payload),
                                     p.reth_hdr.va);
                CPPUNIT_ASSERT_EQUAL(payload, p.reth_hdr.dma_length);
            }
            CPPUNIT_ASSERT_EQUAL(size_t(1024), p.payload_len);
            CPPUNIT_ASSERT_EQUAL(uint32_t((0xFFFFF0 + i) & 0xFFFFFF), p.base.psn);
            for (size_t k = 0; k < 128; k++, sample++) {
                uint8_t expect[8];
                ramp_item(sample_format::fc32, sample, expect);
                CPPUNIT_ASSERT(std::memcmp(expect, p.payload + 8 * k, 8) == 0);
            }
        }
    }

    void test_start_refused_with_reason()
    {
        emulator_bench b;
        // Ring not a multiple of the payload.
        b.program(0, 1000, 1024, 1024, 1, 1000000, regs::format::sc16, 0);
        CPPUNIT_ASSERT_THROW(
            b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start),
            axioe::error);
        const uint32_t status = b.axi.read32(regs::rx_reg(0, regs::rx::status));
        CPPUNIT_ASSERT(status & regs::status::error);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_ring,
                             (status & regs::status::error_mask) >>
                                 regs::status::error_shift);
        // Payload not a multiple of the fc32 item.
        b.program(0, 4096, 1020, 1024, 1, 1000000, regs::format::fc32, 0);
        CPPUNIT_ASSERT_THROW(
            b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start),
            axioe::error);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_payload,
                             (b.axi.read32(regs::rx_reg(0, regs::rx::status)) &
                              regs::status::error_mask) >>
                                 regs::status::error_shift);
        CPPUNIT_ASSERT(b.receive(1, 50ms).empty());
    }

    void test_stop_silences_the_stream()
    {
        emulator_bench b;
        b.program(0, 65536, 1024, 1024, 16, 5000000, regs::format::sc16, 0);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        CPPUNIT_ASSERT_EQUAL(size_t(50), b.receive(50, 5000ms).size());
        // Descriptor registers are latched while running.
        CPPUNIT_ASSERT_THROW(b.axi.write32(regs::rx_reg(0, regs::rx::rkey), 1),
                             axioe::error);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(
            0u, b.axi.read32(regs::rx_reg(0, regs::rx::status)) & regs::status::running);
        const uint64_t sent = b.axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo));
        // Drain what was in flight, then nothing more may come.
        b.receive(100000, 100ms);
        CPPUNIT_ASSERT(b.receive(1, 100ms).empty());
        CPPUNIT_ASSERT_EQUAL(sent,
                             b.axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo)));
        // And it can start again.
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        CPPUNIT_ASSERT_EQUAL(size_t(10), b.receive(10, 5000ms).size());
    }

    void test_continuous_start_in_the_future_waits()
    {
        // A continuous stream whose START_TIME lies ahead sends nothing before it, then
        // sample 0 first (it once took "nothing produced yet" for "all of it ready" and
        // sent at full speed, samples from far in the future).
        emulator_bench b;
        b.program(0, 65536, 1024, 1024, 16, 1000000, regs::format::sc16, 0);
        const uint64_t at = b.axi.read64(regs::clock_time_ns_lo) + 300000000;
        b.axi.write64(regs::rx_reg(0, regs::rx::start_time_lo), at);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        CPPUNIT_ASSERT_EQUAL(at, b.axi.read64(regs::rx_reg(0, regs::rx::start_time_lo)));
        std::this_thread::sleep_for(150ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             b.axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo)));
        const auto got = b.receive(5, 2000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(5), got.size());
        uint32_t first;
        std::memcpy(&first, got[0].pkt.payload, 4);
        CPPUNIT_ASSERT_EQUAL(0u, first); // the ramp's sample 0
        CPPUNIT_ASSERT(b.axi.read64(regs::clock_time_ns_lo) >= at);
    }

    void test_stop_counts_what_the_converter_produced()
    {
        // After STOP, RX_SAMPLES_EMITTED is everything the converter produced since
        // sample 0 (sent or dropped), so a host can account for all of it.
        emulator_bench b;
        b.program(0, 65536, 1024, 1024, 16, 1000000, regs::format::sc16, 0);
        const uint64_t before = b.axi.read64(regs::clock_time_ns_lo);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        std::this_thread::sleep_for(200ms);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
        const uint64_t after = b.axi.read64(regs::clock_time_ns_lo);
        const uint64_t t0 = b.axi.read64(regs::rx_reg(0, regs::rx::start_time_lo));
        const uint64_t emitted =
            b.axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo));
        const uint64_t sent = b.axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo));
        const uint64_t dropped =
            b.axi.read64(regs::rx_reg(0, regs::rx::samples_dropped_lo));
        // Produced at 1 MS/s between START and STOP, to the sample's resolution of the
        // two clock reads around them.
        CPPUNIT_ASSERT(t0 >= before);
        CPPUNIT_ASSERT(emitted <= (after - t0) / 1000 + 1);
        CPPUNIT_ASSERT(emitted >= 200000 - 1); // the STOP came 200 ms after t0 or later
        // What did not leave (the message still filling, at least) is dropped.
        CPPUNIT_ASSERT_EQUAL(emitted, sent * 256 + dropped);
        CPPUNIT_ASSERT(dropped > 0);
    }

    void test_stop_right_after_start()
    {
        // A STOP may arrive before the engine's thread has even seen the START: it must
        // still be answered (it once waited forever for the thread to say idle).
        emulator_bench b;
        b.program(0, 65536, 1024, 1024, 16, 1000000, regs::format::sc16, 0);
        for (int i = 0; i < 300; i++) {
            b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
            b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
            CPPUNIT_ASSERT_EQUAL(0u,
                                 b.axi.read32(regs::rx_reg(0, regs::rx::status)) &
                                     regs::status::running);
        }
    }

    void test_pacing_never_early()
    {
        // The device cannot send a sample before it exists: 20000 samples at 100 kS/s
        // cannot all have arrived before 200 ms after sample 0 (a lower bound only:
        // a slow machine may take longer).
        emulator_bench b;
        b.program(0, 4096 * 4, 4096, 4096, 1, 100000, regs::format::sc16, 20000);
        const auto start = std::chrono::steady_clock::now();
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        auto got = b.receive(20, 5000ms);
        const auto elapsed = std::chrono::steady_clock::now() - start;
        CPPUNIT_ASSERT_EQUAL(size_t(20), got.size());
        CPPUNIT_ASSERT(elapsed >= 195ms);
    }

    void test_targeted_faults_on_the_wire()
    {
        emulator_bench b;
        const uint32_t payload = 1024;
        const uint64_t ring = 64 * payload;
        b.program(0, ring, payload, 1024, 1, 2000000, regs::format::sc16, 20 * 256);
        const uint32_t table[] = {
            3,  0, regs::fault::drop,         5,  0, regs::fault::duplicate,
            7,  0, regs::fault::corrupt_icrc, 8,  0, regs::fault::corrupt_payload,
            9,  0, regs::fault::bad_rkey,     10, 0, regs::fault::bad_va,
            12, 0, regs::fault::delay,
        };
        b.axi.write32(regs::emu_reg(0, regs::emu::delay_messages), 3);
        b.axi.write(regs::emu_reg(0, regs::emu::fault_table), table, 21);
        b.axi.write32(regs::emu_reg(0, regs::emu::fault_count), 7);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        // 20 messages, one dropped, one sent twice.
        auto got = b.receive(20, 5000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(20), got.size());
        CPPUNIT_ASSERT(b.receive(1, 50ms).empty());
        std::vector<uint32_t> order;
        for (const auto& r : got) {
            const uint32_t m =
                static_cast<uint32_t>((r.pkt.reth_hdr.va - 0x7f0000000000ull) / payload);
            const uint32_t psn = (r.pkt.base.psn - 0xFFFFF0) & 0xFFFFFF;
            const bool bad_va = r.pkt.reth_hdr.va == 0x7f0000000000ull + ring;
            const uint32_t message = bad_va ? 10 : m;
            order.push_back(message);
            // PSNs are the message's own, lost or not: the PSN of message m is m.
            CPPUNIT_ASSERT_EQUAL(message, psn);
            const bool icrc_ok = r.pkt.icrc == r.expected_icrc;
            CPPUNIT_ASSERT_EQUAL(message != 7 && message != 8, icrc_ok);
            CPPUNIT_ASSERT_EQUAL(message == 9 ? 0xABCDu + 1 : 0xABCDu,
                                 r.pkt.reth_hdr.rkey);
        }
        // Message 12 waits for exactly three later messages.
        const std::vector<uint32_t> expect = { 0,  1,  2,  4,  5,  5,  6,  7,  8,  9,
                                               10, 11, 13, 14, 15, 12, 16, 17, 18, 19 };
        std::string text;
        for (uint32_t m : order)
            text += std::to_string(m) + " ";
        CPPUNIT_ASSERT_MESSAGE(text, order == expect);

        uint32_t status = 0;
        for (int i = 0; i < 100 && !(status & regs::status::done); i++) {
            status = b.axi.read32(regs::rx_reg(0, regs::rx::status));
            std::this_thread::sleep_for(5ms);
        }
        auto reg64 = [&](uint32_t r) { return b.axi.read64(regs::rx_reg(0, r)); };
        CPPUNIT_ASSERT_EQUAL(uint64_t(20 * 256), reg64(regs::rx::samples_emitted_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), reg64(regs::rx::packets_sent_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), reg64(regs::rx::packets_dropped_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), reg64(regs::rx::samples_dropped_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), reg64(regs::rx::packets_faulted_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4 * 256), reg64(regs::rx::samples_faulted_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), reg64(regs::rx::packets_duplicated_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), reg64(regs::rx::messages_delayed_lo));

        // The injection log, read as a FIFO.
        CPPUNIT_ASSERT_EQUAL(7u,
                             b.axi.read32(regs::emu_reg(0, regs::emu::fault_log_level)));
        uint32_t log[3 * 8];
        b.axi.read(regs::emu_reg(0, regs::emu::fault_log), log, 3 * 8, true);
        for (int i = 0; i < 7; i++) {
            CPPUNIT_ASSERT_EQUAL(table[3 * i], log[3 * i]);
            CPPUNIT_ASSERT_EQUAL(0u, log[3 * i + 1]);
            CPPUNIT_ASSERT_EQUAL(table[3 * i + 2], log[3 * i + 2]);
        }
        CPPUNIT_ASSERT_EQUAL(UINT32_MAX, log[21]); // empty
    }

    void test_random_loss_is_counted_exactly()
    {
        emulator_bench b;
        const uint32_t payload = 1024;
        const uint64_t messages = 2000;
        b.program(0,
                  64 * payload,
                  payload,
                  1024,
                  16,
                  20000000,
                  regs::format::sc16,
                  messages * 256);
        b.axi.write32(regs::emu_reg(0, regs::emu::fault_seed), 99);
        b.axi.write32(regs::emu_reg(0, regs::emu::loss_ppm), 20000);
        b.axi.write32(regs::emu_reg(0, regs::emu::loss_burst), 3);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        auto got = b.receive(messages, 5000ms);
        CPPUNIT_ASSERT(b.receive(1, 50ms).empty());
        const uint64_t dropped =
            b.axi.read64(regs::rx_reg(0, regs::rx::packets_dropped_lo));
        CPPUNIT_ASSERT(dropped > 0);
        CPPUNIT_ASSERT_EQUAL(messages - dropped, uint64_t(got.size()));
        CPPUNIT_ASSERT_EQUAL(messages * 256,
                             b.axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo)));
        CPPUNIT_ASSERT_EQUAL(dropped * 256,
                             b.axi.read64(regs::rx_reg(0, regs::rx::samples_dropped_lo)));
        // Every message missing on the wire is in the log as dropped, and only those.
        std::vector<bool> seen(messages, false);
        for (const auto& r : got)
            seen[(r.pkt.base.psn - 0xFFFFF0) & 0xFFFFFF] = true; // one packet per message
        uint64_t logged = 0;
        while (true) {
            uint32_t rec[3];
            b.axi.read(regs::emu_reg(0, regs::emu::fault_log), rec, 3, true);
            if (rec[0] == UINT32_MAX)
                break;
            CPPUNIT_ASSERT_EQUAL(regs::fault::drop, rec[2]);
            CPPUNIT_ASSERT(!seen[rec[0]]);
            logged++;
        }
        CPPUNIT_ASSERT_EQUAL(dropped, logged);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_emulator);
