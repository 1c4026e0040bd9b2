/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Water filling in the emulator (docs/register-map.md, "Controller"; issue 14,
// acceptance 4): three streams over two links capped (EMU_LINK_RATE) at 2/3 of what
// they offer, CTRL_POLICY 1. What each stream delivered is read from the device's
// counters over an interval the test does not time: the streams' shares of it are
// max-min fair (Jain >= 0.99, each within 5 %: a loaded machine may starve one
// stream's thread for a while), the links drop (next to) nothing, and a stream whose
// demand drops (its host limits it) frees its share to the others. The hosts' sockets are
// never read: what the links pass is what the streams delivered.

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr uint32_t payload = 2048, mtu = 1024, rate = 1000000; // 4 MB/s of sc16
constexpr double demand = 4.0 * rate;                          // sample bytes/s
// IPv4 bytes per sample byte: two packets of IPv4, UDP, BTH and ICRC, one RETH and
// an immediate per message (the controller's upper bound, register_file_ctrl.cc).
constexpr double wire = (payload + 2 * 44 + 20) / double(payload);
// Link 0 carries 0.8 of one stream, link 1 1.2: 2/3 of the three streams' load.
constexpr uint64_t cap0 = uint64_t(0.8 * demand * wire),
                   cap1 = uint64_t(1.2 * demand * wire);
constexpr double share = 0.99; // of each link, device_controller::capacity_share

struct counters {
    std::array<uint64_t, 3> sent{}; // samples: emitted - dropped
    std::array<uint64_t, 2> link_drops{};
};

class three_streams_two_links
{
public:
    three_streams_two_links() : dev(config()), axi(dev.control_address())
    {
        for (auto& s : sinks)
            s = std::make_unique<udp_socket>(socket_address::parse("127.0.0.1:0"));
        axi.write64(regs::emu_link_reg(0, regs::emu_link::rate_lo), cap0);
        axi.write64(regs::emu_link_reg(1, regs::emu_link::rate_lo), cap1);
        // Stream 0 on link 0 only; streams 1 and 2 on both, weights 1:1.
        program(0, { 0 });
        program(1, { 0, 1 });
        program(2, { 0, 1 });
    }

    static emu::emulator_config config()
    {
        emu::emulator_config c;
        c.rx_streams = 3;
        c.more_links.push_back(socket_address::parse("127.0.0.1:0"));
        return c;
    }

    void program(unsigned s, const std::vector<unsigned>& links)
    {
        uint32_t mask = 0;
        for (unsigned d = 0; d < links.size(); d++) {
            const socket_address a = sinks[next_sink++]->local_address();
            auto dst = [&](uint32_t r) { return regs::rx_dest_reg(s, d, r); };
            axi.write32(dst(regs::dst::ipv4), a.ip());
            axi.write32(dst(regs::dst::udp_port), a.port());
            axi.write32(dst(regs::dst::qpn), 0x100 + 0x10 * s + d);
            axi.write32(dst(regs::dst::rkey), 0xA0 + d);
            axi.write64(dst(regs::dst::va_lo), 0x7f0000000000ull);
            axi.write64(dst(regs::dst::ring_bytes_lo), 256 * payload);
            axi.write32(dst(regs::dst::link), links[d]);
            axi.write32(dst(regs::dst::weight), 1);
            mask |= 1u << links[d];
        }
        auto rx = [&](uint32_t r) { return regs::rx_reg(s, r); };
        axi.write32(rx(regs::rx::link_mask), mask);
        axi.write32(rx(regs::rx::payload_bytes), payload);
        axi.write32(rx(regs::rx::path_mtu), mtu);
        axi.write32(rx(regs::rx::notify_interval), 4);
        axi.write32(rx(regs::rx::rate_num), rate);
    }

    void start()
    {
        for (unsigned s = 0; s < 3; s++)
            axi.write32(regs::rx_reg(s, regs::rx::command), regs::command::start);
    }

    void stop()
    {
        for (unsigned s = 0; s < 3; s++)
            axi.write32(regs::rx_reg(s, regs::rx::command), regs::command::stop);
    }

    counters read()
    {
        counters c;
        for (unsigned s = 0; s < 3; s++)
            c.sent[s] = axi.read64(regs::rx_reg(s, regs::rx::samples_emitted_lo)) -
                        axi.read64(regs::rx_reg(s, regs::rx::samples_dropped_lo));
        for (unsigned n = 0; n < 2; n++)
            c.link_drops[n] =
                axi.read64(regs::emu_link_reg(n, regs::emu_link::frames_dropped_lo));
        return c;
    }

    //! Bytes/s the controller holds stream \p s to.
    double ctrl_rate(unsigned s)
    {
        return double(axi.read32(regs::ctrl_rate_reg(s))) * regs::ctrl::rate_unit;
    }

    std::array<std::unique_ptr<udp_socket>, 5> sinks; // before the emulator sends
    unsigned next_sink = 0;
    emu::emulator dev;
    axioe::client axi;
};

// What each stream sent between two readings, and the links' drops meanwhile.
struct window {
    std::array<double, 3> sent{};
    std::array<uint64_t, 2> link_drops{};
};

window between(const counters& a, const counters& b)
{
    window w;
    for (unsigned s = 0; s < 3; s++)
        w.sent[s] = double(b.sent[s] - a.sent[s]);
    for (unsigned n = 0; n < 2; n++)
        w.link_drops[n] = b.link_drops[n] - a.link_drops[n];
    return w;
}

// The links dropped (next to) nothing of what the streams sent in \p w: the shares fit
// their capacity. Not exactly nothing: on a loaded machine a link's own thread may be
// late, and its queue then overflows as a switch's would (1 frame in 1000).
bool nearly_no_drops(const window& w)
{
    const double frames = (w.sent[0] + w.sent[1] + w.sent[2]) * 4 / mtu;
    return double(w.link_drops[0] + w.link_drops[1]) <= frames / 1000;
}

// Jain's index of x_s / fair_s: 1 when every stream got its fair share.
double jain(const std::array<double, 3>& x, const std::array<double, 3>& fair)
{
    double sum = 0, squares = 0;
    for (unsigned s = 0; s < 3; s++) {
        const double r = x[s] / fair[s];
        sum += r;
        squares += r * r;
    }
    return sum * sum / (3 * squares);
}

} // namespace

