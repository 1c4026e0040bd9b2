/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's clock (docs/radio.md, map 1.3): set now and at a PPS edge, its
// sources and status, first against a fake oscillator, then through its registers;
// and the rates a master clock lets the device make.

#include "device_clock.h"
#include "qa_radio_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>

using namespace gr::rdma;
using namespace qa_radio_helpers;
using namespace std::chrono_literals;

class qa_radio_clock : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_radio_clock);
    CPPUNIT_TEST(test_clock_sets_now_and_maps_the_oscillator);
    CPPUNIT_TEST(test_clock_set_at_pps_jumps_at_the_edge);
    CPPUNIT_TEST(test_clock_sources_and_status);
    CPPUNIT_TEST(test_clock_registers);
    CPPUNIT_TEST(test_master_clock_rates);
    CPPUNIT_TEST_SUITE_END();

public:
    // ---- The clock, against a fake oscillator --------------------------------------

    void test_clock_sets_now_and_maps_the_oscillator()
    {
        fake_now = 10300000000; // 10.3 s
        emu::device_clock clock(fake_oscillator, 1000000000000000000ull);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000000000000000000ull), clock.now());
        fake_now += 5000;
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000000000000005000ull), clock.now());
        CPPUNIT_ASSERT_EQUAL(fake_now + 7, clock.oscillator_at(clock.now() + 7));
        clock.set_now(42000000000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(42000000000), clock.now());
        fake_now += 1;
        CPPUNIT_ASSERT_EQUAL(uint64_t(42000000001), clock.now());
        CPPUNIT_ASSERT_EQUAL(fake_now, clock.oscillator_at(42000000001));
        // A clock nobody sets keeps the host's wall clock.
        const emu::device_clock wall;
        CPPUNIT_ASSERT(std::llabs(int64_t(wall.now() - emu::realtime_ns())) < 50000000);
    }

    void test_clock_set_at_pps_jumps_at_the_edge()
    {
        fake_now = 10300000000;
        emu::device_clock clock(fake_oscillator, 5000000000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), clock.last_pps()); // no edge since reset
        CPPUNIT_ASSERT(!clock.pps_armed());
        fake_now = 10900000000;
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), clock.last_pps());
        clock.set_at_next_pps(100000000000);
        clock.set_at_next_pps(200000000000); // replaces the value
        CPPUNIT_ASSERT(clock.pps_armed());
        CPPUNIT_ASSERT_EQUAL(int64_t(11000000000), clock.next_pps_edge());
        fake_now = 10999999999; // just before the edge: the old time base
        CPPUNIT_ASSERT_EQUAL(uint64_t(5699999999), clock.now());
        CPPUNIT_ASSERT(clock.status() & regs::clock_set::status_bits::pps_armed);
        fake_now = 11250000000; // a quarter second after it, read late: as of the edge
        CPPUNIT_ASSERT_EQUAL(uint64_t(200250000000), clock.now());
        CPPUNIT_ASSERT(!clock.pps_armed());
        CPPUNIT_ASSERT_EQUAL(uint64_t(200000000000), clock.last_pps());
        CPPUNIT_ASSERT(!(clock.status() & regs::clock_set::status_bits::pps_armed));
        fake_now = 13500000000; // edges at 12 and 13 s went by unread
        CPPUNIT_ASSERT_EQUAL(uint64_t(202000000000), clock.last_pps());
        // A set now between edges: the next edge reads the new base.
        clock.set_now(7000000000);
        fake_now = 14000000000;
        CPPUNIT_ASSERT_EQUAL(uint64_t(7500000000), clock.last_pps());
    }

    void test_clock_sources_and_status()
    {
        namespace bits = regs::clock_set::status_bits;
        fake_now = 1000000000;
        emu::device_clock clock(fake_oscillator, 1);
        CPPUNIT_ASSERT_EQUAL(bits::ref_locked | bits::pps_present, clock.status());
        CPPUNIT_ASSERT(!clock.set_clock_source(regs::clock_set::source::gpsdo));
        CPPUNIT_ASSERT(!clock.set_clock_source(77));
        CPPUNIT_ASSERT_EQUAL(0u, clock.clock_source());
        CPPUNIT_ASSERT(clock.set_clock_source(regs::clock_set::source::external));
        CPPUNIT_ASSERT_EQUAL(0u, clock.status() & bits::ref_locked);
        fake_now += emu::device_clock::ref_lock_ns - 1;
        CPPUNIT_ASSERT_EQUAL(0u, clock.status() & bits::ref_locked);
        fake_now += 1;
        CPPUNIT_ASSERT(clock.status() & bits::ref_locked);
        CPPUNIT_ASSERT(!clock.set_time_source(regs::clock_set::source::gpsdo));
        CPPUNIT_ASSERT(clock.set_time_source(regs::clock_set::source::external));
        CPPUNIT_ASSERT_EQUAL(1u, clock.time_source());
        CPPUNIT_ASSERT(clock.status() & bits::pps_present);
    }

    // ---- Registers, through AXIoE ------------------------------------------------

    void test_clock_registers()
    {
        namespace cs = regs::clock_set;
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        CPPUNIT_ASSERT_EQUAL(0x3u, axi.read32(cs::clock_sources));
        CPPUNIT_ASSERT_EQUAL(0x3u, axi.read32(cs::time_sources));
        // Now: the time read after is the time set plus what went by.
        axi.write64(cs::now_lo, 1000000000000000000ull);
        const uint64_t t = axi.read64(regs::clock_time_ns_lo);
        CPPUNIT_ASSERT(t >= 1000000000000000000ull && t < 1000000000050000000ull);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), axi.read64(cs::now_lo)); // wo: reads 0
        // At the next PPS edge (a whole second of the oscillator).
        axi.write64(cs::pps_lo, 2000000000000000000ull);
        CPPUNIT_ASSERT(axi.read32(cs::status) & cs::status_bits::pps_armed);
        const int64_t edge = dev.clock().next_pps_edge();
        std::this_thread::sleep_for(std::chrono::nanoseconds(edge - emu::monotonic_ns()));
        std::this_thread::sleep_for(20ms);
        const uint32_t st = axi.read32(cs::status);
        CPPUNIT_ASSERT_EQUAL(0u, st & cs::status_bits::pps_armed);
        CPPUNIT_ASSERT(st & cs::status_bits::pps_present);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000000000000000000ull),
                             axi.read64(cs::last_pps_lo));
        const uint64_t after = axi.read64(regs::clock_time_ns_lo);
        CPPUNIT_ASSERT(after > 2000000000000000000ull &&
                       after < 2000000000000000000ull + 500000000);
        // Sources: GPSDO is not there; external locks after 100 ms.
        CPPUNIT_ASSERT(status_of([&] { axi.write32(cs::clock_source, 2); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT(status_of([&] { axi.write32(cs::time_source, 2); }) ==
                       axioe::status::slverr);
        axi.write32(cs::clock_source, 1);
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(cs::clock_source));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(cs::status) & cs::status_bits::ref_locked);
        std::this_thread::sleep_for(120ms);
        CPPUNIT_ASSERT(axi.read32(cs::status) & cs::status_bits::ref_locked);
        axi.write32(cs::time_source, 1);
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(cs::time_source));
    }

    void test_master_clock_rates()
    {
        emu::emulator_config c = streams(1);
        c.master_clock_hz = 30720000;
        emu::emulator dev(c);
        axioe::client axi(dev.control_address());
        const uint32_t num_reg = regs::rx_reg(0, regs::rx::rate_num);
        auto request = [&](uint32_t num, uint32_t den) {
            const uint32_t w[2] = { num, den };
            axi.write(num_reg, w, 2);
            uint32_t r[2];
            axi.read(num_reg, r, 2);
            return std::make_pair(r[0], r[1]);
        };
        using rate = std::pair<uint32_t, uint32_t>;
        CPPUNIT_ASSERT(rate(30720000, 31) == request(1000000, 1));  // 30.72 -> 31
        CPPUNIT_ASSERT(rate(30720000, 2) == request(20000000, 1));  // 1.536 -> 2
        CPPUNIT_ASSERT(rate(30720000, 3) == request(30720000, 3));  // exact
        CPPUNIT_ASSERT(rate(30720000, 1) == request(100000000, 1)); // at least 1
        CPPUNIT_ASSERT(rate(30720000, 3) == request(61440000, 5));  // 2.5: halves up
        CPPUNIT_ASSERT(rate(0, 1) == request(0, 1));                // left for START
        // Written otherwise than NUM then DEN, START makes it a rate the device makes.
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        program_udp(axi, 0, host.local_address(), 7000000, 1, 1000, 0);
        axi.write32(regs::rx_reg(0, regs::rx::rate_den), 1);
        axi.write32(num_reg, 7000000); // NUM last: 7e6 / 1 asked, 30.72 / 7 = 4.39 -> 4
        CPPUNIT_ASSERT_EQUAL(7000000u, axi.read32(num_reg));
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        uint32_t r[2];
        axi.read(num_reg, r, 2);
        CPPUNIT_ASSERT_EQUAL(30720000u, r[0]);
        CPPUNIT_ASSERT_EQUAL(4u, r[1]);
        // Without a master clock every rational rate stays as written.
        emu::emulator exact(streams(1));
        axioe::client e(exact.control_address());
        const uint32_t w[2] = { 1000003, 7 };
        e.write(num_reg, w, 2);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000003) | uint64_t(7) << 32, e.read64(num_reg));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_radio_clock);
