/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Queued bursts end to end (docs/radio.md, "Burst queue"): a type=emu stream made with
// rx_stream::queued gets three bursts into regions of the ring the host chose, at three
// device times (two timed, one seamless). Each is the emulator's ramp of its own ring
// item indices, lands where it was asked, and starts with a time event at its time;
// nothing is lost, and what the host counts is what the device emitted. And what
// queue_burst() refuses, with errors that say why.

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct burst {
    uint64_t first_item = 0; // ring item index of its sample 0 (f * P)
    uint64_t samples = 0;
    uint64_t time_ns = 0; // device time of its sample 0
};

template <typename E, typename F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class qa_queued_bursts : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_queued_bursts);
    CPPUNIT_TEST(test_three_bursts_into_chosen_regions);
    CPPUNIT_TEST(test_a_full_queue_is_refused);
    CPPUNIT_TEST(test_queued_mode_is_asked_for);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_three_bursts_into_chosen_regions()
    {
        const double rate = 1e6;
        rx_stream s("type=emu,signal=ramp,latency=0.5", "sc16", rate, rx_stream::queued);
        const uint64_t N = s.ring_items();
        const uint64_t P = s.payload_bytes() / s.item_size();
        CPPUNIT_ASSERT(N % 8 == 0 && (N / 8) % P == 0);
        // Bursts of a quarter ring, less a little: each ends with a short message.
        const uint64_t n = N / 4 - P / 2;
        std::vector<burst> b(3);
        // Before start(): pushed after START. A at ring item 0, timed; B seamless, at
        // half the ring.
        const uint64_t t_a = s.device_time_now() + 500000000;
        b[0] = { s.queue_burst(n, t_a, 0), n, t_a };
        b[1] = { s.queue_burst(n, 0, N / 2), n, t_a + uint64_t(n * 1e9 / rate) };
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b[0].first_item);
        CPPUNIT_ASSERT_EQUAL(N / 2, b[1].first_item);
        s.start();

        // C lands where A did, a ring later: not before A is released.
        const uint64_t end_b = t_a + uint64_t(2 * n * 1e9 / rate); // exact: 1 us/sample
        const uint64_t t_c = end_b + 100000000;
        const uint64_t c_item = N + N / 8;
        const std::string busy =
            error_of<std::invalid_argument>([&] { s.queue_burst(n, t_c, c_item); });
        CPPUNIT_ASSERT_MESSAGE(busy, contains(busy, "release " + std::to_string(n)));
        // The other refusals, each naming its fix.
        const std::string boundary =
            error_of<std::invalid_argument>([&] { s.queue_burst(n, t_c, c_item + 1); });
        CPPUNIT_ASSERT_MESSAGE(boundary,
                               contains(boundary, "not on a message boundary") &&
                                   contains(boundary, std::to_string(P)));
        const std::string behind =
            error_of<std::invalid_argument>([&] { s.queue_burst(n, t_c, N / 2 + P); });
        CPPUNIT_ASSERT_MESSAGE(behind, contains(behind, "behind the previous burst"));
        const std::string early = error_of<std::invalid_argument>(
            [&] { s.queue_burst(n, end_b - 1, 3 * N / 4); });
        CPPUNIT_ASSERT_MESSAGE(early,
                               contains(early, "before the end of the previous burst") &&
                                   contains(early, std::to_string(end_b)));
        const std::string empty =
            error_of<std::invalid_argument>([&] { s.queue_burst(0, t_c, c_item); });
        CPPUNIT_ASSERT_MESSAGE(empty, contains(empty, "out of range 1 .."));

        uint64_t items = 0, mismatches = 0, misplaced = 0, first_bad = UINT64_MAX;
        std::vector<rx_event> events;
        const uint8_t* base = s.ring_base();
        const auto give_up = std::chrono::steady_clock::now() + 30s;
        while (items < 3 * n && std::chrono::steady_clock::now() < give_up) {
            if (items >= n && b[2].samples == 0) // A released: its region is free
                b[2] = { s.queue_burst(n, t_c, c_item), n, t_c };
            const rx_stream::chunk c = s.recv(1u << 16, 100ms);
            CPPUNIT_ASSERT_EQUAL(items, c.first_item);
            CPPUNIT_ASSERT(!c.end_of_stream);
            const auto* p = static_cast<const uint8_t*>(c.data);
            for (size_t i = 0; i < c.items; i++) {
                const uint64_t k = c.first_item + i;
                const burst& which = b[k / n];
                const uint64_t ring_item = which.first_item + k % n;
                uint8_t expect[4];
                ramp_item(sample_format::sc16, ring_item, expect);
                if (std::memcmp(expect, p + 4 * i, 4) != 0 && mismatches++ == 0)
                    first_bad = k;
                if (uint64_t(p + 4 * i - base) != 4 * (ring_item % N))
                    misplaced++;
            }
            items += c.items;
            s.release(c.items);
            rx_event e;
            while (s.poll_event(e))
                events.push_back(e);
        }
        CPPUNIT_ASSERT_EQUAL(b[2].first_item, c_item);
        CPPUNIT_ASSERT_EQUAL(3 * n, items);
        // Nothing more: the stream idles, RUNNING, until stop().
        CPPUNIT_ASSERT_EQUAL(size_t(0), s.recv(1, 50ms).items);
        s.stop();
        rx_event e;
        while (s.poll_event(e))
            events.push_back(e);

        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost()); // else the zeros mismatch
        CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(first_bad), uint64_t(0), mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), misplaced);
        // Each burst's own rx_time: its first item, its time.
        std::vector<rx_event> marks;
        for (const rx_event& ev : events) {
            CPPUNIT_ASSERT_MESSAGE(to_string(ev.type),
                                   ev.type == rx_event::kind::time ||
                                       ev.type == rx_event::kind::tune);
            if (ev.type == rx_event::kind::time)
                marks.push_back(ev);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(3), marks.size());
        for (size_t i = 0; i < 3; i++) {
            CPPUNIT_ASSERT_EQUAL(i * n, marks[i].item);
            CPPUNIT_ASSERT_EQUAL(b[i].time_ns, marks[i].time_ns);
            CPPUNIT_ASSERT_EQUAL(b[i].first_item, marks[i].device_item);
        }
        // delivered + lost == emitted, and nothing lost.
        const auto counters = s.read_counters();
        CPPUNIT_ASSERT_EQUAL(3 * n, counters.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL(3 * n, a.delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), counters.at("host.imm_unrouted"));
    }

    void test_a_full_queue_is_refused()
    {
        rx_stream s("type=emu,signal=ramp,latency=0.5", "sc16", 1e6, rx_stream::queued);
        const uint64_t P = s.payload_bytes() / s.item_size();
        s.start();
        // One message each, a minute ahead: the device keeps 16 waiting.
        const uint64_t t = s.device_time_now() + 60000000000ull;
        for (unsigned i = 0; i < 16; i++)
            s.queue_burst(P, i ? 0 : t);
        const std::string full = error_of<std::runtime_error>([&] { s.queue_burst(P); });
        CPPUNIT_ASSERT_MESSAGE(full, contains(full, "queue is full"));
        // Refused whole: the next burst still goes to the next message.
        const auto counters = s.read_counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), counters.at("host.bursts_waiting"));
        s.stop();
        // None of them was sent: nothing emitted, nothing lost.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.counts().delivered + s.counts().lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.read_counters().at("device.samples_emitted"));
    }

    void test_queued_mode_is_asked_for()
    {
        rx_stream s("type=emu,signal=ramp", "sc16", 1e6);
        const std::string not_queued =
            error_of<std::invalid_argument>([&] { s.queue_burst(100); });
        CPPUNIT_ASSERT_MESSAGE(not_queued, contains(not_queued, "rx_stream::queued"));
        rx_stream q("type=emu,signal=ramp", "sc16", 1e6, rx_stream::queued);
        const std::string slots = error_of<std::logic_error>(
            [&] { q.wait_items(0, 0, std::chrono::microseconds(0)); });
        CPPUNIT_ASSERT_MESSAGE(slots, contains(slots, "recv() and release()"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.burst_items());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_queued_bursts);
