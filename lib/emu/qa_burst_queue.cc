/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RX_FIRST_MESSAGE and the burst queue (docs/radio.md) seen from the wire: where each
// message lands, what its immediate says, which samples it carries, its PSN; and what
// the burst queue refuses.

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t va0 = 0x7f0000000000ull;
constexpr uint32_t payload = 1024; // 256 sc16 samples
constexpr uint64_t spm = payload / 4;
constexpr uint64_t ring_slots = 16;
constexpr uint32_t rate = 10000000;
constexpr uint32_t start_psn = 0xFFFFF0; // wraps during the tests

struct message {
    roce::packet pkt;
    std::vector<uint8_t> bytes;
};

class bench
{
public:
    bench()
        : dev(emu::emulator_config{}),
          axi(dev.control_address()),
          host(socket_address::parse("127.0.0.1:0"))
    {
        host.request_receive_buffer(16u << 20);
    }

    void program(uint32_t notify, uint64_t num_samples, uint64_t first_message)
    {
        auto reg = [](uint32_t r) { return regs::rx_reg(0, r); };
        axi.write32(reg(regs::rx::dest_ipv4), host.local_address().ip());
        axi.write32(reg(regs::rx::dest_udp_port), host.local_address().port());
        axi.write32(reg(regs::rx::dest_qpn), 0x123);
        axi.write32(reg(regs::rx::start_psn), start_psn);
        axi.write32(reg(regs::rx::rkey), 0xABCD);
        axi.write64(reg(regs::rx::va_lo), va0);
        axi.write64(reg(regs::rx::ring_bytes_lo), ring_slots * payload);
        axi.write32(reg(regs::rx::payload_bytes), payload);
        axi.write32(reg(regs::rx::notify_interval), notify);
        const uint32_t r[2] = { rate, 1 };
        axi.write(reg(regs::rx::rate_num), r, 2);
        axi.write32(reg(regs::rx::format), regs::format::sc16);
        axi.write64(reg(regs::rx::num_samples_lo), num_samples);
        axi.write64(reg(regs::rx::first_message_lo), first_message);
    }

    void start()
    {
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
    }

    // RX_SAMPLES_EMITTED once it reaches \p expected, or after 10 s: the engine counts
    // a batch after it left, and a host that received it may ask first (on a busy
    // machine, long before the engine's thread runs again).
    uint64_t emitted(uint64_t expected)
    {
        const auto give_up = std::chrono::steady_clock::now() + 10s;
        uint64_t n = axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo));
        while (n < expected && std::chrono::steady_clock::now() < give_up) {
            std::this_thread::sleep_for(1ms);
            n = axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo));
        }
        return n;
    }

    // One 7-word burst, BQ_TIME .. BQ_PUSH, as the spec asks.
    void
    push(uint64_t time, uint64_t samples, uint64_t first, axioe::client* as = nullptr)
    {
        const uint32_t w[7] = { regs::low_word(time),    regs::high_word(time),
                                regs::low_word(samples), regs::high_word(samples),
                                regs::low_word(first),   regs::high_word(first),
                                regs::bq::op::push };
        (as ? *as : axi).write(regs::bq_reg(0, regs::bq::time_lo), w, 7);
    }

    uint32_t bq_status() { return axi.read32(regs::bq_reg(0, regs::bq::status)); }

    std::vector<message> receive(size_t count, std::chrono::milliseconds patience)
    {
        std::vector<message> out;
        const auto deadline = std::chrono::steady_clock::now() + patience;
        std::vector<uint8_t> buf(9000);
        while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
            datagram d;
            d.data = buf.data();
            d.capacity = buf.size();
            if (!host.receive(d, 20ms))
                continue;
            message m;
            m.bytes.assign(buf.begin(), buf.begin() + d.length);
            CPPUNIT_ASSERT(roce::parse(m.bytes.data(), m.bytes.size(), m.pkt) ==
                           roce::parse_status::ok);
            out.push_back(std::move(m));
        }
        return out;
    }

    emu::emulator dev;
    axioe::client axi;
    udp_socket host;
};

