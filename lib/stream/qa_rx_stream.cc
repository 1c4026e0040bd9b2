/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rx_stream end to end without GNU Radio: embedded emulator -> UDP -> soft NIC -> ring.

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/test_signal.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct check_result {
    uint64_t items = 0;
    uint64_t mismatches = 0;
    uint64_t outside_ring = 0;
    bool end_of_stream = false;
};

// Consume a whole finite burst through recv()/release(), checking every item against
// the ramp and every chunk's address against the ring.
check_result consume_ramp(rx_stream& s, sample_format format)
{
    check_result r;
    const auto* lo = s.ring_base();
    const auto* hi = lo + 2 * s.ring_bytes();
    const size_t size = item_size(format);
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!r.end_of_stream && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        const auto* p = static_cast<const uint8_t*>(c.data);
        if (c.items && (p < lo || p + c.items * size > hi))
            r.outside_ring++;
        CPPUNIT_ASSERT_EQUAL(r.items, c.first_item);
        for (size_t i = 0; i < c.items; i++) {
            uint8_t expect[8];
            ramp_item(format, c.first_item + i, expect);
            if (std::memcmp(expect, p + i * size, size) != 0)
                r.mismatches++;
        }
        r.items += c.items;
        s.release(c.items);
        r.end_of_stream = c.end_of_stream;
    }
    return r;
}

} // namespace

class qa_rx_stream : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rx_stream);
    CPPUNIT_TEST(test_ramp_bit_exact_over_wraps_sc16);
    CPPUNIT_TEST(test_ramp_bit_exact_over_wraps_fc32);
    CPPUNIT_TEST(test_restart_starts_from_slot_zero);
    CPPUNIT_TEST(test_geometry);
    CPPUNIT_TEST(test_stopped_early_keeps_the_books);
    CPPUNIT_TEST(test_bad_arguments_are_explained);
    CPPUNIT_TEST(test_release_more_than_received_throws);
    CPPUNIT_TEST(test_partial_release_under_overrun);
    CPPUNIT_TEST(test_work_interval_gathers_items);
    CPPUNIT_TEST(test_defaults_follow_the_rate);
    CPPUNIT_TEST_SUITE_END();

    void run_ramp(const char* format_name)
    {
        const sample_format format = parse_sample_format(format_name);
        // Placement, not speed: the device waits for the consumer (emu_pace=consumer),
        // so that a busy machine laps nothing.
        rx_stream s("type=emu,signal=ramp,hugepages=off", format_name, 20e6, 0);
        const uint64_t items = 10 * s.ring_items() + 12345; // more than 10 wraps
        rx_stream burst("type=emu,signal=ramp,hugepages=off,stream=1,emu_pace=consumer",
                        format_name,
                        20e6,
                        items);
        burst.start();
        const check_result r = consume_ramp(burst, format);
        const rx_stream::accounting a = burst.counts();
        const std::string accounting =
            "delivered " + std::to_string(a.delivered) + ", lost to gaps " +
            std::to_string(a.lost_gap) + ", skipped " + std::to_string(a.lost_skipped) +
            ", overwritten " + std::to_string(a.lost_overwritten);
        CPPUNIT_ASSERT(r.end_of_stream);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        // Bit-exact: nothing lost, nothing wrong (the message tells what went missing).
        CPPUNIT_ASSERT_EQUAL_MESSAGE(accounting, uint64_t(0), a.lost());
        CPPUNIT_ASSERT_EQUAL(items, a.delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.outside_ring);
        const auto counters = burst.read_counters();
        CPPUNIT_ASSERT_EQUAL(items, counters.at("device.samples_emitted"));
        // Every immediate the device sent completed, in sequence.
        CPPUNIT_ASSERT_EQUAL(counters.at("device.imm_sent"),
                             counters.at("host.completions"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), counters.at("host.imm_out_of_sequence"));
        burst.stop();
    }

