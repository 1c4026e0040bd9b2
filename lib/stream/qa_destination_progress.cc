/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Finality over several destinations (docs/links.md): one destination behaves as
// progress_tracker does, several only land what every destination concerned has
// notified, and notifications the schedule cannot have sent are ignored and counted.

#include "destination_progress.h"
#include "progress_tracker.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <random>
#include <string>

using namespace gr::rdma;
using weights_t = std::array<uint16_t, regs::link_schedule::max_destinations>;
using verdict = destination_progress::verdict;

namespace {
constexpr uint64_t ipm = 256; // items per message
constexpr uint32_t item_bytes = 4;
constexpr uint32_t whole = ipm * item_bytes;
constexpr uint64_t no_bound = UINT64_MAX;
} // namespace

class qa_destination_progress : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_destination_progress);
    CPPUNIT_TEST(test_one_destination_agrees_with_progress_tracker);
    CPPUNIT_TEST(test_two_destinations_land_only_what_both_notified);
    CPPUNIT_TEST(test_a_silent_destination_holds_the_stream_back);
    CPPUNIT_TEST(test_what_the_wire_cannot_prove_is_ignored);
    CPPUNIT_TEST(test_finite_burst_ends_on_every_destination);
    CPPUNIT_TEST(test_nothing_lands_beyond_the_known_schedule);
    CPPUNIT_TEST(test_a_held_immediate_is_judged_by_the_epoch_learned_later);
    CPPUNIT_TEST(test_a_forged_immediate_never_displaces_a_held_one);
    CPPUNIT_TEST(test_the_clock_passes_a_dead_destination);
    CPPUNIT_TEST(test_each_destination_settles_its_own_messages);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_one_destination_agrees_with_progress_tracker()
    {
        std::mt19937 rng(3);
        for (uint32_t n : { 1u, 4u, 16u }) {
            regs::link_schedule s;
            weights_t w{};
            w[0] = 1;
            s.begin_epoch(0, w, n);
            destination_progress p;
            p.reset(s, ipm, 0, n, item_bytes);
            progress_tracker t;
            t.reset(ipm, 0, n, item_bytes);
            uint64_t m = 0;
            for (int k = 0; k < 2000; k++) {
                // Mostly the next notification point, sometimes a repeat, sometimes a
                // skip (lost notifications), sometimes a message without one.
                const int kind = rng() % 8;
                if (kind == 0 && m >= n)
                    m -= n;
                else if (kind == 1)
                    m += 1;
                else
                    m += n * (1 + rng() % 3);
                const uint64_t named = m == 0 ? 0 : m - 1;
                const auto a = p.on_immediate(0, uint32_t(named), whole, no_bound);
                const auto b = t.on_immediate(uint32_t(named), whole, no_bound);
                CPPUNIT_ASSERT_EQUAL(b == progress_tracker::verdict::accepted,
                                     a == verdict::accepted);
                CPPUNIT_ASSERT_EQUAL(t.landed_messages(), p.landed_messages());
            }
        }
    }

    void test_two_destinations_land_only_what_both_notified()
    {
        // 3:1: A A B A per period; windows of 4: A notifies 3, 7, ...; B 2, 6, ...
        regs::link_schedule s;
        weights_t w{};
        w[0] = 3;
        w[1] = 1;
        s.begin_epoch(0, w, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        // A's notification for 3 arrives first: B's message 2 is not proven yet.
        CPPUNIT_ASSERT(p.on_immediate(0, 3, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.frontier(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), p.landed_messages());
        // B's for 2 then lands everything up to A's 3.
        CPPUNIT_ASSERT(p.on_immediate(1, 2, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.landed_messages());
        // B runs ahead (window 2), A lags: the stream stops at A's first unproven, 4.
        CPPUNIT_ASSERT(p.on_immediate(1, 10, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.landed_messages());
        CPPUNIT_ASSERT(p.on_immediate(0, 11, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), p.landed_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.out_of_sequence(0) + p.out_of_sequence(1));
    }

    void test_a_silent_destination_holds_the_stream_back()
    {
        // A dead link's messages are proven by nothing but the clock (the caller's
        // grace): notifications of the others never land them.
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1; // A B A B
        s.begin_epoch(0, w, 8);
        destination_progress p;
        p.reset(s, ipm, 0, 8, item_bytes);
        for (uint32_t i = 6; i < 200; i += 8)
            CPPUNIT_ASSERT(p.on_immediate(0, i, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.landed_messages()); // message 1 is B's
    }

    void test_what_the_wire_cannot_prove_is_ignored()
    {
        regs::link_schedule s;
        weights_t w{};
        w[0] = 3;
        w[1] = 1;
        s.begin_epoch(0, w, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        // Message 3 was scheduled to A: a notification of it on B's QP is forged.
        CPPUNIT_ASSERT(p.on_immediate(1, 3, whole, no_bound) ==
                       verdict::wrong_destination);
        CPPUNIT_ASSERT(p.on_immediate(7, 3, whole, no_bound) ==
                       verdict::wrong_destination);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), p.wrong_destination());
        CPPUNIT_ASSERT(p.on_immediate(0, 3, 0, no_bound) == verdict::wrong_length);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.wrong_length());
        // Message 3 ends at item 1024: not before the device produced that many.
        CPPUNIT_ASSERT(p.on_immediate(0, 3, whole, 1023) == verdict::implausible);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.implausible());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.frontier(0));
        CPPUNIT_ASSERT(p.on_immediate(0, 3, whole, 1024) == verdict::accepted);
        // Behind the frontier: stale, not counted as an attack.
        CPPUNIT_ASSERT(p.on_immediate(0, 1, whole, no_bound) == verdict::stale);
        // A's message 4 carries no notification (A's last in window 1 is 7): accepted,
        // counted out of sequence.
        CPPUNIT_ASSERT(p.on_immediate(0, 4, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.out_of_sequence(0));
    }

    void test_finite_burst_ends_on_every_destination()
    {
        // 10 messages, the last one half full; 1:1 and no notification window: each
        // destination notifies its last message (8 on A, 9 on B).
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1;
        s.begin_epoch(0, w, 0);
        destination_progress p;
        const uint64_t total = 9 * ipm + ipm / 2;
        p.reset(s, ipm, total, 0, item_bytes);
        CPPUNIT_ASSERT(p.on_immediate(1, 9, whole, no_bound) == verdict::wrong_length);
        CPPUNIT_ASSERT(p.on_immediate(1, 9, whole / 2, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.landed_messages());
        CPPUNIT_ASSERT(p.on_immediate(0, 8, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), p.landed_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.out_of_sequence(0) + p.out_of_sequence(1));
        // Nothing past the burst.
        CPPUNIT_ASSERT(p.on_immediate(0, 10, whole, no_bound) != verdict::accepted);
    }

    void test_nothing_lands_beyond_the_known_schedule()
    {
        // 1:1 and windows of 4: 0 carries 0 2 (notifies 2), 1 carries 1 3 (notifies 3).
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1;
        s.begin_epoch(0, w, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        p.set_known(4);
        CPPUNIT_ASSERT(p.on_immediate(0, 2, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(1, 3, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.landed_messages());
        // Window 1 is not known yet: its notifications wait, nothing lands.
        CPPUNIT_ASSERT(p.on_immediate(0, 6, whole, no_bound) == verdict::held);
        CPPUNIT_ASSERT(p.on_immediate(1, 7, whole, no_bound) == verdict::held);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.landed_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.frontier(0) + 1);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), p.held());
        // Known below: no change (the known region never shrinks).
        p.set_known(2);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), p.known());
        p.set_known(8);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.landed_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), p.frontier(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.frontier(1));
    }

    void test_a_held_immediate_is_judged_by_the_epoch_learned_later()
    {
        // Epoch 0 1:1; the device begins epoch 1 at message 4 with destination 1 out.
        // Destination 0 notifies 7 (all of window 1 is its own in epoch 1): by epoch 0
        // message 7 would be destination 1's. Held until the epoch is known, it is then
        // accepted; the same immediate judged by epoch 0 is a wrong destination.
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1;
        s.begin_epoch(0, w, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        p.set_known(4);
        CPPUNIT_ASSERT(p.on_immediate(0, 2, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(1, 3, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(0, 7, whole, no_bound) == verdict::held);
        weights_t w1{};
        w1[0] = 1;
        s.begin_epoch(4, w1, 4);
        p.set_known(8);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.frontier(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.landed_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.wrong_destination());

        regs::link_schedule old;
        old.begin_epoch(0, w, 4);
        destination_progress q;
        q.reset(old, ipm, 0, 4, item_bytes);
        CPPUNIT_ASSERT(q.on_immediate(0, 7, whole, no_bound) ==
                       verdict::wrong_destination);
    }

    void test_a_forged_immediate_never_displaces_a_held_one()
    {
        // Beyond the known schedule only the destination check must wait. A forged
        // immediate far ahead (a zero-length WRITE with an immediate passes the NIC's
        // rkey check: it names no memory) displaced the genuine held one and held every
        // later one back, destination 0's frontier frozen (issue 31): judged at once
        // now, by its length and by what the device can have produced.
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1;
        s.begin_epoch(0, w, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        p.set_known(4);
        CPPUNIT_ASSERT(p.on_immediate(0, 2, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(1, 3, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(0, 6, whole, no_bound) == verdict::held);
        CPPUNIT_ASSERT(p.on_immediate(0, 1u << 20, 0, no_bound) == verdict::wrong_length);
        CPPUNIT_ASSERT(p.on_immediate(0, 1u << 20, whole, 8 * ipm) ==
                       verdict::implausible);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.held());
        CPPUNIT_ASSERT(p.on_immediate(1, 7, whole, no_bound) == verdict::held);
        p.set_known(8);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), p.frontier(0)); // the genuine 6 judged
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.landed_messages());
    }

    void test_the_clock_passes_a_dead_destination()
    {
        // Destination 1 never notifies again after message 3; the clock made messages
        // below 10 final: the stream's frontier passes them and goes on by
        // destination 0's (epoch 1 from message 8: destination 0 alone).
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1;
        s.begin_epoch(0, w, 4);
        weights_t w1{};
        w1[0] = 1;
        s.begin_epoch(8, w1, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        p.set_known(16);
        CPPUNIT_ASSERT(p.on_immediate(0, 2, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(1, 3, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(0, 6, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT(p.on_immediate(0, 15, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), p.landed_messages()); // 5 is destination 1's
        p.pass_final(10);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), p.landed_messages());
        // Never beyond the known schedule.
        destination_progress q;
        q.reset(s, ipm, 0, 4, item_bytes);
        q.set_known(4);
        q.pass_final(12);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), q.landed_messages());
    }

    void test_each_destination_settles_its_own_messages()
    {
        // A B A B, windows of 4: A notifies 2, 6, ...; B 3, 7, ... A notification
        // settles its own destination's messages (its path is in order), nothing of
        // the other's, and never by the clock; a destination not waited for settles.
        regs::link_schedule s;
        weights_t w{};
        w[0] = w[1] = 1;
        s.begin_epoch(0, w, 4);
        destination_progress p;
        p.reset(s, ipm, 0, 4, item_bytes);
        CPPUNIT_ASSERT(p.on_immediate(0, 6, whole, no_bound) == verdict::accepted);
        for (uint64_t m = 0; m < 8; m++)
            CPPUNIT_ASSERT_EQUAL(m % 2 == 0, p.settled(m));      // A's only
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.settled_messages()); // 1 is B's
        p.pass_final(8); // the clock: final, not settled
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.landed_messages());
        CPPUNIT_ASSERT(!p.settled(1));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), p.settled_messages());
        CPPUNIT_ASSERT(p.on_immediate(1, 3, whole, no_bound) == verdict::accepted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), p.settled_messages()); // 5 is B's
        // B not waited for (gone quiet, declared down): its messages settle.
        p.set_unwaited(1u << 1);
        CPPUNIT_ASSERT(p.settled(5));
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), p.settled_messages()); // 8: A's, not notified
        // Nothing beyond the known schedule settles.
        p.set_known(6);
        destination_progress q;
        q.reset(s, ipm, 0, 4, item_bytes);
        q.set_known(4);
        q.set_unwaited(3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), q.settled_messages());
        CPPUNIT_ASSERT(!q.settled(4));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_destination_progress);
