/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator as a radio (docs/radio.md, map 1.3): its clock (set now, at a PPS edge,
// sources), its RF channels (clipping, rounding, read-back, ownership), its command
// queue (order, capacity, errors, late commands), and what reaches the samples: a timed
// retune at its exact sample, an untimed one at a sample's time, a timed STOP, two
// channels alike, the master clock's rates. Samples are caught as plain UDP sample
// datagrams (RX_TRANSPORT 2): an 8-byte sequence number, then the samples.

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../util/udp_socket.h"
#include "device_clock.h"
#include "emulator.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

using u128 = unsigned __int128;
using cf = std::complex<double>;
constexpr double two_pi = 6.283185307179586476925286766559;

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

// ---- A fake oscillator for the clock's own tests -------------------------------------
int64_t fake_now = 0;
int64_t fake_oscillator() { return fake_now; }

// ---- Samples as the host would see them -----------------------------------------------

//! RX stream s of \p axi as UDP sample datagrams (fc32) to \p sink.
void program_udp(axioe::client& axi,
                 unsigned s,
                 const socket_address& sink,
                 uint32_t rate_num,
                 uint32_t rate_den,
                 uint64_t samples,
                 uint64_t start_time)
{
    auto reg = [s](uint32_t r) { return regs::rx_reg(s, r); };
    axi.write32(reg(regs::rx::dest_ipv4), sink.ip());
    axi.write32(reg(regs::rx::dest_udp_port), sink.port());
    axi.write32(reg(regs::rx::dest_qpn), 0x123);
    axi.write64(reg(regs::rx::ring_bytes_lo), 1 << 20);
    axi.write32(reg(regs::rx::payload_bytes), 1024); // 128 fc32 samples
    axi.write32(reg(regs::rx::transport), regs::transport_type::udp);
    const uint32_t rate[2] = { rate_num, rate_den };
    axi.write(reg(regs::rx::rate_num), rate, 2);
    axi.write32(reg(regs::rx::format), regs::format::fc32);
    axi.write64(reg(regs::rx::num_samples_lo), samples);
    axi.write64(reg(regs::rx::start_time_lo), start_time);
    axi.write32(regs::emu_reg(s, regs::emu::signal), regs::signal_scene);
}

//! Every sample of a run that sent \p expect samples (fewer if it ends first), in order.
std::vector<cf>
receive(udp_socket& host, uint64_t expect, std::chrono::milliseconds patience)
{
    std::map<uint64_t, std::vector<float>> messages;
    uint64_t got = 0;
    std::vector<uint8_t> buf(9000);
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (got < expect && std::chrono::steady_clock::now() < deadline) {
        datagram d;
        d.data = buf.data();
        d.capacity = buf.size();
        if (!host.receive(d, 20ms))
            continue;
        uint64_t seq = 0;
        for (int i = 0; i < 8; i++)
            seq = seq << 8 | buf[i];
        std::vector<float> iq((d.length - 8) / 4);
        std::memcpy(iq.data(), buf.data() + 8, iq.size() * 4);
        got += iq.size() / 2;
        messages[seq] = std::move(iq);
    }
    std::vector<cf> x;
    for (const auto& [seq, iq] : messages) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE("a message is missing", x.size(), size_t(seq * 128));
        for (size_t i = 0; i < iq.size(); i += 2)
            x.emplace_back(iq[i], iq[i + 1]);
    }
    return x;
}

// Cycles per sample from sample k to k + 1, in (-0.5, 0.5].
double step_cycles(const std::vector<cf>& x, size_t k)
{
    return std::arg(x[k + 1] * std::conj(x[k])) / two_pi;
}

// Distance on the circle of cycles.
double cycle_distance(double a, double b)
{
    const double d = std::fmod(std::fabs(a - b), 1.0);
    return std::min(d, 1 - d);
}

// The smallest k with t0 + k den / num >= t (ns), exactly.
uint64_t first_sample_at(uint64_t t0, uint32_t num, uint32_t den, uint64_t t)
{
    if (t <= t0)
        return 0;
    const u128 d = u128(den) * 1000000000u;
    return static_cast<uint64_t>((u128(t - t0) * num + d - 1) / d);
}

uint64_t sample_time(uint64_t t0, uint32_t num, uint32_t den, uint64_t k)
{
    return t0 + static_cast<uint64_t>(u128(k) * den * 1000000000u / num);
}

emu::emulator_config streams(unsigned n)
{
    emu::emulator_config c;
    c.rx_streams = n;
    return c;
}

void push(axioe::client& axi, uint64_t time, uint32_t address, uint64_t data)
{
    // One burst of six words, as the spec asks: CMD_TIME .. CMD_PUSH.
    const uint32_t w[6] = {
        regs::low_word(time), regs::high_word(time), address,
        regs::low_word(data), regs::high_word(data), regs::cmd::op::push
    };
    axi.write(regs::cmd::time_lo, w, 6);
}

uint32_t cmd_error(axioe::client& axi)
{
    return regs::cmd::last_error(axi.read32(regs::cmd::status));
}

// Until RX stream s is no longer running (a burst's last message sent), at most 1 s.
void wait_done(axioe::client& axi, unsigned s)
{
    for (int i = 0; i < 200; i++) {
        if (!(axi.read32(regs::rx_reg(s, regs::rx::status)) & regs::status::running))
            return;
        std::this_thread::sleep_for(5ms);
    }
}

const uint32_t rf0_freq = regs::rf_reg(0, regs::rf::freq_lo);
const uint32_t rf0_gain = regs::rf_reg(0, regs::rf::gain);

} // namespace

class qa_radio : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_radio);
    CPPUNIT_TEST(test_clock_sets_now_and_maps_the_oscillator);
    CPPUNIT_TEST(test_clock_set_at_pps_jumps_at_the_edge);
    CPPUNIT_TEST(test_clock_sources_and_status);
    CPPUNIT_TEST(test_channel_places_changes_at_samples);
    CPPUNIT_TEST(test_engines_run_due_commands_before_the_queues_thread);
    CPPUNIT_TEST(test_clock_registers);
    CPPUNIT_TEST(test_rf_identity_and_reset);
    CPPUNIT_TEST(test_rf_writes_clip_and_round);
    CPPUNIT_TEST(test_rf_and_commands_belong_to_the_streams_owner);
    CPPUNIT_TEST(test_command_queue_capacity_and_errors);
    CPPUNIT_TEST(test_commands_execute_in_time_order);
    CPPUNIT_TEST(test_late_and_untimed_commands_execute_at_once);
    CPPUNIT_TEST(test_scene_registers);
    CPPUNIT_TEST(test_timed_retune_lands_on_its_sample);
    CPPUNIT_TEST(test_untimed_retune_time_is_a_sample_time);
    CPPUNIT_TEST(test_timed_stop_ends_the_run_at_its_sample);
    CPPUNIT_TEST(test_two_channels_tuned_alike_are_equal);
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

CPPUNIT_TEST_SUITE_REGISTRATION(qa_radio);
