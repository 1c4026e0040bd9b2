/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The metadata monitor turning records into clock, losses and reports: it configures
// the device's channel, takes only the records of its own run from the device's port,
// and lets a device substitute zeros only where it may (RC), while a UC overflow makes
// a gap of what looks landed.

#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include "../stream/metadata_monitor.h"
#include "../stream/stream_clock.h"
#include "qa_metadata_helpers.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace qa_metadata_helpers;
using namespace std::chrono_literals;

class qa_metadata_monitor : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_monitor);
    CPPUNIT_TEST(test_monitor_configures_the_device);
    CPPUNIT_TEST(test_monitor_uses_records_of_its_run);
    CPPUNIT_TEST(test_only_the_devices_port_and_no_uc_substitution);
    CPPUNIT_TEST(test_uc_overflow_makes_a_gap_of_what_looks_landed);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_monitor_configures_the_device()
    {
        emu::emulator dev(emu::emulator_config{});
        axioe::client axi(dev.control_address());
        metadata_monitor m(intake(dev.link_address().ip()), 0);
        m.configure(axi, 25000);
        uint32_t w[4];
        axi.read(regs::metadata_reg(0), w, 4);
        CPPUNIT_ASSERT_EQUAL(0x7F000001u, w[0]);
        CPPUNIT_ASSERT_EQUAL(uint32_t(m.local_address().port()), w[1]);
        CPPUNIT_ASSERT_EQUAL(25000u, w[2]);
        CPPUNIT_ASSERT_EQUAL(regs::metadata::control_bits::enable, w[3]);
    }

    void test_monitor_uses_records_of_its_run()
    {
        std::vector<uint8_t> ring(2 * 64 * 4);
        loss_tracker tracker({ ring.data(), 64, 8, 0 }, sample_format::sc16);
        // RC: the only transport on which a device substitutes zeros.
        metadata_monitor m(intake(0x7F000001), 1, true);
        fake_device dev;
        const rational rate{ 1000000, 1 }; // 1 MS/s: sample k at t0 + 1000 k ns
        const int64_t now = host_time_ns();
        const uint64_t t0 = static_cast<uint64_t>(now) - 1000000000; // a second ago
        m.start(rate, t0, 20000000, { 0, 5000000 }, now); // AXIoE said: within 5 ms
        stream_clock clock(rate, t0, 0, 5000000, 20000000);
        const auto to = m.local_address();
        auto at = [t0](uint64_t k) { return t0 + 1000 * k; };
        dev.send(to, make(meta::record_type::stream_start, 0, t0, 0, 0, 1));
        dev.send(to,
                 make(meta::record_type::stream_start, 0, t0 + 1, 0, 0, 1)); // mismatch
        dev.send(
            to,
            make(meta::record_type::stream_start, 0, t0 + 1, 0, 0, 0)); // other stream
        dev.send(to,
                 make(meta::record_type::timestamp,
                      900000,
                      at(900000) + 7000,
                      0,
                      0,
                      1)); // off the timeline
        dev.send(to,
                 make(meta::record_type::timestamp,
                      5000000,
                      at(5000000),
                      0,
                      0,
                      1)); // from the future
        dev.send(to,
                 make(meta::record_type::event,
                      1000,
                      at(1000),
                      meta::event_code::fault_injected,
                      5,
                      1));
        dev.send(to, make(meta::record_type::event, 2000, at(2000), 77, 9, 1));
        dev.send(to,
                 make(meta::record_type::event,
                      3000,
                      at(3000),
                      meta::event_code::device_overflow,
                      64,
                      1));
        dev.send(to,
                 make(meta::record_type::event,
                      4000,
                      at(4000),
                      meta::event_code::zero_substituted,
                      100,
                      1));
        std::this_thread::sleep_for(30ms);
        const stream_clock before = clock;
        const int64_t first_poll = host_time_ns();
        CPPUNIT_ASSERT(!m.poll(first_poll, tracker, clock)); // nothing refined the clock
        CPPUNIT_ASSERT_EQUAL(before.offset_ns(), clock.offset_ns());
        // A timestamp 400 us old when sent bounds the offset from below (> -1 ms).
        const uint64_t k = (static_cast<uint64_t>(host_time_ns()) - 400000 - t0) / 1000;
        dev.send(to, make(meta::record_type::timestamp, k, at(k), 0, 0, 1));
        std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT(
            !m.poll(first_poll + 500000, tracker, clock)); // within 1 ms: no look
        CPPUNIT_ASSERT(m.poll(first_poll + 1000000, tracker, clock));
        const clock_estimate e = m.estimate();
        CPPUNIT_ASSERT(e.offset_ns - int64_t(e.error_ns) >
                       -1000000); // tighter than AXIoE's
        CPPUNIT_ASSERT(e.offset_ns + int64_t(e.error_ns) >= 5000000); // upper end kept
        CPPUNIT_ASSERT_EQUAL(e.offset_ns, clock.offset_ns());

        std::map<std::string, uint64_t> c;
        m.read_counters(c, tracker);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), c.at("metadata.packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("metadata.t0_mismatch"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.at("metadata.rejected"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("metadata.timestamps"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), c.at("metadata.events"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), c.at("metadata.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL(static_cast<uint64_t>(e.offset_ns),
                             c.at("metadata.clock_offset_ns"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(to.port()), c.at("metadata.port"));

        // Device events become reports; zero substitution went to the tracker instead.
        std::vector<rx_event> ev;
        rx_event x;
        while (m.poll_event(x))
            ev.push_back(x);
        CPPUNIT_ASSERT_EQUAL(size_t(3), ev.size());
        CPPUNIT_ASSERT(ev[0].type == rx_event::kind::device);
        CPPUNIT_ASSERT(ev[0].cause == rx_event::reason::fault_injected);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), ev[0].device_item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), ev[0].value);
        CPPUNIT_ASSERT(ev[1].cause == rx_event::reason::device_other);
        CPPUNIT_ASSERT_EQUAL(77u, ev[1].code);
        CPPUNIT_ASSERT(ev[2].cause == rx_event::reason::device_overflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), ev[2].count);
        CPPUNIT_ASSERT_EQUAL(std::string("device"), std::string(to_string(ev[2].type)));
    }

    void test_only_the_devices_port_and_no_uc_substitution()
    {
        std::vector<uint8_t> ring(2 * 64 * 4);
        loss_tracker tracker({ ring.data(), 64, 8, 0 }, sample_format::sc16);
        metadata_monitor m(intake(0x7F000001), 0, false);
        const rational rate{ 1000000, 1 };
        const int64_t now = host_time_ns();
        const uint64_t t0 = static_cast<uint64_t>(now) - 1000000000;
        m.start(rate, t0, 20000000, { 0, 5000000 }, now);
        fake_device dev, other;
        const auto to = m.local_address();
        auto at = [t0](uint64_t k) { return t0 + 1000 * k; };
        // A UC device never sends zeros in place of samples: such a record is a
        // forgery (or a device bug) and must zero nothing.
        dev.send(to,
                 make(meta::record_type::event,
                      4000,
                      at(4000),
                      meta::event_code::zero_substituted,
                      100));
        std::this_thread::sleep_for(20ms);
        stream_clock clock(rate, t0, 0, 5000000, 20000000);
        m.poll(host_time_ns(), tracker, clock);
        std::map<std::string, uint64_t> c;
        m.read_counters(c, tracker);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("metadata.zero_substituted_ignored"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("metadata.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("metadata.events"));

        // Records are believed from the device's port only (MD_SOURCE_UDP_PORT).
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        rx.expect_port(dev.socket.local_address().port());
        other.send(rx.local_address(), make(meta::record_type::timestamp, 1, 1));
        dev.send(rx.local_address(), make(meta::record_type::timestamp, 2, 2));
        const auto got = take(rx, 1);
        std::this_thread::sleep_for(10ms);
        rx.poll();
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), got[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().bad);
    }

    void test_uc_overflow_makes_a_gap_of_what_looks_landed()
    {
        // UC: the device says it never sent samples 8..15 (message 1: its FIFO
        // overflowed), yet their slot holds something other than the mark (a late
        // lap of a stalled path landed there). Handed out, they are zeros and a gap.
        std::vector<uint8_t> ring(2 * 64 * 4);
        loss_tracker tracker({ ring.data(), 64, 8, 0 }, sample_format::sc16);
        tracker.reset();
        for (size_t i = 0; i < 16; i++) // messages 0 and 1 look landed
            ramp_item(sample_format::sc16, i, ring.data() + 4 * i);
        metadata_monitor m(intake(0x7F000001), 0, false);
        const rational rate{ 1000000, 1 };
        const int64_t now = host_time_ns();
        const uint64_t t0 = static_cast<uint64_t>(now) - 1000000000;
        m.start(rate, t0, 20000000, { 0, 5000000 }, now);
        fake_device dev;
        dev.send(m.local_address(),
                 make(meta::record_type::event,
                      8,
                      t0 + 8000,
                      meta::event_code::device_overflow,
                      8));
        std::this_thread::sleep_for(20ms);
        stream_clock clock(rate, t0, 0, 5000000, 20000000);
        m.poll(host_time_ns(), tracker, clock);
        tracker.on_progress(16, 16);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), tracker.deliverable(0, 16));
        tracker.commit(0, 16);
        std::vector<rx_event> gaps;
        rx_event e;
        while (tracker.poll_event(e))
            if (e.type == rx_event::kind::gap)
                gaps.push_back(e);
        CPPUNIT_ASSERT_EQUAL(size_t(1), gaps.size());
        CPPUNIT_ASSERT(gaps[0].cause == rx_event::reason::device_overflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), gaps[0].item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), gaps[0].count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), tracker.counts().lost_gap);
        for (size_t i = 8; i < 16; i++) {
            uint32_t w;
            std::memcpy(&w, ring.data() + 4 * i, 4);
            CPPUNIT_ASSERT_EQUAL(0u, w);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_monitor);