class qa_controller_links : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_controller_links);
    CPPUNIT_TEST(test_water_filling_is_fair_and_frees_a_dropped_share);
    CPPUNIT_TEST(test_a_cut_link_leaves_the_computation);
    CPPUNIT_TEST(test_a_stream_with_every_link_cut_is_not_held);
    CPPUNIT_TEST(test_shortest_rtt_without_rtts_weighs_equally);
    CPPUNIT_TEST(test_shortest_rtt_follows_the_hosts_path_ns);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_water_filling_is_fair_and_frees_a_dropped_share()
    {
        three_streams_two_links b;
        b.axi.write32(regs::ctrl_base + regs::ctrl::policy,
                      regs::ctrl_policy::water_filling);
        b.start();

        // Max-min fair: 2/3 of a stream's demand each (stream 0 alone on link 0 fits).
        const double fair = share * (cap0 + cap1) / 3 / wire;
        wait_for_rate(b, 1, fair);
        for (unsigned s = 0; s < 3; s++)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(fair, b.ctrl_rate(s), 0.01 * fair);
        // Streams 1 and 2 leave link 0 to stream 0 but for what it has left over.
        const uint32_t w0 = b.axi.read32(regs::rx_dest_reg(1, 0, regs::dst::weight));
        const uint32_t w1 = b.axi.read32(regs::rx_dest_reg(1, 1, regs::dst::weight));
        CPPUNIT_ASSERT(w0 > 0 && w1 > 2 * w0);
        // They reach the schedule as an epoch (at the next window boundary).
        wait_for_schedule(b, 1);
        wait_for_schedule(b, 2);
        CPPUNIT_ASSERT(b.axi.read32(regs::epoch_reg(1, regs::epoch::count)) >= 2);
        std::this_thread::sleep_for(200ms); // the FIFOs fill: from here on, steady
        const counters a = b.read();
        std::this_thread::sleep_for(1000ms);
        const window w = between(a, b.read());
        CPPUNIT_ASSERT(nearly_no_drops(w));
        CPPUNIT_ASSERT(jain(w.sent, { 1, 1, 1 }) >= 0.99);
        const double mean = (w.sent[0] + w.sent[1] + w.sent[2]) / 3;
        for (unsigned s = 0; s < 3; s++)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(mean, w.sent[s], 0.05 * mean);

        // Stream 0's host wants a quarter of its demand: the others take what it
        // leaves, (2 x 0.99 - 0.25) / 2 of a stream's demand each.
        const double low = demand / 4;
        b.axi.write32(regs::ctrl_rate_limit_reg(0),
                      uint32_t(low / regs::ctrl::rate_unit));
        const double freed = (share * (cap0 + cap1) / wire - low) / 2;
        wait_for_rate(b, 1, freed);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(freed, b.ctrl_rate(2), 0.01 * freed);
        wait_for_schedule(b, 1);
        wait_for_schedule(b, 2);
        std::this_thread::sleep_for(200ms);
        const counters c = b.read();
        std::this_thread::sleep_for(1000ms);
        const window v = between(c, b.read());
        b.stop();
        // Stopped, a stream is held to its host's limit alone (the next run's start).
        CPPUNIT_ASSERT_EQUAL(uint32_t(low / regs::ctrl::rate_unit),
                             b.axi.read32(regs::ctrl_rate_reg(0)));
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(regs::ctrl_rate_reg(1)));
        CPPUNIT_ASSERT(nearly_no_drops(v));
        const std::array<double, 3> fair_now = { low, freed, freed };
        CPPUNIT_ASSERT(jain(v.sent, fair_now) >= 0.99);
        // Freed: stream 1 gets 3.46 times stream 0's, where it had 2.64 times (0.66 /
        // 0.25) before the run that freed the share.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            freed / low, v.sent[1] / v.sent[0], 0.1 * freed / low);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, v.sent[2] / v.sent[1], 0.05);
        // Every event is counted: processed or coalesced (or pending, none by now).
        const uint64_t events = b.axi.read64(regs::ctrl_base + regs::ctrl::events_lo);
        const uint64_t coalesced =
            b.axi.read64(regs::ctrl_base + regs::ctrl::coalesced_lo);
        CPPUNIT_ASSERT(events >= 3 * 2 + 2 * 2 + 1); // demand, limit, links; the write
        CPPUNIT_ASSERT(coalesced < events);
    }

    void test_a_cut_link_leaves_the_computation()
    {
        // Link 1 cut (EMU_LINK_DOWN): one event for each stream on it, and the three
        // share link 0 alone; LINK_CONTROL = 1 gives them link 1 back.
        three_streams_two_links b;
        b.axi.write32(regs::ctrl_base + regs::ctrl::policy,
                      regs::ctrl_policy::water_filling);
        b.start();
        const double fair = share * (cap0 + cap1) / 3 / wire;
        wait_for_rate(b, 1, fair);
        wait_for_rate(b, 2, fair);
        const uint64_t events = b.axi.read64(regs::ctrl_base + regs::ctrl::events_lo);
        b.axi.write32(regs::emu_link_reg(1, regs::emu_link::down), 1);
        const double alone = share * cap0 / 3 / wire;
        for (unsigned s = 0; s < 3; s++) {
            wait_for_rate(b, s, alone);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(alone, b.ctrl_rate(s), 0.01 * alone);
        }
        CPPUNIT_ASSERT_EQUAL(events + 2,
                             b.axi.read64(regs::ctrl_base + regs::ctrl::events_lo));
        // The cable back is no event: the link's destinations stay out of the
        // schedules until the host asks them back, and so out of the computation.
        b.axi.write32(regs::emu_link_reg(1, regs::emu_link::down), 0);
        CPPUNIT_ASSERT_EQUAL(events + 2,
                             b.axi.read64(regs::ctrl_base + regs::ctrl::events_lo));
        b.axi.write32(regs::link_reg(1, regs::link::control), regs::link_control::up);
        CPPUNIT_ASSERT_EQUAL(events + 4,
                             b.axi.read64(regs::ctrl_base + regs::ctrl::events_lo));
        for (unsigned s = 0; s < 3; s++) {
            wait_for_rate(b, s, fair);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(fair, b.ctrl_rate(s), 0.01 * fair);
        }
        b.stop();
    }

    void test_a_stream_with_every_link_cut_is_not_held()
    {
        // Both links cut: no stream has a usable link. Held to its fair share of
        // nothing (CTRL_RATE 1 KiB/s, the least it showed) a stream sent nothing, so
        // it never reached the window where a rejoin takes effect: water filling kept
        // it there for good. Not held (CTRL_RATE 0: none), its messages leave and are
        // dropped at the cut; the links back (LINK_CONTROL = 1), each stream has its
        // fair share at the next run.
        three_streams_two_links b;
        b.axi.write32(regs::ctrl_base + regs::ctrl::policy,
                      regs::ctrl_policy::water_filling);
        b.start();
        const double fair = share * (cap0 + cap1) / 3 / wire;
        wait_for_rate(b, 1, fair);
        b.axi.write32(regs::emu_link_reg(0, regs::emu_link::down), 1);
        b.axi.write32(regs::emu_link_reg(1, regs::emu_link::down), 1);
        for (unsigned s = 0; s < 3; s++) {
            wait_for_rate(b, s, 0);
            CPPUNIT_ASSERT_EQUAL(0.0, b.ctrl_rate(s));
        }
        // Their messages still leave, and the cut links drop their frames.
        const counters before = b.read();
        std::this_thread::sleep_for(100ms);
        const window cut = between(before, b.read());
        CPPUNIT_ASSERT(cut.link_drops[0] > 0);
        CPPUNIT_ASSERT(cut.link_drops[1] > 0);
        for (unsigned n = 0; n < 2; n++) {
            b.axi.write32(regs::emu_link_reg(n, regs::emu_link::down), 0);
            b.axi.write32(regs::link_reg(n, regs::link::control), regs::link_control::up);
        }
        for (unsigned s = 0; s < 3; s++) {
            wait_for_rate(b, s, fair);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(fair, b.ctrl_rate(s), 0.01 * fair);
        }
        b.stop();
    }

    void test_shortest_rtt_without_rtts_weighs_equally()
    {
        // Policy 2: the emulator measures no RTT (UC), so a stream's links weigh the
        // same; a host's weight is an event and lasts until the run after it.
        three_streams_two_links b;
        const uint32_t w0 = regs::rx_dest_reg(1, 0, regs::dst::weight);
        const uint32_t w1 = regs::rx_dest_reg(1, 1, regs::dst::weight);
        b.axi.write32(w0, 3);
        b.start();
        CPPUNIT_ASSERT_EQUAL(3u, b.axi.read32(w0));
        const uint64_t runs = b.axi.read64(regs::ctrl_base + regs::ctrl::runs_lo);
        b.axi.write32(regs::ctrl_base + regs::ctrl::policy,
                      regs::ctrl_policy::shortest_rtt);
        for (int i = 0; i < 200 && b.axi.read32(w0) != 1; i++)
            std::this_thread::sleep_for(10ms);
        CPPUNIT_ASSERT(b.axi.read64(regs::ctrl_base + regs::ctrl::runs_lo) > runs);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(w0));
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(w1));
        // No rate of its own: each stream dequeues at its host's limit (none).
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(regs::ctrl_rate_reg(1)));
        b.stop();
        // After the run DST_WEIGHT reads what the host wrote, the next START's.
        CPPUNIT_ASSERT_EQUAL(3u, b.axi.read32(w0));
    }

    void test_shortest_rtt_follows_the_hosts_path_ns()
    {
        // Host feedback: DST_PATH_NS is the RTT of the destination's link for policy 2,
        // weights in proportion to 1 / RTT (1 us and 3 us: 3:1), written while running.
        three_streams_two_links b;
        const uint32_t w0 = regs::rx_dest_reg(1, 0, regs::dst::weight);
        const uint32_t w1 = regs::rx_dest_reg(1, 1, regs::dst::weight);
        const uint32_t p0 = regs::rx_dest_reg(1, 0, regs::dst::path_ns);
        const uint32_t p1 = regs::rx_dest_reg(1, 1, regs::dst::path_ns);
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(p0)); // reset: none measured
        b.axi.write32(regs::ctrl_base + regs::ctrl::policy,
                      regs::ctrl_policy::shortest_rtt);
        b.start();
        b.axi.write32(p0, 1000);
        b.axi.write32(p1, 3000);
        CPPUNIT_ASSERT_EQUAL(3000u, b.axi.read32(p1));
        for (int i = 0; i < 200 && b.axi.read32(w0) != 3; i++)
            std::this_thread::sleep_for(10ms);
        CPPUNIT_ASSERT_EQUAL(3u, b.axi.read32(w0));
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(w1));
        // The schedule follows: its newest epoch carries 3:1.
        wait_for_schedule(b, 1);
        uint32_t e[regs::epoch::entry_words] = {};
        const uint32_t n = b.axi.read32(regs::epoch_reg(1, regs::epoch::count));
        b.axi.read(regs::epoch_entry_reg(1, (n + 3) % regs::epoch::emulator_kept, 0),
                   e,
                   regs::epoch::entry_words);
        CPPUNIT_ASSERT_EQUAL(3u | 1u << 16, e[4]);
        // The paths even out: so do the weights.
        b.axi.write32(p1, 1000);
        for (int i = 0; i < 200 && b.axi.read32(w0) != 1; i++)
            std::this_thread::sleep_for(10ms);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(w0));
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(w1));
        // Stream 0 has one destination: nothing to weigh, and no error either.
        b.axi.write32(regs::rx_dest_reg(0, 0, regs::dst::path_ns), 500);
        b.stop();
        // Not latched: written after the run too, and kept.
        b.axi.write32(p1, 7);
        CPPUNIT_ASSERT_EQUAL(7u, b.axi.read32(p1));
    }