public:
    void test_ramp_bit_exact_over_wraps_sc16() { run_ramp("sc16"); }
    void test_ramp_bit_exact_over_wraps_fc32() { run_ramp("fc32"); }

    void test_restart_starts_from_slot_zero()
    {
        rx_stream s("type=emu,signal=ramp,hugepages=off,latency=0.1,emu_pace=consumer",
                    "sc16",
                    5e6,
                    3000000);
        for (int run = 0; run < 3; run++) {
            s.start();
            const check_result r = consume_ramp(s, sample_format::sc16);
            CPPUNIT_ASSERT(r.end_of_stream);
            CPPUNIT_ASSERT_EQUAL(uint64_t(3000000), r.items);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
            s.stop();
        }
    }

    void test_stopped_early_keeps_the_books()
    {
        // A stop mid-burst: what the device emitted before STOP took effect and was
        // not handed out counts as lost to the stop, so the identity holds; each run
        // has its own books. Progress by the clock alone (notify=0): the last grace
        // period (35 ms) is never final at the stop, so there always is such a tail.
        // Paced (emu_pace=consumer): on a busy machine no other loss comes in between.
        rx_stream s("type=emu,signal=ramp,hugepages=off,notify=0,emu_pace=consumer",
                    "sc16",
                    5e6,
                    50000000);
        for (int run = 0; run < 3; run++) {
            s.start();
            uint64_t received = 0;
            while (received < 500000) {
                const rx_stream::chunk c = s.recv(65536, 100ms);
                CPPUNIT_ASSERT(c.items > 0);
                received += c.items;
                s.release(c.items);
            }
            s.stop();
            const auto counters = s.read_counters();
            const rx_stream::accounting a = s.counts();
            const uint64_t emitted = counters.at("device.samples_emitted");
            const std::string books = "emitted " + std::to_string(emitted) +
                                      ", delivered " + std::to_string(a.delivered) +
                                      ", lost " + std::to_string(a.lost()) +
                                      " (stopped " + std::to_string(a.lost_stopped) + ")";
            CPPUNIT_ASSERT_MESSAGE(books, emitted < 50000000);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(books, emitted, a.delivered + a.lost());
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                books, a.lost_stopped, counters.at("host.lost_stopped"));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(books, a.lost(), counters.at("host.lost"));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                books, a.lost_stopped, a.lost()); // no other loss
            CPPUNIT_ASSERT_MESSAGE(books, a.lost_stopped > 0);
        }
    }

    void test_geometry()
    {
        rx_stream s("type=emu,hugepages=off,latency=0.1,payload=2048", "fc32", 10e6, 0);
        CPPUNIT_ASSERT_EQUAL(size_t(8), s.item_size());
        CPPUNIT_ASSERT_EQUAL(size_t(2048), s.payload_bytes());
        CPPUNIT_ASSERT_EQUAL(0u, unsigned(s.ring_bytes() % 2048));
        CPPUNIT_ASSERT(s.ring_bytes() >= size_t(10e6 * 8 * 0.1));
        CPPUNIT_ASSERT_EQUAL(s.ring_bytes() / 8, s.ring_items());
        CPPUNIT_ASSERT_EQUAL(4096u, s.path_mtu()); // loopback carries 4 KiB packets
        // The second mapping aliases the first.
        s.ring_base()[0] = 0x5A;
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x5A), s.ring_base()[s.ring_bytes()]);
    }

    void test_bad_arguments_are_explained()
    {
        auto message = [](const char* args, const char* format, double rate) {
            try {
                rx_stream s(args, format, rate, 0);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        CPPUNIT_ASSERT(message("type=emu,sgnal=ramp", "sc16", 1e6).find("sgnal") !=
                       std::string::npos);
        CPPUNIT_ASSERT(message("type=emu", "sc12", 1e6).find("sc8") != std::string::npos);
        CPPUNIT_ASSERT(
            message("type=emu,payload=1000", "sc16", 1e6).find("power of two") !=
            std::string::npos);
        CPPUNIT_ASSERT(message("type=emu,mtu=300", "sc16", 1e6).find("4096") !=
                       std::string::npos);
        CPPUNIT_ASSERT(message("type=remote", "sc16", 1e6).find("addr=") !=
                       std::string::npos);
        CPPUNIT_ASSERT(message("type=emu", "sc16", -1).find("rate") != std::string::npos);
        // A ring shorter than the device's FIFO plus a margin cannot judge late packets.
        CPPUNIT_ASSERT(
            message("type=emu,latency=0.01", "sc16", 1e6).find("raise latency=") !=
            std::string::npos);
        // Gathering longer than a quarter of the ring's time would invite overruns...
        CPPUNIT_ASSERT(message("type=emu,work_interval=0.03", "sc16", 1e6)
                           .find("raise latency= or lower work_interval=") !=
                       std::string::npos);
        // ... and more notifications than receives in reserve would lose packets.
        CPPUNIT_ASSERT(
            message("type=emu,payload=256,notify=1,work_interval=0.02", "sc16", 1e6)
                .find("raise notify= to at least 2") != std::string::npos);
    }

    void test_release_more_than_received_throws()
    {
        rx_stream s("type=emu,hugepages=off,latency=0.1", "sc16", 1e6, 10000);
        s.start();
        rx_stream::chunk c;
        for (int i = 0; i < 100 && c.items == 0; i++)
            c = s.recv(100, 100ms);
        CPPUNIT_ASSERT(c.items > 0);
        CPPUNIT_ASSERT_THROW(s.release(c.items + 1), std::invalid_argument);
        s.release(c.items);
        s.stop();
    }

    void test_partial_release_under_overrun()
    {
        // The consumer gives back only half of each chunk, and dozes off now and then
        // so that the device laps it. What it holds comes back first, unchanged in
        // place; a skip can only happen after it, where new items begin.
        const uint64_t items = 3000000;
        rx_stream s("type=emu,signal=ramp,hugepages=off,latency=0.1", "sc16", 5e6, items);
        s.start();
        uint64_t released = 0, handed_end = 0, skipped = 0;
        const auto give_up = std::chrono::steady_clock::now() + 60s;
        for (int round = 0; std::chrono::steady_clock::now() < give_up; round++) {
            const rx_stream::chunk c = s.recv(1u << 16, 100ms);
            CPPUNIT_ASSERT_EQUAL(released, c.first_item);
            CPPUNIT_ASSERT(c.items >=
                           std::min<uint64_t>(handed_end - released, 1u << 16));
            rx_event e;
            while (s.poll_event(e))
                if (e.type == rx_event::kind::overrun &&
                    e.cause == rx_event::reason::skipped) {
                    CPPUNIT_ASSERT(e.item >= handed_end); // never inside what it holds
                    skipped += e.count;
                }
            handed_end = std::max(handed_end, c.first_item + c.items);
            if (c.end_of_stream && c.items == 0)
                break;
            const size_t give_back = c.end_of_stream ? c.items : (c.items + 1) / 2;
            s.release(give_back);
            released += give_back;
            if (round % 50 == 49)
                std::this_thread::sleep_for(300ms); // three rings of the device
        }
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT(skipped > 0);
        CPPUNIT_ASSERT_EQUAL(skipped, a.lost_skipped);
        CPPUNIT_ASSERT_EQUAL(items, released + a.lost_skipped);
        CPPUNIT_ASSERT_EQUAL(items, a.delivered + a.lost());
        s.stop();
    }

    void test_defaults_follow_the_rate()
    {
        // No payload= or notify=: handout_pacing's, from the rate (docs/device-args.md,
        // "Fast by default"): at 1 GB/s, 64 KiB messages and a notification every 15
        // (0.98 ms); at 1 MS/s, the MTU and every message. Given ones win.
        const auto settled = [](const std::string& args, double rate) {
            rx_stream s("type=null,hugepages=off" + args, "sc16", rate, 1u << 20);
            const auto c = s.read_counters();
            return std::make_pair(c.at("host.payload_bytes"),
                                  c.at("host.notify_interval"));
        };
        CPPUNIT_ASSERT(settled("", 250e6) ==
                       std::make_pair(uint64_t(65536), uint64_t(15)));
        CPPUNIT_ASSERT(settled("", 1e6) == std::make_pair(uint64_t(4096), uint64_t(1)));
        CPPUNIT_ASSERT(settled(",payload=8192", 250e6) ==
                       std::make_pair(uint64_t(8192), uint64_t(122)));
        CPPUNIT_ASSERT(settled(",notify=16", 250e6) ==
                       std::make_pair(uint64_t(65536), uint64_t(16)));

        // And they hold: a burst at 1 GB/s arrives whole, in hand-outs no more frequent
        // than its notifications (one per 15 messages) plus its end.
        const uint64_t items = 250000000 / 5; // 0.2 s
        rx_stream s("type=null,hugepages=off", "sc16", 250e6, items);
        s.start();
        uint64_t received = 0;
        bool end = false;
        const auto give_up = std::chrono::steady_clock::now() + 30s;
        while (!end && std::chrono::steady_clock::now() < give_up) {
            const rx_stream::chunk c = s.recv(1u << 24, 100ms);
            received += c.items;
            s.release(c.items);
            end = c.end_of_stream;
        }
        CPPUNIT_ASSERT(end);
        const auto c = s.read_counters();
        // Every item accounted for; a busy machine may make the stand-in drop some
        // (judged lost by the clock, handed out as zeros unless skipped).
        CPPUNIT_ASSERT_EQUAL(items, c.at("host.delivered") + c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL(items, received + c.at("host.lost_skipped"));
        // A hand-out per notification, the end, and at most one more per message the
        // clock had to judge (each may end a wait of its own).
        const uint64_t notifications = items / (15 * 16384) + 1;
        const uint64_t judged = (c.at("host.lost") + 16383) / 16384;
        CPPUNIT_ASSERT_MESSAGE(std::to_string(c.at("host.handouts")) + " hand-outs, " +
                                   std::to_string(c.at("host.lost")) + " lost",
                               c.at("host.handouts") <= notifications + 2 + judged);
        CPPUNIT_ASSERT(c.at("host.handouts") >= 1);
        s.stop();
    }

    void test_work_interval_gathers_items()
    {
        // work_interval=0.01: items come out at most once per 10 ms (a notification
        // about every millisecond would otherwise hand them out ten times as often),
        // and every one of them is there, bit-exact.
        const uint64_t items = 10000000; // 0.5 s
        rx_stream s("type=emu,signal=ramp,hugepages=off,work_interval=0.01,"
                    "emu_pace=consumer",
                    "sc16",
                    20e6,
                    items);
        s.start();
        std::vector<std::chrono::steady_clock::time_point> handouts;
        uint64_t received = 0, mismatches = 0;
        const auto give_up = std::chrono::steady_clock::now() + 30s;
        bool end = false;
        while (!end && std::chrono::steady_clock::now() < give_up) {
            const rx_stream::chunk c = s.recv(1u << 22, 100ms);
            if (c.items) {
                handouts.push_back(std::chrono::steady_clock::now());
                ramp_errors errors;
                check_ramp(sample_format::sc16, c.first_item, c.data, c.items, errors);
                mismatches += errors.mismatches;
            }
            received += c.items;
            s.release(c.items);
            end = c.end_of_stream;
        }
        CPPUNIT_ASSERT(end);
        CPPUNIT_ASSERT_EQUAL(items, received);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), mismatches);
        CPPUNIT_ASSERT_EQUAL(items, s.counts().delivered);
        // The last hand-out, the end of the burst, is not held back.
        CPPUNIT_ASSERT(handouts.size() >= 2);
        for (size_t i = 1; i + 1 < handouts.size(); i++) {
            const auto gap = handouts[i] - handouts[i - 1];
            CPPUNIT_ASSERT_MESSAGE("hand-out " + std::to_string(i) + " came after only " +
                                       std::to_string(gap / 1us) + " us",
                                   gap >= 9ms);
        }
        // As many as 10 ms intervals fit in the run: 0.5 s, or longer when a busy
        // machine slows the paced device.
        const double run_s =
            std::chrono::duration<double>(handouts.back() - handouts.front()).count();
        CPPUNIT_ASSERT(handouts.size() <= std::max(0.5, run_s) / 0.01 + 2);
        s.stop();
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rx_stream);
