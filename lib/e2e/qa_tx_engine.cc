/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's TX engine end to end against the soft NIC on loopback
// (docs/transmit.md): a small host (qa_tx_host.h, standing in for tx_stream) registers a
// ring and a control page with remote READ only, fills the ramp, publishes `committed`
// and follows the device's notifications; the emulator is programmed over AXIoE. The
// device's counters must add up to the sample.

#include "../emu/ack_receiver.h"
#include "../emu/emulator.h"
#include "../emu/tx_engine.h"
#include "../emu/tx_requester.h"
#include "../emu/udp_wire.h"
#include "qa_tx_host.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

using namespace gr::rdma::qa;

namespace {

// The manual oscillator of test_burst_starts_at_start_time.
std::atomic<int64_t> manual_ns{ 1000000000 };
int64_t manual_oscillator() { return manual_ns.load(); }

} // namespace

class qa_tx_engine : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_engine);
    CPPUNIT_TEST(test_ramp_bit_exact_over_ten_wraps);
    CPPUNIT_TEST(test_fc32_burst);
    CPPUNIT_TEST(test_sc8_burst);
    CPPUNIT_TEST(test_host_stops_committing);
    CPPUNIT_TEST(test_loss_reread_and_lead_adapted);
    CPPUNIT_TEST(test_reads_never_answered_end_in_error);
    CPPUNIT_TEST(test_start_refusals);
    CPPUNIT_TEST(test_burst_starts_at_start_time);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_ramp_bit_exact_over_ten_wraps()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        CPPUNIT_ASSERT(axi.read32(regs::id_capabilities) & regs::cap::tx);
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::id_num_tx_streams));
        tx_run_setup s;
        s.samples = 641 * 256 - 100; // 641 messages, the last short: > 10 wraps of 64
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(s.samples);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        // START + lead: the time of sample 0 reads back.
        CPPUNIT_ASSERT(axi.read64(tx(regs::tx::start_time_lo)) > 0);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::done; }));
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), s.samples, c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.late_zero_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(s.samples, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(s.samples, c.samples_fetched);
        CPPUNIT_ASSERT(c.reads >= 641);
        // Map 1.4: a finite run is one burst, played to its end, never idle.
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.bursts_done);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.idle_ticks);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.dropped_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.time_errors);
        CPPUNIT_ASSERT_EQUAL(s.samples, dev.tx(0).ticks());
        // The identity, to the sample.
        CPPUNIT_ASSERT_EQUAL(host.committed(),
                             c.samples_played + c.late_zero_samples +
                                 c.samples_not_played);
        // Notifications: 16, 32, .., 640, then the burst's last message, 641.
        CPPUNIT_ASSERT(wait_for([&] { return host.immediates().size() == 41; }));
        const std::vector<uint32_t> imms = host.immediates();
        for (size_t i = 0; i < 40; i++)
            CPPUNIT_ASSERT_EQUAL(uint32_t(16 * (i + 1)), imms[i]);
        CPPUNIT_ASSERT_EQUAL(641u, imms[40]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(41), c.notifies_sent);
        // Nothing ever wrote the TX ring or the control page: READ only.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), host.nic.read_counters().at("rx_bytes"));
        CPPUNIT_ASSERT(c.lead_ns >= s.min_lead_ns);
        host.stop();
    }

    // A burst in \p format over ten rings, two READ RESPONSE packets per message: every
    // sample played and equal to the ramp.
    void check_burst(sample_format format)
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_run_setup s;
        s.format = format;
        s.payload = 2048;
        s.slots = 32;
        s.notify = 4;
        const uint64_t items = s.payload / item_size(format);
        s.samples = 32 * items * 10 + 7;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(s.samples);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::done; }));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(tx(regs::tx::status)) & regs::status::error);
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), s.samples, c.samples_played);
        CPPUNIT_ASSERT_EQUAL(s.samples, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_not_played);
    }

    void test_fc32_burst() { check_burst(sample_format::fc32); }

    // TX_FORMAT 2 (as RX_FORMAT): 2-byte items, the ramp's item k mod 2^16.
    void test_sc8_burst() { check_burst(sample_format::sc8); }

    void test_host_stops_committing()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_run_setup s; // continuous
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(100 * 256);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        // The host stops: the converter underflows, and plays nothing stale.
        CPPUNIT_ASSERT(
            wait_for([&] { return read_counters(axi).underflow_samples > 5000; }));
        regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(100 * 256), c.samples_played);
        // It resumes: the stream goes on with exactly the sample that was due.
        host.limit(300 * 256 + 10); // the last message stays partial: not played
        CPPUNIT_ASSERT(wait_for([&] {
            const regs::tx_counters n = read_counters(axi);
            return n.samples_played == 300 * 256 &&
                   n.underflow_samples > c.underflow_samples;
        }));
        host.stop();
        axi.write32(tx(regs::tx::command), regs::command::stop);
        c = read_counters(axi);
        CPPUNIT_ASSERT(!(axi.read32(tx(regs::tx::status)) & regs::status::running));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(c.samples_played, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.late_zero_samples);
        // The identity at STOP, and every converter tick accounted for.
        CPPUNIT_ASSERT_EQUAL(uint64_t(300 * 256 + 10), host.committed());
        CPPUNIT_ASSERT_EQUAL(host.committed(),
                             c.samples_played + c.late_zero_samples +
                                 c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(dev.tx(0).ticks(),
                             c.samples_played + c.late_zero_samples +
                                 c.underflow_samples);
        // A continuous run: one open burst, never idle, never ended.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.idle_ticks);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.bursts_done);
    }

    void test_loss_reread_and_lead_adapted()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_run_setup s;
        s.samples = 500 * 256;
        s.loss_ppm = 10000;   // 1 % of the READ RESPONSEs
        s.min_lead_ns = 1000; // the lead follows the round trips
        s.max_lead_ns = 20000000;
        s.read_depth = 8;
        s.notify = 4;
        // Far enough ahead that the first round trips set the lead before sample 0.
        s.start_time_ns = axi.read64(regs::clock_time_ns_lo) + 50000000;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(s.samples);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::done; }));
        host.stop();
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_MESSAGE(describe(c), c.rereads > 0);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(
            s.samples, c.samples_played + c.late_zero_samples + c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_not_played);
        // The lead is the round trips' (reported): 2 · p99 + a message's time.
        CPPUNIT_ASSERT(c.rtt_ns > 0);
        const uint64_t message_ns = 256ull * 1000000000 / s.rate;
        const uint64_t expect =
            std::min<uint64_t>(2ull * c.rtt_ns + message_ns, s.max_lead_ns);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), expect, uint64_t(c.lead_ns));
    }

    void test_reads_never_answered_end_in_error()
    {
        // Every READ RESPONSE lost (as when a READ the host did not expect moved its
        // queue pair's expected PSN, and the device's own READs are dropped as stale,
        // without a NAK): the device re-reads, then gives up after its retry limit and
        // reports ERROR. Before, it re-read and played underflow zeros to the end, and
        // nobody was told (issue 31: 129.7 M zeros, the run ended only at --timeout).
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_run_setup s;
        s.samples = 0; // continuous
        s.loss_ppm = 1000000;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        program(axi, host, s);
        host.start();
        const auto began = std::chrono::steady_clock::now();
        axi.write32(tx(regs::tx::command), regs::command::start);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::error; },
            std::chrono::seconds(20)));
        // Not before its limit: 7 go-backs over 2 s without a response.
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - began >=
                       std::chrono::nanoseconds(emu::tx_requester::give_up_ns));
        const regs::tx_counters c = read_counters(axi);
        // Its first READ, the control page's, was never answered: no sample was
        // fetched, nor re-read (the requester re-sends the control READ itself).
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.reads);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.rereads);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0),
                             (axi.read32(tx(regs::tx::status)) & regs::status::error_mask) >>
                                 regs::status::error_shift);
        axi.write32(tx(regs::tx::command), regs::command::stop);
        CPPUNIT_ASSERT(axi.read32(tx(regs::tx::status)) & regs::status::error); // stays
        host.stop();
    }

    void test_start_refusals()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_run_setup s;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        auto refused = [&](uint32_t code) {
            bool slverr = false;
            try {
                axi.write32(tx(regs::tx::command), regs::command::start);
            } catch (const axioe::error& e) {
                slverr = e.code() == axioe::status::slverr;
            }
            CPPUNIT_ASSERT(slverr);
            const uint32_t st = axi.read32(tx(regs::tx::status));
            CPPUNIT_ASSERT(st & regs::status::error);
            CPPUNIT_ASSERT_EQUAL(code, error_of(st));
        };
        // A start time in the past: error 10, nothing requested.
        s.start_time_ns = axi.read64(regs::clock_time_ns_lo) - 1000000000ull;
        program(axi, host, s);
        refused(regs::error_code::start_time_passed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), read_counters(axi).reads);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), host.nic.read_counters().at("reads"));
        s.start_time_ns = 0;
        program(axi, host, s);
        axi.write64(tx(regs::tx::ctrl_va_lo), 0);
        refused(regs::error_code::bad_control_page);
        axi.write64(tx(regs::tx::ctrl_va_lo), host.page_va() + 4);
        refused(regs::error_code::bad_control_page);
        program(axi, host, s);
        axi.write32(tx(regs::tx::max_rd_atomic), 0);
        refused(regs::error_code::bad_read_depth);
        axi.write32(tx(regs::tx::max_rd_atomic), 17);
        refused(regs::error_code::bad_read_depth);
        program(axi, host, s);
        axi.write64(tx(regs::tx::ring_bytes_lo), 1000);
        refused(regs::error_code::bad_ring);
        // N = 0 is not a notify interval; the write itself is refused.
        bool slverr = false;
        try {
            axi.write32(tx(regs::tx::notify_interval), 0);
        } catch (const axioe::error& e) {
            slverr = e.code() == axioe::status::slverr;
        }
        CPPUNIT_ASSERT(slverr);
        // Running: a second START is busy, and the descriptor is latched.
        program(axi, host, s);
        host.limit(1u << 30);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        refused(regs::error_code::busy);
        CPPUNIT_ASSERT(axi.read32(tx(regs::tx::status)) & regs::status::running);
        slverr = false;
        try {
            axi.write32(tx(regs::tx::rkey), 1);
        } catch (const axioe::error& e) {
            slverr = e.code() == axioe::status::slverr;
        }
        CPPUNIT_ASSERT(slverr);
        axi.write32(tx(regs::tx::command), regs::command::stop);
        host.stop();
    }

    void test_burst_starts_at_start_time()
    {
        // The engine on a manual oscillator: sample 0 plays at TX_START_TIME exactly,
        // sample k at TX_START_TIME + k / rate.
        const uint64_t device_start = 5000000000000ull;
        emu::device_clock clock(manual_oscillator, device_start);
        emu::udp_wire link(socket_address::parse("127.0.0.1:0"));
        emu::ack_receiver acks(link, 1, 1);
        emu::tx_engine engine(0, link, acks, &clock);
        tx_host host(link.local_address(), 1024, 16, sample_format::sc16);
        host.limit(10 * 256);
        host.start();

        emu::tx_descriptor d;
        d.host = host.nic.roce_address();
        d.host_qpn = host.qp->qpn();
        d.start_psn = tx_psn;
        d.rkey = host.ring_mr->rkey();
        d.va = host.ring_va();
        d.ring_bytes = 16 * 1024;
        d.rate_num = 1000000;
        d.ctrl_rkey = host.page_mr->rkey();
        d.ctrl_va = host.page_va();
        d.max_rd_atomic = 4;
        d.run = tx_host::run;
        d.min_lead_ns = 2000000;
        d.num_samples = 10 * 256;
        d.emulation.check = 1;
        const uint64_t t0 = device_start + 10000000; // 10 ms after the clock's start
        d.start_time_ns = t0;
        const int64_t mono_t0 = clock.oscillator_at(t0);
        manual_ns = mono_t0 - 1000000; // 1 ms before: within the lead, nothing plays
        CPPUNIT_ASSERT_EQUAL(regs::error_code::none, engine.start(d));
        CPPUNIT_ASSERT_EQUAL(t0, engine.start_time_ns());
        CPPUNIT_ASSERT(
            wait_for([&] { return engine.counters().samples_fetched >= 256; }));
        manual_ns = mono_t0; // sample 0 is due now, not yet played
        std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), engine.ticks());
        manual_ns = mono_t0 + 1; // ... and played 1 ns later
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() > 0; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), engine.ticks());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), engine.counters().samples_played);
        manual_ns = mono_t0 + 100000; // sample 100 due, 0..99 played
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() > 1; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), engine.ticks());
        manual_ns = mono_t0 + 100001;
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() > 100; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(101), engine.ticks());
        const regs::tx_counters c = engine.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(101), c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        engine.stop();
        host.stop();
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_engine);
