/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// loss_tracker::mark_substituted: samples the device sent as zeros (RC, reported on the
// metadata channel) count as lost, whether the report comes before they are handed out
// or after. Same bench as qa_loss_tracker: a plain buffer stands in for the ring.

#include "loss_tracker.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>
#include <set>
#include <vector>

using namespace gr::rdma;

namespace {

constexpr size_t N = 64; // ring items
constexpr size_t P = 8;  // packet items: 8 slots

struct bench {
    std::vector<uint8_t> memory = std::vector<uint8_t>(2 * N * 4, 0xEE);
    loss_tracker tracker;
    uint64_t next = 0;
    std::vector<rx_event> events;
    std::set<uint64_t> zeros;        // device items the device sends as zeros
    std::set<uint64_t> lost_packets; // packets lost on the way
    ramp_errors errors;

    bench() : tracker({ memory.data(), N, P, 0 }, sample_format::sc16) {}

    // The device writes packet p: ramp, or zeros where it substituted.
    void device_writes(uint64_t packet)
    {
        uint8_t* slot = memory.data() + (packet % (N / P)) * P * 4;
        for (uint64_t i = 0; i < P; i++) {
            const uint64_t k = packet * P + i;
            if (zeros.count(k))
                std::memset(slot + 4 * i, 0, 4);
            else
                ramp_item(sample_format::sc16, k, slot + 4 * i);
        }
    }

    // The device sends packets [from, to), each made final at once and taken by the
    // consumer (released or held), as a notification per packet would.
    void stream(uint64_t from, uint64_t to, bool release = true)
    {
        for (uint64_t p = from; p < to; p++) {
            if (!lost_packets.count(p))
                device_writes(p);
            tracker.on_progress((p + 1) * P, (p + 1) * P);
            consume(P, (p + 1) * P, release);
        }
    }

    // Take up to \p max items and check them: reported-lost items must be zeros,
    // delivered ones the ramp.
    uint64_t consume(uint64_t max, uint64_t written_bound, bool release = true)
    {
        const uint64_t n = std::min(max, tracker.deliverable(next, written_bound));
        if (n)
            tracker.commit(next, n);
        const std::set<uint64_t> lost = drain();
        const uint8_t* data = memory.data() + (tracker.device_item(next) % N) * 4;
        for (uint64_t i = 0; i < n; i++) {
            if (lost.count(next + i)) {
                uint32_t w;
                std::memcpy(&w, data + 4 * i, 4);
                CPPUNIT_ASSERT_EQUAL(0u, w);
            } else {
                check_ramp(sample_format::sc16,
                           tracker.device_item(next + i),
                           data + 4 * i,
                           1,
                           errors);
            }
        }
        next += n;
        if (release)
            tracker.on_release(next, written_bound);
        return n;
    }

    std::set<uint64_t> drain()
    {
        std::set<uint64_t> lost;
        rx_event e;
        while (tracker.poll_event(e)) {
            events.push_back(e);
            if (e.type == rx_event::kind::gap)
                for (uint64_t i = 0; i < e.count; i++)
                    lost.insert(e.item + i);
        }
        return lost;
    }

    uint64_t reported(rx_event::reason cause) const
    {
        uint64_t n = 0;
        for (const auto& e : events)
            n += e.type == rx_event::kind::gap && e.cause == cause ? e.count : 0;
        return n;
    }

    void substitute(uint64_t first, uint64_t count)
    {
        for (uint64_t k = first; k < first + count; k++)
            zeros.insert(k);
        tracker.mark_substituted(first, count);
    }
};

} // namespace

