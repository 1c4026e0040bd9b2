/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's command queue (docs/radio.md, map 1.3) and the RF channel it feeds:
// changes placed at samples, commands due before the queue's thread wakes, then
// through AXIoE the queue's capacity and errors, time order, late and untimed
// commands.

#include "device_clock.h"
#include "qa_radio_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>

using namespace gr::rdma;
using namespace qa_radio_helpers;
using namespace std::chrono_literals;

class qa_radio_commands : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_radio_commands);
    CPPUNIT_TEST(test_channel_places_changes_at_samples);
    CPPUNIT_TEST(test_engines_run_due_commands_before_the_queues_thread);
    CPPUNIT_TEST(test_command_queue_capacity_and_errors);
    CPPUNIT_TEST(test_commands_execute_in_time_order);
    CPPUNIT_TEST(test_late_and_untimed_commands_execute_at_once);
    CPPUNIT_TEST_SUITE_END();

public:
    // ---- The RF channel and the command queue, against a fake oscillator -----------

    void test_channel_places_changes_at_samples()
    {
        // Rate 1e6/3: sample k at t0 + 3000 k ns.
        fake_now = 0;
        const uint64_t t0 = 1000000000;
        emu::device_clock clock(fake_oscillator, t0);
        emu::rf_channel ch(emu::rf_limits{}, clock);
        ch.begin_run(t0, 1000000, 3);
        rf_scene::segment s;
        uint64_t next = 0;
        CPPUNIT_ASSERT(ch.tuning_at(5, s, next));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000000000ull), s.freq_mhz);
        CPPUNIT_ASSERT_EQUAL(UINT64_MAX, next);
        ch.advance(1000); // samples 0..999 computed
        // Timed, ahead of the computed samples: exactly at its sample, reads its time.
        ch.tune(200000000000ull, t0 + 3000 * 1500 - 1);
        CPPUNIT_ASSERT(ch.tuning_at(1499, s, next));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000000000ull), s.freq_mhz);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1500), next);
        CPPUNIT_ASSERT(ch.tuning_at(1500, s, next));
        CPPUNIT_ASSERT_EQUAL(uint64_t(200000000000ull), s.freq_mhz);
        CPPUNIT_ASSERT_EQUAL(t0 + 3000 * 1500 - 1, ch.read().freq_time_ns);
        // Timed, but its sample is computed already: from the first one not computed,
        // and it says so.
        ch.set_gain(10000, t0 + 3000 * 10);
        CPPUNIT_ASSERT_EQUAL(t0 + 3000 * 1000, ch.read().gain_time_ns);
        CPPUNIT_ASSERT(ch.tuning_at(999, s, next));
        CPPUNIT_ASSERT_EQUAL(0, s.gain_mdb);
        CPPUNIT_ASSERT(ch.tuning_at(1000, s, next));
        CPPUNIT_ASSERT_EQUAL(10000, s.gain_mdb);
        // The gain holds beyond the later tuning too: it was written after.
        CPPUNIT_ASSERT(ch.tuning_at(2000, s, next));
        CPPUNIT_ASSERT_EQUAL(10000, s.gain_mdb);
        // An untimed write from the first sample not computed, over what was placed
        // later: the latest write holds.
        ch.tune(300000000000ull, 0);
        CPPUNIT_ASSERT_EQUAL(t0 + 3000 * 1000, ch.read().freq_time_ns);
        CPPUNIT_ASSERT(ch.tuning_at(5000, s, next));
        CPPUNIT_ASSERT_EQUAL(uint64_t(300000000000ull), s.freq_mhz);
        // Computed samples never change.
        CPPUNIT_ASSERT(ch.tuning_at(999, s, next));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000000000ull), s.freq_mhz);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), next);
        // After the run, a change holds from its write (or its time).
        ch.end_run();
        fake_now = 777;
        ch.set_gain(20000, 0);
        CPPUNIT_ASSERT_EQUAL(t0 + 777, ch.read().gain_time_ns);
    }

    void test_engines_run_due_commands_before_the_queues_thread()
    {
        // The queue's thread sleeps until a command's time by the oscillator; an engine
        // about to compute samples at or after that time runs the command first, so
        // the queue's lateness never reaches the samples. Here the fake oscillator
        // jumps past the time without waking the thread: only run_due() executes it.
        fake_now = 0;
        const uint64_t t0 = 1000000000;
        emu::device_clock clock(fake_oscillator, t0);
        emu::rf_channel ch0(emu::rf_limits{}, clock), ch1(emu::rf_limits{}, clock);
        emu::command_queue q(clock, { &ch0, &ch1 }, 2);
        ch0.begin_run(t0, 1000000, 3);
        const uint64_t when = t0 + 5000000000ull + 1500; // 5 s on, between samples
        emu::command_queue::command c;
        c.time_ns = when;
        c.address = regs::rf_reg(0, regs::rf::freq_lo);
        c.data = 150000000000ull;
        CPPUNIT_ASSERT_EQUAL(regs::cmd::error::none, q.push(c));
        fake_now = 6000000000;  // the device time is past it; the thread sleeps on
        q.run_due(0, when - 1); // samples before its time: not yet
        q.run_due(1, when);     // another channel's samples: not its
        CPPUNIT_ASSERT_EQUAL(1u, regs::cmd::queued(q.status()));
        q.run_due(0, when); // samples up to its time
        CPPUNIT_ASSERT_EQUAL(0u, regs::cmd::queued(q.status()));
        CPPUNIT_ASSERT_EQUAL(1u, q.executed());
        CPPUNIT_ASSERT_EQUAL(uint64_t(150000000000ull), ch0.read().freq_mhz);
        CPPUNIT_ASSERT_EQUAL(when, ch0.read().freq_time_ns);
        rf_scene::segment s;
        uint64_t next = 0;
        CPPUNIT_ASSERT(ch0.tuning_at(0, s, next));
        CPPUNIT_ASSERT_EQUAL(first_sample_at(t0, 1000000, 3, when), next);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1666668), next); // 5e9 + 1500 ns over 3000
    }

    // ---- Registers, through AXIoE ------------------------------------------------

    void test_command_queue_capacity_and_errors()
    {
        namespace err = regs::cmd::error;
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        const uint32_t st0 = axi.read32(regs::cmd::status);
        CPPUNIT_ASSERT_EQUAL(64u, regs::cmd::capacity(st0));
        CPPUNIT_ASSERT_EQUAL(0u, regs::cmd::queued(st0));
        const uint64_t later = axi.read64(regs::clock_time_ns_lo) + 60000000000ull;
        auto refused = [&](uint64_t time, uint32_t address, uint64_t data) {
            return status_of([&] { push(axi, time, address, data); }) ==
                   axioe::status::slverr;
        };
        CPPUNIT_ASSERT(refused(later, regs::rx_reg(0, regs::rx::rate_num), 1));
        CPPUNIT_ASSERT_EQUAL(err::not_timeable, cmd_error(axi));
        CPPUNIT_ASSERT(refused(later, regs::rf_reg(0, regs::rf::freq_time_lo), 1));
        CPPUNIT_ASSERT(
            refused(later, regs::rf_reg(1, regs::rf::gain), 1)); // no channel 1
        CPPUNIT_ASSERT(refused(later, regs::scratch, 1));
        CPPUNIT_ASSERT_EQUAL(err::not_timeable, cmd_error(axi));
        CPPUNIT_ASSERT(refused(later, regs::rf_reg(0, regs::rf::antenna), 2));
        CPPUNIT_ASSERT_EQUAL(err::bad_value, cmd_error(axi));
        CPPUNIT_ASSERT(
            refused(later, regs::rx_reg(0, regs::rx::command), regs::command::start));
        CPPUNIT_ASSERT_EQUAL(err::bad_value, cmd_error(axi));
        CPPUNIT_ASSERT_EQUAL(0u, regs::cmd::queued(axi.read32(regs::cmd::status)));
        for (unsigned i = 0; i < 64; i++)
            push(axi, later + i, rf0_gain, 500 * i);
        CPPUNIT_ASSERT_EQUAL(err::none, cmd_error(axi));
        CPPUNIT_ASSERT_EQUAL(64u, regs::cmd::queued(axi.read32(regs::cmd::status)));
        CPPUNIT_ASSERT(refused(later, rf0_gain, 0));
        CPPUNIT_ASSERT_EQUAL(err::full, cmd_error(axi));
        // An untimed command takes no room: it executes at once, full or not.
        push(axi, 0, rf0_gain, 9000);
        CPPUNIT_ASSERT_EQUAL(9000u, axi.read32(rf0_gain));
        CPPUNIT_ASSERT_EQUAL(err::none, cmd_error(axi));
        // Other CMD_PUSH values change nothing.
        CPPUNIT_ASSERT(status_of([&] { axi.write32(regs::cmd::push, 3); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT_EQUAL(64u, regs::cmd::queued(axi.read32(regs::cmd::status)));
        axi.write32(regs::cmd::push, regs::cmd::op::clear);
        CPPUNIT_ASSERT_EQUAL(0u, regs::cmd::queued(axi.read32(regs::cmd::status)));
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::cmd::executed));
        // The staging registers keep what was written; CMD_PUSH reads 0.
        CPPUNIT_ASSERT_EQUAL(rf0_gain, axi.read32(regs::cmd::addr));
        CPPUNIT_ASSERT_EQUAL(uint64_t(9000), axi.read64(regs::cmd::data_lo));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(regs::cmd::push));
    }

    void test_commands_execute_in_time_order()
    {
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        const uint64_t t = axi.read64(regs::clock_time_ns_lo) + 300000000;
        push(axi, t + 200000000, rf0_gain, 3000); // latest, pushed first
        push(axi, t, rf0_gain, 1000);
        push(axi, t, rf0_gain, 2000); // same time, pushed after: executes after
        push(axi, t + 100000000, regs::rf_reg(0, regs::rf::antenna), 1);
        CPPUNIT_ASSERT_EQUAL(4u, regs::cmd::queued(axi.read32(regs::cmd::status)));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(rf0_gain)); // nothing yet
        auto wait_until = [&](uint64_t device_ns) {
            while (axi.read64(regs::clock_time_ns_lo) < device_ns)
                std::this_thread::sleep_for(5ms);
        };
        wait_until(t + 50000000);
        CPPUNIT_ASSERT_EQUAL(2000u, axi.read32(rf0_gain));
        // Without a run, a timed change holds from its time, exactly.
        CPPUNIT_ASSERT_EQUAL(t, axi.read64(regs::rf_reg(0, regs::rf::gain_time_lo)));
        CPPUNIT_ASSERT_EQUAL(2u, axi.read32(regs::cmd::executed));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(regs::rf_reg(0, regs::rf::antenna)));
        wait_until(t + 250000000);
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::rf_reg(0, regs::rf::antenna)));
        CPPUNIT_ASSERT_EQUAL(3000u, axi.read32(rf0_gain));
        CPPUNIT_ASSERT_EQUAL(4u, axi.read32(regs::cmd::executed));
        CPPUNIT_ASSERT_EQUAL(0u, regs::cmd::queued(axi.read32(regs::cmd::status)));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(regs::cmd::late));

        // A clock set moves the instants the queue waits for: a command 10 s ahead is
        // due at once once the clock is set 10 s forward.
        const uint64_t now = axi.read64(regs::clock_time_ns_lo);
        push(axi, now + 10000000000ull, rf0_gain, 4000);
        axi.write64(regs::clock_set::now_lo, now + 10000000000ull);
        std::this_thread::sleep_for(50ms);
        CPPUNIT_ASSERT_EQUAL(4000u, axi.read32(rf0_gain));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(regs::cmd::late));
    }

    void test_late_and_untimed_commands_execute_at_once()
    {
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        const uint64_t now = axi.read64(regs::clock_time_ns_lo);
        push(axi, now - 1000000000, rf0_gain, 5000); // a second late
        CPPUNIT_ASSERT_EQUAL(5000u, axi.read32(rf0_gain));
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::cmd::late));
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::cmd::executed));
        // As an untimed write: it holds from the time it executed, not its stale time.
        CPPUNIT_ASSERT(axi.read64(regs::rf_reg(0, regs::rf::gain_time_lo)) >= now);
        push(axi, 0, rf0_freq, 200000000000ull);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200000000000ull), axi.read64(rf0_freq));
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::cmd::late));
        CPPUNIT_ASSERT_EQUAL(2u, axi.read32(regs::cmd::executed));
        // A STOP that finds no run does nothing, and counts.
        push(axi, 0, regs::rx_reg(0, regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(3u, axi.read32(regs::cmd::executed));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_radio_commands);