private:
    // Until stream \p s's newest epoch has the weights in force: the rate acts at the
    // next batch, the weights at the next window boundary, or a ring later when four
    // epochs came in quick succession (docs/register-map.md, "Epochs and failover").
    static void wait_for_schedule(three_streams_two_links& b, unsigned s)
    {
        for (int i = 0; i < 200; i++) {
            const uint32_t n = b.axi.read32(regs::epoch_reg(s, regs::epoch::count));
            uint32_t e[regs::epoch::entry_words] = {};
            b.axi.read(regs::epoch_entry_reg(s, (n + 3) % regs::epoch::emulator_kept, 0),
                       e,
                       regs::epoch::entry_words);
            const uint32_t want =
                b.axi.read32(regs::rx_dest_reg(s, 0, regs::dst::weight)) |
                b.axi.read32(regs::rx_dest_reg(s, 1, regs::dst::weight)) << 16;
            if (n > 0 && e[2] == n - 1 && e[4] == want)
                return;
            std::this_thread::sleep_for(10ms);
        }
    }

    // Until the controller holds stream \p s within 1 % of \p bytes_per_s (bounded:
    // its loop runs every millisecond while something waits).
    static void wait_for_rate(three_streams_two_links& b, unsigned s, double bytes_per_s)
    {
        for (int i = 0; i < 200; i++) {
            if (std::fabs(b.ctrl_rate(s) - bytes_per_s) <= 0.01 * bytes_per_s)
                return;
            std::this_thread::sleep_for(10ms);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_controller_links);