template <typename F>
axioe::status status_of(F&& f)
{
    try {
        f();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

/*!
 * Check the messages of one burst (or run): \p samples samples from message \p first
 * on, the k-th packet overall at PSN start_psn + psn_base + k; notifications where
 * (n + 1) mod notify == 0 for message number n counted from \p origin, and the last.
 * The ramp is of the item index: message n carries items n * spm + i.
 */
void check_burst(const std::vector<message>& got,
                 size_t at,
                 uint64_t first,
                 uint64_t samples,
                 uint32_t notify,
                 uint64_t origin,
                 uint32_t psn_base)
{
    const uint64_t messages = (samples + spm - 1) / spm;
    CPPUNIT_ASSERT(got.size() >= at + messages);
    for (uint64_t m = 0; m < messages; m++) {
        const roce::packet& p = got[at + m].pkt;
        const uint64_t n = first + m;
        const bool last = m + 1 == messages;
        const bool imm = last || (n - origin + 1) % notify == 0;
        const std::string where = "message " + std::to_string(n);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            where, uint32_t((start_psn + psn_base + m) & 0xFFFFFF), p.base.psn);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            where, va0 + (n % ring_slots) * payload, uint64_t(p.reth_hdr.va));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(where, imm, p.has_imm);
        if (imm)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(where, uint32_t(n), p.imm);
        const uint64_t items = last ? samples - m * spm : spm;
        CPPUNIT_ASSERT_EQUAL_MESSAGE(where, size_t(items * 4), p.payload_len);
        for (uint64_t i = 0; i < items; i++) {
            uint8_t expect[4];
            ramp_item(sample_format::sc16, n * spm + i, expect);
            CPPUNIT_ASSERT_MESSAGE(where, std::memcmp(expect, p.payload + 4 * i, 4) == 0);
        }
    }
}

} // namespace