class qa_loss_substituted : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_loss_substituted);
    CPPUNIT_TEST(test_reported_before_hand_out);
    CPPUNIT_TEST(test_reported_after_hand_out);
    CPPUNIT_TEST(test_substituted_items_read_as_zeros);
    CPPUNIT_TEST(test_reported_while_half_handed_out);
    CPPUNIT_TEST(test_already_lost_is_not_counted_twice);
    CPPUNIT_TEST(test_then_overwritten_is_not_counted_twice);
    CPPUNIT_TEST(test_too_late_is_unmatched_and_reset_clears);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_reported_before_hand_out()
    {
        bench b;
        b.substitute(10, 12); // items 10..21: the end of packet 1, most of packet 2
        b.stream(0, 40);
        const auto& c = b.tracker.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(40 * P - 12), c.delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), c.lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), c.lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.errors.mismatches);
        // Reported as gaps where they were handed out, then the stream is re-tagged
        // where the samples resume.
        CPPUNIT_ASSERT_EQUAL(uint64_t(12),
                             b.reported(rx_event::reason::zero_substituted));
        std::vector<rx_event> gaps, times;
        for (const auto& e : b.events)
            (e.type == rx_event::kind::gap ? gaps : times).push_back(e);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), gaps.front().item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), gaps.front().device_item);
        CPPUNIT_ASSERT_EQUAL(size_t(2), times.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(22), times[1].item);
    }

    void test_reported_after_hand_out()
    {
        bench b;
        b.zeros = { 4, 5, 6, 7, 8, 9, 10, 11 }; // sent as zeros, not yet reported
        b.stream(0, 4, false);                  // handed out, held
        CPPUNIT_ASSERT_EQUAL(uint64_t(32), b.tracker.counts().delivered);
        // The report comes: moved from delivered to lost, reported at their items.
        b.tracker.mark_substituted(4, 8);
        const auto& c = b.tracker.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(24), c.delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), c.lost_gap);
        b.drain();
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.reported(rx_event::reason::zero_substituted));
        bool found = false;
        for (const auto& e : b.events)
            found |= e.cause == rx_event::reason::zero_substituted && e.item == 4 &&
                     e.device_item == 4 && e.count == 8;
        CPPUNIT_ASSERT(found);
        // Released later, and the stream goes on: nothing else moves.
        b.tracker.on_release(32, 32);
        b.stream(4, 12);
        CPPUNIT_ASSERT_EQUAL(uint64_t(96 - 8), b.tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.tracker.counts().lost());
    }

    void test_substituted_items_read_as_zeros()
    {
        // Reported substituted, yet the slot holds other data (a wrong report): a gap
        // must still read as zeros. consume() checks every reported item is zero.
        bench b;
        b.tracker.mark_substituted(8, 8);
        b.stream(0, 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.tracker.counts().lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.reported(rx_event::reason::zero_substituted));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.errors.mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(24), b.tracker.counts().delivered);
    }

    void test_reported_while_half_handed_out()
    {
        bench b;
        b.zeros = { 16, 17, 18, 19, 20, 21, 22, 23 }; // packet 2
        b.stream(0, 2, false);
        b.device_writes(2);
        b.device_writes(3);
        b.tracker.on_progress(32, 32);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.consume(4, 32, false)); // 16..19 out
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.errors.mismatches); // zeros, not yet known
        b.errors = {};
        b.tracker.mark_substituted(16, 8); // 4 handed out, 4 not yet
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), b.tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.tracker.counts().lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), b.consume(12, 32));
        CPPUNIT_ASSERT_EQUAL(uint64_t(24), b.tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.tracker.counts().lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.reported(rx_event::reason::zero_substituted));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.errors.mismatches);
    }

    void test_already_lost_is_not_counted_twice()
    {
        bench b;
        // Packet 2 is lost on the way, and the device reports it substituted too.
        b.lost_packets = { 2 };
        b.tracker.mark_substituted(16, 8);
        b.stream(0, 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.tracker.counts().lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.reported(rx_event::reason::packet_lost));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.reported(rx_event::reason::zero_substituted));
        // Reported again after hand-out: still counted once.
        b.tracker.mark_substituted(16, 8);
        b.tracker.mark_substituted(16, 8);
        CPPUNIT_ASSERT_EQUAL(uint64_t(24), b.tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), b.tracker.counts().lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.tracker.substitutions_unmatched());
    }

    void test_then_overwritten_is_not_counted_twice()
    {
        bench b;
        b.zeros = { 0, 1, 2, 3 };
        b.stream(0, 4, false);            // held, not released
        b.tracker.mark_substituted(0, 4); // half of packet 0
        // The device laps packets 0 and 1 while they are held: overwritten.
        for (uint64_t p = 4; p < 10; p++)
            b.device_writes(p);
        b.tracker.on_release(32, 10 * P);
        const auto& c = b.tracker.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), c.lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), c.lost_overwritten); // 16 minus the 4 zeros
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), c.delivered);
        // Reported after it was overwritten: nothing left to move.
        b.tracker.mark_substituted(8, 8);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.tracker.counts().lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(32),
                             b.tracker.counts().delivered + b.tracker.counts().lost());
    }

    void test_too_late_is_unmatched_and_reset_clears()
    {
        bench b;
        b.stream(0, 16);                  // the slots now hold packets 8..15
        b.tracker.mark_substituted(8, 4); // packet 1: its slot moved on a ring ago
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.tracker.substitutions_unmatched());
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 * P), b.tracker.counts().delivered);
        b.tracker.mark_substituted(5, 0); // nothing
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.tracker.substitutions_unmatched());
        // Pending ranges do not survive a new run.
        b.tracker.mark_substituted(1000, 8);
        b.tracker.reset();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.tracker.substitutions_unmatched());
        b.next = 0;
        b.stream(0, 200);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.tracker.counts().lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.errors.mismatches);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_loss_substituted);
