/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator as a radio (docs/radio.md, map 1.3): its RF channels (identity, reset,
// clipping, rounding, read-back, ownership) and scene, and what reaches the samples: a
// timed retune at its exact sample, an untimed one at a sample's time, a timed STOP,
// two channels alike. The clock is qa_radio_clock's, the command queue
// qa_radio_commands'.

#include "qa_radio_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>

using namespace gr::rdma;
using namespace qa_radio_helpers;
using namespace std::chrono_literals;

class qa_radio : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_radio);
    CPPUNIT_TEST(test_rf_identity_and_reset);
    CPPUNIT_TEST(test_rf_writes_clip_and_round);
    CPPUNIT_TEST(test_rf_and_commands_belong_to_the_streams_owner);
    CPPUNIT_TEST(test_scene_registers);
    CPPUNIT_TEST(test_timed_retune_lands_on_its_sample);
    CPPUNIT_TEST(test_untimed_retune_time_is_a_sample_time);
    CPPUNIT_TEST(test_timed_stop_ends_the_run_at_its_sample);
    CPPUNIT_TEST(test_two_channels_tuned_alike_are_equal);
    CPPUNIT_TEST_SUITE_END();

public:
    // ---- Registers, through AXIoE ------------------------------------------------

    void test_rf_identity_and_reset()
    {
        emu::emulator dev(streams(3));
        axioe::client axi(dev.control_address());
        CPPUNIT_ASSERT_EQUAL(3u, axi.read32(regs::id_num_rf_channels));
        const uint32_t caps = axi.read32(regs::id_capabilities);
        CPPUNIT_ASSERT(caps & regs::cap::rf);
        CPPUNIT_ASSERT(caps & regs::cap::time_set);
        CPPUNIT_ASSERT(caps & regs::cap::command_queue);
        CPPUNIT_ASSERT(caps & regs::cap::burst_queue);
        const emu::rf_limits l;
        for (unsigned c = 0; c < 3; c++) {
            auto reg = [c](uint32_t r) { return regs::rf_reg(c, r); };
            CPPUNIT_ASSERT_EQUAL(l.freq_reset_mhz, axi.read64(reg(regs::rf::freq_lo)));
            CPPUNIT_ASSERT_EQUAL(uint64_t(70000000000ull),
                                 axi.read64(reg(regs::rf::freq_min_lo)));
            CPPUNIT_ASSERT_EQUAL(uint64_t(6000000000000ull),
                                 axi.read64(reg(regs::rf::freq_max_lo)));
            CPPUNIT_ASSERT_EQUAL(1000u, axi.read32(reg(regs::rf::freq_step)));
            CPPUNIT_ASSERT_EQUAL(76000u, axi.read32(reg(regs::rf::gain_max)));
            CPPUNIT_ASSERT_EQUAL(500u, axi.read32(reg(regs::rf::gain_step)));
            CPPUNIT_ASSERT_EQUAL(56000000u, axi.read32(reg(regs::rf::bandwidth)));
            CPPUNIT_ASSERT_EQUAL(200000u, axi.read32(reg(regs::rf::bandwidth_min)));
            CPPUNIT_ASSERT_EQUAL(2u, axi.read32(reg(regs::rf::antennas)));
            CPPUNIT_ASSERT_EQUAL(regs::rf::status_bits::lo_locked,
                                 axi.read32(reg(regs::rf::status)));
        }
        CPPUNIT_ASSERT(status_of([&] { axi.read32(regs::rf_reg(3, 0)); }) ==
                       axioe::status::decerr);
        // Configurable: another device's ranges.
        emu::emulator_config c = streams(1);
        c.rf.freq_min_mhz = 1000000000;
        c.rf.antennas = 4;
        emu::emulator other(c);
        axioe::client b(other.control_address());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000000000),
                             b.read64(regs::rf_reg(0, regs::rf::freq_min_lo)));
        CPPUNIT_ASSERT_EQUAL(4u, b.read32(regs::rf_reg(0, regs::rf::antennas)));
        c.rf.gain_step_mdb = 0;
        CPPUNIT_ASSERT_THROW(emu::emulator bad(c), std::invalid_argument);
    }

    void test_rf_writes_clip_and_round()
    {
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        const uint32_t time_reg = regs::rf_reg(0, regs::rf::freq_time_lo);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), axi.read64(time_reg));
        auto tune = [&](uint64_t mhz) {
            axi.write64(rf0_freq, mhz);
            return axi.read64(rf0_freq);
        };
        CPPUNIT_ASSERT_EQUAL(uint64_t(123456789000), tune(123456789499)); // rounds down
        CPPUNIT_ASSERT_EQUAL(uint64_t(123456790000), tune(123456789500)); // halves up
        CPPUNIT_ASSERT_EQUAL(uint64_t(70000000000), tune(1));             // clipped
        CPPUNIT_ASSERT_EQUAL(uint64_t(6000000000000), tune(UINT64_MAX));
        // Without a run the change holds from the write's time.
        const uint64_t now = axi.read64(regs::clock_time_ns_lo);
        const uint64_t since = axi.read64(time_reg);
        CPPUNIT_ASSERT(since <= now && now - since < 50000000);
        auto gain = [&](int32_t mdb) {
            axi.write32(rf0_gain, static_cast<uint32_t>(mdb));
            return static_cast<int32_t>(axi.read32(rf0_gain));
        };
        CPPUNIT_ASSERT_EQUAL(1500, gain(1250)); // halves up, to a step above the minimum
        CPPUNIT_ASSERT_EQUAL(1000, gain(1249));
        CPPUNIT_ASSERT_EQUAL(0, gain(-5000));
        CPPUNIT_ASSERT_EQUAL(76000, gain(80000));
        CPPUNIT_ASSERT(axi.read64(regs::rf_reg(0, regs::rf::gain_time_lo)) >= since);
        const uint32_t bw = regs::rf_reg(0, regs::rf::bandwidth);
        axi.write32(bw, 1);
        CPPUNIT_ASSERT_EQUAL(200000u, axi.read32(bw));
        axi.write32(bw, 20000000);
        CPPUNIT_ASSERT_EQUAL(20000000u, axi.read32(bw));
        axi.write32(bw, 0xFFFFFFFF);
        CPPUNIT_ASSERT_EQUAL(56000000u, axi.read32(bw));
        const uint32_t ant = regs::rf_reg(0, regs::rf::antenna);
        axi.write32(ant, 1);
        CPPUNIT_ASSERT(status_of([&] { axi.write32(ant, 2); }) == axioe::status::slverr);
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(ant));
        // The ranges are read-only.
        CPPUNIT_ASSERT(status_of([&] {
                           axi.write32(regs::rf_reg(0, regs::rf::gain_min), 0);
                       }) == axioe::status::slverr);
    }

    void test_rf_and_commands_belong_to_the_streams_owner()
    {
        emu::emulator dev(streams(2));
        axioe::client owner(dev.control_address()), stranger(dev.control_address());
        const uint32_t token[2] = { 0x1234, 0x5678 };
        owner.write(regs::rx_reg(1, regs::rx::owner_token_lo), token, 2);
        const uint32_t rf1_gain = regs::rf_reg(1, regs::rf::gain);
        // Channel 1 is the owner's to write; reads are free; channel 0 is nobody's.
        CPPUNIT_ASSERT(status_of([&] { stranger.write32(rf1_gain, 3000); }) ==
                       axioe::status::not_owner);
        CPPUNIT_ASSERT(status_of([&] {
                           stranger.write64(regs::rf_reg(1, regs::rf::freq_lo),
                                            200000000000ull);
                       }) == axioe::status::not_owner);
        CPPUNIT_ASSERT_EQUAL(0u, stranger.read32(rf1_gain));
        owner.write32(rf1_gain, 3000);
        CPPUNIT_ASSERT_EQUAL(3000u, stranger.read32(rf1_gain));
        stranger.write32(rf0_gain, 2000);
        // A push for the owner's channel or stream: NOT_OWNER, error 4, nothing staged.
        const uint64_t later = stranger.read64(regs::clock_time_ns_lo) + 60000000000ull;
        CPPUNIT_ASSERT(status_of([&] { push(stranger, later, rf1_gain, 0); }) ==
                       axioe::status::not_owner);
        CPPUNIT_ASSERT_EQUAL(regs::cmd::error::not_owner, cmd_error(stranger));
        CPPUNIT_ASSERT_EQUAL(0u, stranger.read32(regs::cmd::addr)); // the burst did not
        CPPUNIT_ASSERT(status_of([&] {
                           push(stranger,
                                later,
                                regs::rx_reg(1, regs::rx::command),
                                regs::command::stop);
                       }) == axioe::status::not_owner);
        // Its own: queued, for the owner too.
        push(owner, later, rf1_gain, 6000);
        push(stranger, later, rf0_gain, 6000);
        CPPUNIT_ASSERT_EQUAL(regs::cmd::error::none, cmd_error(stranger));
        CPPUNIT_ASSERT_EQUAL(2u, regs::cmd::queued(owner.read32(regs::cmd::status)));
        // CLEAR from the stranger leaves the owner's command.
        stranger.write32(regs::cmd::push, regs::cmd::op::clear);
        CPPUNIT_ASSERT_EQUAL(1u, regs::cmd::queued(owner.read32(regs::cmd::status)));
        owner.write32(regs::cmd::push, regs::cmd::op::clear);
        CPPUNIT_ASSERT_EQUAL(0u, regs::cmd::queued(owner.read32(regs::cmd::status)));
        // The device-wide settings follow the metadata block's rule.
        CPPUNIT_ASSERT(status_of([&] { stranger.write64(regs::clock_set::now_lo, 1); }) ==
                       axioe::status::not_owner);
        CPPUNIT_ASSERT(status_of([&] { stranger.write32(regs::scene::tones, 2); }) ==
                       axioe::status::not_owner);
        owner.write32(regs::scene::tones, 2);
        CPPUNIT_ASSERT_EQUAL(2u, stranger.read32(regs::scene::tones));
    }

    void test_scene_registers()
    {
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::scene::tones));
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(100250000000ull),
            axi.read64(regs::scene_tone_reg(0, regs::scene::tone_freq_lo)));
        CPPUNIT_ASSERT_EQUAL(
            0x3E800000u,
            axi.read32(regs::scene_tone_reg(0, regs::scene::tone_amplitude)));
        CPPUNIT_ASSERT(status_of([&] { axi.write32(regs::scene::tones, 9); }) ==
                       axioe::status::slverr);
        axi.write32(regs::scene::tones, 8);
        for (float bad : { -1.0f, NAN, INFINITY }) {
            uint32_t bits;
            std::memcpy(&bits, &bad, 4);
            CPPUNIT_ASSERT(status_of([&] { axi.write32(regs::scene::noise, bits); }) ==
                           axioe::status::slverr);
            CPPUNIT_ASSERT(status_of([&] {
                               axi.write32(
                                   regs::scene_tone_reg(7, regs::scene::tone_amplitude),
                                   bits);
                           }) == axioe::status::slverr);
        }
        axi.write64(regs::scene_tone_reg(7, regs::scene::tone_freq_lo), 123);
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(123),
            axi.read64(regs::scene_tone_reg(7, regs::scene::tone_freq_lo)));
        // EMU_SIGNAL 7 is the scene; 8 is nothing.
        axi.write32(regs::emu_reg(0, regs::emu::signal), regs::signal_scene);
        CPPUNIT_ASSERT(status_of([&] {
                           axi.write32(regs::emu_reg(0, regs::emu::signal), 8);
                       }) == axioe::status::slverr);
    }

    // ---- What reaches the samples --------------------------------------------------

    void test_timed_retune_lands_on_its_sample()
    {
        // 1e6/3 S/s: a sample every 3 us, none at a whole-ns multiple of 1.5 us. Tuned to
        // 100 MHz, the scene's tone at 100.25 MHz is at +250 kHz; a timed retune to
        // 100.1 MHz moves it to +150 kHz from the first sample at or after its time,
        // which falls between two samples.
        const uint32_t num = 1000000, den = 3;
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        host.request_receive_buffer(8u << 20);
        const uint64_t t0 = axi.read64(regs::clock_time_ns_lo) + 200000000;
        program_udp(axi, 0, host.local_address(), num, den, 4000, t0);
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        const uint64_t when = t0 + 1234 * 3000 + 1500; // between samples 1234 and 1235
        push(axi, when, rf0_freq, 100100000000ull);
        const auto x = receive(host, 4000, 2000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(4000), x.size());
        const uint64_t k = first_sample_at(t0, num, den, when);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1235), k);
        // The step from sample j to j + 1 follows the tuning sample j was taken with.
        for (size_t j = 0; j + 1 < x.size(); j++) {
            const double want = (j < k ? 250e3 : 150e3) * den / num;
            CPPUNIT_ASSERT_MESSAGE(std::to_string(j),
                                   cycle_distance(step_cycles(x, j), want) < 1e-4);
        }
        // It reads back exactly the command's time.
        CPPUNIT_ASSERT_EQUAL(uint64_t(100100000000ull), axi.read64(rf0_freq));
        CPPUNIT_ASSERT_EQUAL(when, axi.read64(regs::rf_reg(0, regs::rf::freq_time_lo)));
        wait_done(axi, 0);
        CPPUNIT_ASSERT_EQUAL(regs::status::done,
                             axi.read32(regs::rx_reg(0, regs::rx::status)));
    }

    void test_untimed_retune_time_is_a_sample_time()
    {
        // 3e6/7 S/s: samples 7/3 us apart, mostly between whole ns. An untimed retune
        // while the run goes on takes effect from a sample, whose time it reads back
        // (rounded down to the ns), and the samples change exactly there.
        const uint32_t num = 3000000, den = 7;
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        host.request_receive_buffer(16u << 20);
        const uint64_t t0 = axi.read64(regs::clock_time_ns_lo) + 100000000;
        const uint64_t total = 128 * 400; // 0.12 s
        program_udp(axi, 0, host.local_address(), num, den, total, t0);
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        while (axi.read64(regs::clock_time_ns_lo) < t0 + 40000000)
            std::this_thread::sleep_for(2ms);
        axi.write64(rf0_freq, 100050000000ull); // +200 kHz
        const uint64_t since = axi.read64(regs::rf_reg(0, regs::rf::freq_time_lo));
        const auto x = receive(host, total, 3000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(total), x.size());
        const uint64_t k = first_sample_at(t0, num, den, since);
        CPPUNIT_ASSERT(k > 0 && k < total);
        CPPUNIT_ASSERT_EQUAL(sample_time(t0, num, den, k), since);
        for (size_t j = 0; j + 1 < x.size(); j++) {
            const double want = (j < k ? 250e3 : 200e3) * den / num;
            CPPUNIT_ASSERT_MESSAGE(std::to_string(j) + " of " + std::to_string(k),
                                   cycle_distance(step_cycles(x, j), want) < 1e-4);
        }
    }

    void test_timed_stop_ends_the_run_at_its_sample()
    {
        const uint32_t num = 1000000, den = 3;
        emu::emulator dev(streams(1));
        axioe::client axi(dev.control_address());
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        host.request_receive_buffer(8u << 20);
        const uint64_t t0 = axi.read64(regs::clock_time_ns_lo) + 150000000;
        program_udp(axi, 0, host.local_address(), num, den, 0, t0); // continuous
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        const uint64_t when = t0 + 777 * 3000 + 1; // just after sample 777
        const uint64_t k = first_sample_at(t0, num, den, when);
        CPPUNIT_ASSERT_EQUAL(uint64_t(778), k);
        push(axi, when, regs::rx_reg(0, regs::rx::command), regs::command::stop);
        const auto x = receive(host, k, 2000ms);
        wait_done(axi, 0);
        CPPUNIT_ASSERT_EQUAL(size_t(k), x.size());
        CPPUNIT_ASSERT_EQUAL(regs::status::done,
                             axi.read32(regs::rx_reg(0, regs::rx::status)));
        CPPUNIT_ASSERT_EQUAL(k,
                             axi.read64(regs::rx_reg(0, regs::rx::samples_emitted_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             axi.read64(regs::rx_reg(0, regs::rx::samples_dropped_lo)));
        // Nothing after it.
        std::vector<uint8_t> buf(9000);
        datagram d;
        d.data = buf.data();
        d.capacity = buf.size();
        CPPUNIT_ASSERT(!host.receive(d, 50ms));
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::cmd::executed));
    }

    void test_two_channels_tuned_alike_are_equal()
    {
        // Two tones and noise, two streams started at one time with one tuning: the
        // same samples, bit for bit. A third tuned elsewhere differs.
        emu::emulator dev(streams(3));
        axioe::client axi(dev.control_address());
        axi.write32(regs::scene::tones, 2);
        axi.write64(regs::scene_tone_reg(1, regs::scene::tone_freq_lo), 99900000000ull);
        const float amplitude = 0.1f, noise = 0.02f;
        uint32_t bits;
        std::memcpy(&bits, &amplitude, 4);
        axi.write32(regs::scene_tone_reg(1, regs::scene::tone_amplitude), bits);
        std::memcpy(&bits, &noise, 4);
        axi.write32(regs::scene::noise, bits);
        for (unsigned c = 0; c < 3; c++)
            axi.write32(regs::rf_reg(c, regs::rf::gain), 6000);
        axi.write64(regs::rf_reg(2, regs::rf::freq_lo), 100001000000ull);
        std::vector<udp_socket> hosts;
        for (unsigned c = 0; c < 3; c++) {
            hosts.emplace_back(socket_address::parse("127.0.0.1:0"));
            hosts.back().request_receive_buffer(8u << 20);
        }
        const uint64_t t0 = axi.read64(regs::clock_time_ns_lo) + 200000000;
        for (unsigned c = 0; c < 3; c++) {
            program_udp(axi, c, hosts[c].local_address(), 2000000, 1, 128 * 50, t0);
            axi.write32(regs::rx_reg(c, regs::rx::command), regs::command::start);
        }
        const auto a = receive(hosts[0], 128 * 50, 2000ms);
        const auto b = receive(hosts[1], 128 * 50, 2000ms);
        const auto other = receive(hosts[2], 128 * 50, 2000ms);
        CPPUNIT_ASSERT_EQUAL(size_t(128 * 50), a.size());
        CPPUNIT_ASSERT(a == b);
        CPPUNIT_ASSERT(a != other);
        // Scaled by the gain: the tone of 0.25 at 6 dB, plus the others, stays near 0.7.
        double peak = 0;
        for (const cf& v : a)
            peak = std::max(peak, std::abs(v));
        CPPUNIT_ASSERT(peak > 0.5 && peak < 1.0);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_radio);