class qa_burst_queue : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_burst_queue);
    CPPUNIT_TEST(test_first_message_numbers_the_run);
    CPPUNIT_TEST(test_first_message_zero_is_as_before);
    CPPUNIT_TEST(test_queued_bursts_land_where_pushed);
    CPPUNIT_TEST(test_burst_queue_refusals);
    CPPUNIT_TEST(test_burst_queue_belongs_to_the_owner);
    CPPUNIT_TEST(test_timed_stop_ends_a_queued_run);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_first_message_numbers_the_run()
    {
        bench b;
        const uint64_t first = 37, samples = 5 * spm + 10;
        b.program(4, samples, first);
        const uint64_t t0 = b.axi.read64(regs::clock_time_ns_lo) + 100000000;
        b.axi.write64(regs::rx_reg(0, regs::rx::start_time_lo), t0);
        CPPUNIT_ASSERT_EQUAL(first,
                             b.axi.read64(regs::rx_reg(0, regs::rx::first_message_lo)));
        b.start();
        // Latched: not while the run lasts.
        CPPUNIT_ASSERT(status_of([&] {
                           b.axi.write64(regs::rx_reg(0, regs::rx::first_message_lo), 0);
                       }) == axioe::status::slverr);
        const auto got = b.receive(6, 3000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(6), got.size());
        check_burst(got, 0, first, samples, 4, 0, 0);
        // Notifications at n = 39 (39 + 1 = 40) and the last (42): not at m = 3.
        CPPUNIT_ASSERT(got[2].pkt.has_imm && !got[3].pkt.has_imm);
        CPPUNIT_ASSERT_EQUAL(samples, b.emitted(samples));
    }

    void test_first_message_zero_is_as_before()
    {
        bench b;
        const uint64_t samples = 3 * spm;
        b.program(2, samples, 0);
        b.start();
        const auto got = b.receive(3, 3000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(3), got.size());
        check_burst(got, 0, 0, samples, 2, 0, 0);
    }

    void test_queued_bursts_land_where_pushed()
    {
        bench b;
        b.program(2, regs::bq::queued_mode, 0);
        b.start();
        CPPUNIT_ASSERT(b.axi.read32(regs::rx_reg(0, regs::rx::status)) &
                       regs::status::running);
        // Nothing by itself.
        CPPUNIT_ASSERT(b.receive(1, 50ms).empty());
        const uint64_t now = b.axi.read64(regs::clock_time_ns_lo);
        const uint64_t t1 = now + 100000000, t3 = t1 + 50000000;
        // A timed burst at message 3 (5 messages, the last short), a seamless one right
        // after it at message 20, one timed later at the next message (22).
        const uint64_t n1 = 4 * spm + 7, n2 = 2 * spm, n3 = spm + 1;
        b.push(t1, n1, 3);
        b.push(0, n2, 20);
        b.push(t3, n3, regs::bq::next_message);
        CPPUNIT_ASSERT_EQUAL(3u, regs::bq::queued(b.bq_status()));
        CPPUNIT_ASSERT_EQUAL(regs::bq::emulator_capacity,
                             regs::bq::capacity(b.bq_status()));
        CPPUNIT_ASSERT_EQUAL(regs::bq::error::none, regs::bq::last_error(b.bq_status()));
        const auto got = b.receive(5 + 2 + 2, 3000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(9), got.size());
        // Notifications count from each burst's first message; PSNs go on.
        check_burst(got, 0, 3, n1, 2, 3, 0);
        check_burst(got, 5, 20, n2, 2, 20, 5);
        check_burst(got, 7, 22, n3, 2, 22, 7);
        // Idle and RUNNING, never DONE, until STOP; every burst counted.
        std::this_thread::sleep_for(20ms);
        const uint32_t status = b.axi.read32(regs::rx_reg(0, regs::rx::status));
        CPPUNIT_ASSERT_EQUAL(regs::status::running, status);
        CPPUNIT_ASSERT_EQUAL(n1 + n2 + n3, b.emitted(n1 + n2 + n3));
        CPPUNIT_ASSERT_EQUAL(0u, regs::bq::queued(b.bq_status()));
        // More may follow while it runs.
        b.push(0, spm, regs::bq::next_message);
        const auto more = b.receive(1, 2000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(1), more.size());
        check_burst(more, 0, 24, spm, 2, 24, 9);
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(regs::rx_reg(0, regs::rx::status)));
        CPPUNIT_ASSERT_EQUAL(n1 + n2 + n3 + spm,
                             b.axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo)));
    }

    void test_burst_queue_refusals()
    {
        namespace err = regs::bq::error;
        bench b;
        auto refused = [&b](uint64_t time, uint64_t samples, uint64_t first) {
            return status_of([&] { b.push(time, samples, first); }) ==
                   axioe::status::slverr;
        };
        // Reset: nothing queued, the capacity, no error; the staging registers.
        CPPUNIT_ASSERT_EQUAL(regs::bq::emulator_capacity << 8, b.bq_status());
        CPPUNIT_ASSERT_EQUAL(regs::bq::next_message,
                             b.axi.read64(regs::bq_reg(0, regs::bq::first_message_lo)));
        // Not running in queued mode.
        CPPUNIT_ASSERT(refused(0, spm, 0));
        CPPUNIT_ASSERT_EQUAL(err::not_running, regs::bq::last_error(b.bq_status()));
        b.program(1, 1000000, 0); // a finite burst is not queued mode either
        b.start();
        CPPUNIT_ASSERT(refused(0, spm, 0));
        CPPUNIT_ASSERT_EQUAL(err::not_running, regs::bq::last_error(b.bq_status()));
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
        b.receive(SIZE_MAX, 100ms); // what that run sent

        b.program(1, regs::bq::queued_mode, 10);
        b.start();
        const uint64_t t = b.axi.read64(regs::clock_time_ns_lo) + 10000000000ull; // 10 s
        CPPUNIT_ASSERT(refused(t, 0, 10));
        CPPUNIT_ASSERT_EQUAL(err::no_samples, regs::bq::last_error(b.bq_status()));
        // The first burst of the run starts at RX_FIRST_MESSAGE or later.
        CPPUNIT_ASSERT(refused(t, spm, 9));
        CPPUNIT_ASSERT_EQUAL(err::message_behind, regs::bq::last_error(b.bq_status()));
        b.push(t, 2 * spm, regs::bq::next_message); // messages 10, 11
        CPPUNIT_ASSERT_EQUAL(err::none, regs::bq::last_error(b.bq_status()));
        CPPUNIT_ASSERT(refused(0, spm, 11));
        CPPUNIT_ASSERT_EQUAL(err::message_behind, regs::bq::last_error(b.bq_status()));
        // Its end: the sample after its last, 512 samples at 10 MS/s = 51.2 us later.
        CPPUNIT_ASSERT(refused(t + 51199, spm, 12));
        CPPUNIT_ASSERT_EQUAL(err::time_behind, regs::bq::last_error(b.bq_status()));
        b.push(t + 51200, spm, 12);
        for (unsigned i = 2; i < regs::bq::emulator_capacity; i++)
            b.push(0, spm, regs::bq::next_message);
        CPPUNIT_ASSERT_EQUAL(regs::bq::emulator_capacity,
                             regs::bq::queued(b.bq_status()));
        CPPUNIT_ASSERT(refused(0, spm, regs::bq::next_message));
        CPPUNIT_ASSERT_EQUAL(err::full, regs::bq::last_error(b.bq_status()));
        // Another op than PUSH or CLEAR.
        CPPUNIT_ASSERT(status_of([&] {
                           b.axi.write32(regs::bq_reg(0, regs::bq::push), 3);
                       }) == axioe::status::slverr);
        // CLEAR drops what is queued and leaves ERROR.
        b.axi.write32(regs::bq_reg(0, regs::bq::push), regs::bq::op::clear);
        CPPUNIT_ASSERT_EQUAL(0u, regs::bq::queued(b.bq_status()));
        CPPUNIT_ASSERT_EQUAL(err::full, regs::bq::last_error(b.bq_status()));
        // BQ_STATUS is read-only.
        CPPUNIT_ASSERT(status_of([&] {
                           b.axi.write32(regs::bq_reg(0, regs::bq::status), 0);
                       }) == axioe::status::slverr);
        // Nothing was sent: every burst was in the future, and then cleared.
        CPPUNIT_ASSERT(b.receive(1, 50ms).empty());
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             b.axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo)));
        // A stopped run takes no pushes.
        CPPUNIT_ASSERT(refused(0, spm, regs::bq::next_message));
        CPPUNIT_ASSERT_EQUAL(err::not_running, regs::bq::last_error(b.bq_status()));
    }

    void test_burst_queue_belongs_to_the_owner()
    {
        bench b;
        axioe::client other(b.dev.control_address());
        const uint32_t token[2] = { 0x1234, 0x5678 };
        b.axi.write(regs::rx_reg(0, regs::rx::owner_token_lo), token, 2);
        b.program(1, regs::bq::queued_mode, 0);
        b.start();
        const uint64_t t = b.axi.read64(regs::clock_time_ns_lo) + 10000000000ull;
        CPPUNIT_ASSERT(status_of([&] { b.push(t, spm, 0, &other); }) ==
                       axioe::status::not_owner);
        CPPUNIT_ASSERT_EQUAL(0u, regs::bq::queued(b.bq_status()));
        CPPUNIT_ASSERT_EQUAL(regs::bq::error::not_owner,
                             regs::bq::last_error(b.bq_status()));
        // Its staging words were not written either; a CLEAR is refused too.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             b.axi.read64(regs::bq_reg(0, regs::bq::time_lo)));
        b.push(t, spm, 0);
        CPPUNIT_ASSERT(status_of([&] {
                           other.write32(regs::bq_reg(0, regs::bq::push),
                                         regs::bq::op::clear);
                       }) == axioe::status::not_owner);
        CPPUNIT_ASSERT_EQUAL(1u, regs::bq::queued(b.bq_status()));
        // Reads are free.
        CPPUNIT_ASSERT_EQUAL(
            1u, regs::bq::queued(other.read32(regs::bq_reg(0, regs::bq::status))));
    }

    void test_timed_stop_ends_a_queued_run()
    {
        bench b;
        b.program(1, regs::bq::queued_mode, 0);
        b.start();
        const uint64_t t = b.axi.read64(regs::clock_time_ns_lo) + 100000000;
        // Two bursts of 2 messages; the STOP falls at sample 300 of the first.
        b.push(t, 2 * spm, 0);
        b.push(t + 10000000, 2 * spm, regs::bq::next_message);
        const uint64_t stop = t + 300 * 100; // 100 ns per sample
        const uint32_t w[6] = { regs::low_word(stop),
                                regs::high_word(stop),
                                regs::rx_reg(0, regs::rx::command),
                                regs::command::stop,
                                0,
                                regs::cmd::op::push };
        b.axi.write(regs::cmd::time_lo, w, 6);
        const auto got = b.receive(4, 1000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(2), got.size());
        CPPUNIT_ASSERT_EQUAL(size_t(4 * (300 - spm)), got[1].pkt.payload_len);
        CPPUNIT_ASSERT(got[1].pkt.has_imm); // the last of its burst
        uint32_t status = regs::status::running;
        for (int i = 0; i < 100 && (status & regs::status::running); i++) {
            std::this_thread::sleep_for(5ms);
            status = b.axi.read32(regs::rx_reg(0, regs::rx::status));
        }
        CPPUNIT_ASSERT_EQUAL(0u, status); // not running, and never DONE
        CPPUNIT_ASSERT_EQUAL(uint64_t(300),
                             b.axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_burst_queue);
