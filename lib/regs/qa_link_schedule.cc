/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The multi-link schedule of docs/links.md: shares and local indices, smooth weighted
// round-robin per epoch, and which messages carry immediate data, each against a
// brute-force reading of the page's rule.

#include "link_schedule.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

using gr::rdma::regs::link_schedule;
using weights_t = std::array<uint16_t, link_schedule::max_destinations>;

namespace {

weights_t weights(std::initializer_list<uint16_t> w)
{
    weights_t out{};
    size_t d = 0;
    for (uint16_t x : w)
        out[d++] = x;
    return out;
}

// docs/links.md, read literally: i carries immediate data when no later message of the
// same destination lies in its window (or before the burst's end).
bool immediate_by_definition(const link_schedule& s, uint64_t i, uint32_t n, uint64_t end)
{
    if (end > 0 && i >= end)
        return false;
    const uint8_t d = s.destination_of(i);
    uint64_t limit = UINT64_MAX;
    if (n > 0)
        limit = (i / n + 1) * n;
    if (end > 0 && end < limit)
        limit = end;
    if (limit == UINT64_MAX)
        return false;
    for (uint64_t j = i + 1; j < limit; j++)
        if (s.destination_of(j) == d)
            return false;
    return true;
}

} // namespace

class qa_link_schedule : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_link_schedule);
    CPPUNIT_TEST(test_one_destination_is_todays_rule);
    CPPUNIT_TEST(test_three_to_one);
    CPPUNIT_TEST(test_weights_exact_per_period_and_smooth);
    CPPUNIT_TEST(test_immediates_match_the_definition);
    CPPUNIT_TEST(test_every_destination_notifies_in_every_window_it_uses);
    CPPUNIT_TEST(test_shares_are_dense_and_disjoint);
    CPPUNIT_TEST(test_epochs);
    CPPUNIT_TEST(test_refusals_name_the_fix);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_one_destination_is_todays_rule()
    {
        // docs/register-map.md, "Immediate data": (m + 1) mod N = 0, and a burst's last.
        for (uint16_t w : { 1, 5 }) {
            for (uint32_t n : { 0u, 1u, 4u, 16u }) {
                link_schedule s;
                s.begin_epoch(0, weights({ w }), n);
                const uint64_t end = 10;
                for (uint64_t m = 0; m < 40; m++) {
                    CPPUNIT_ASSERT_EQUAL(uint8_t(0), s.destination_of(m));
                    const bool today = (n > 0 && (m + 1) % n == 0) || m + 1 == end;
                    CPPUNIT_ASSERT_EQUAL_MESSAGE("m " + std::to_string(m) + " N " +
                                                     std::to_string(n),
                                                 today && m < end,
                                                 s.carries_immediate(m, n, end));
                    CPPUNIT_ASSERT_EQUAL(n > 0 && (m + 1) % n == 0,
                                         s.carries_immediate(m, n));
                }
            }
        }
        // docs/register-map.md's example: N = 4, a burst of 10: 3, 7 and 9.
        link_schedule s;
        s.begin_epoch(0, weights({ 1 }), 4);
        for (uint64_t m = 0; m < 10; m++)
            CPPUNIT_ASSERT_EQUAL(m == 3 || m == 7 || m == 9,
                                 s.carries_immediate(m, 4, 10));
    }

    void test_three_to_one()
    {
        // docs/links.md: weights 3:1 give A A B A, and again.
        link_schedule s;
        s.begin_epoch(0, weights({ 3, 1 }), 4);
        const uint8_t want[] = { 0, 0, 1, 0, 0, 0, 1, 0 };
        for (uint64_t i = 0; i < 8; i++)
            CPPUNIT_ASSERT_EQUAL(want[i], s.destination_of(i));
        // Window [0, 4): A's last is 3, B's only is 2.
        CPPUNIT_ASSERT(!s.carries_immediate(0, 4));
        CPPUNIT_ASSERT(!s.carries_immediate(1, 4));
        CPPUNIT_ASSERT(s.carries_immediate(2, 4));
        CPPUNIT_ASSERT(s.carries_immediate(3, 4));
    }

    void test_weights_exact_per_period_and_smooth()
    {
        std::mt19937 rng(7);
        for (int round = 0; round < 200; round++) {
            weights_t w{};
            unsigned total = 0;
            for (auto& x : w) {
                x = rng() % 3 == 0 ? 0 : static_cast<uint16_t>(rng() % 100);
                total += x;
            }
            if (total == 0)
                continue;
            link_schedule s;
            s.begin_epoch(0, w, 0);
            CPPUNIT_ASSERT_EQUAL(total, s.period());
            std::array<uint64_t, link_schedule::max_destinations> count{};
            for (uint64_t i = 0; i < 3 * uint64_t(total); i++) {
                const uint8_t d = s.destination_of(i);
                CPPUNIT_ASSERT(d < link_schedule::max_destinations);
                CPPUNIT_ASSERT(w[d] > 0);
                count[d]++;
                // Smooth: no destination runs ahead of or behind its share by a
                // message or more (what keeps per-link counters within 1 % of the
                // weights over any long window).
                for (unsigned e = 0; e < link_schedule::max_destinations; e++) {
                    const double ideal = double(i + 1) * w[e] / total;
                    CPPUNIT_ASSERT_MESSAGE("destination " + std::to_string(e) +
                                               " after " + std::to_string(i + 1),
                                           std::fabs(double(count[e]) - ideal) < 1.0);
                }
            }
            for (unsigned d = 0; d < link_schedule::max_destinations; d++)
                CPPUNIT_ASSERT_EQUAL(3 * uint64_t(w[d]), count[d]);
        }
    }

    void test_immediates_match_the_definition()
    {
        std::mt19937 rng(11);
        for (int round = 0; round < 300; round++) {
            weights_t w{};
            const unsigned used = 1 + rng() % link_schedule::max_destinations;
            for (unsigned d = 0; d < used; d++)
                w[d] = static_cast<uint16_t>(rng() % 6);
            w[rng() % used] = static_cast<uint16_t>(1 + rng() % 6);
            const uint32_t n = rng() % 4 == 0 ? 0 : 1 + rng() % 24;
            const uint64_t end = rng() % 2 ? 0 : 1 + rng() % 200;
            link_schedule s;
            s.begin_epoch(0, w, n);
            for (uint64_t i = 0; i < 220; i++)
                CPPUNIT_ASSERT_EQUAL_MESSAGE("i " + std::to_string(i) + " N " +
                                                 std::to_string(n) + " end " +
                                                 std::to_string(end),
                                             immediate_by_definition(s, i, n, end),
                                             s.carries_immediate(i, n, end));
        }
    }

    void test_every_destination_notifies_in_every_window_it_uses()
    {
        // What the host's per-destination frontier relies on: a destination that
        // carries a message of a window also carries that window's notification.
        link_schedule s;
        s.begin_epoch(0, weights({ 5, 2, 0, 1 }), 8);
        for (uint64_t w = 0; w < 50; w++) {
            std::array<int, link_schedule::max_destinations> carried{}, notified{};
            for (uint64_t i = w * 8; i < w * 8 + 8; i++) {
                carried[s.destination_of(i)]++;
                notified[s.destination_of(i)] += s.carries_immediate(i, 8);
            }
            for (unsigned d = 0; d < link_schedule::max_destinations; d++)
                CPPUNIT_ASSERT_EQUAL(carried[d] > 0 ? 1 : 0, notified[d]);
        }
    }

    void test_shares_are_dense_and_disjoint()
    {
        for (unsigned h_count : { 1u, 2u, 3u }) {
            for (uint64_t block : { 1u, 4u, 16u }) {
                link_schedule s(h_count, block);
                std::array<uint64_t, link_schedule::max_destinations> next_local{};
                for (uint64_t m = 0; m < 500; m++) {
                    const unsigned h = s.share_of(m);
                    CPPUNIT_ASSERT_EQUAL(unsigned((m / block) % h_count), h);
                    // Each share sees its messages as 0, 1, 2, ... in stream order.
                    CPPUNIT_ASSERT_EQUAL(next_local[h]++, s.local_index(m));
                    CPPUNIT_ASSERT_EQUAL(m, s.stream_message(h, s.local_index(m)));
                    // Below m + 1 every share has as many messages as it has seen.
                    for (unsigned g = 0; g < h_count; g++)
                        CPPUNIT_ASSERT_EQUAL(next_local[g], s.local_count(g, m + 1));
                }
                if (h_count == 1)
                    CPPUNIT_ASSERT_EQUAL(uint64_t(499), s.local_index(499));
            }
        }
    }

    void test_epochs()
    {
        link_schedule s;
        s.begin_epoch(0, weights({ 1, 1 }), 4);
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), s.destination_of(5));
        // Link 1 fails: from window 8 on, link 0 takes everything.
        s.begin_epoch(8, weights({ 1, 0 }), 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), s.epoch_first());
        for (uint64_t i = 8; i < 40; i++) {
            CPPUNIT_ASSERT_EQUAL(uint8_t(0), s.destination_of(i));
            CPPUNIT_ASSERT_EQUAL((i + 1) % 4 == 0, s.carries_immediate(i, 4));
        }
        // The credits restart: the pattern counts from the epoch's first message.
        s.begin_epoch(12, weights({ 0, 3, 1 }), 4);
        const uint8_t want[] = { 1, 1, 2, 1 };
        for (uint64_t i = 12; i < 16; i++)
            CPPUNIT_ASSERT_EQUAL(want[i - 12], s.destination_of(i));
        // Messages sent before an epoch keep the epoch they were sent in.
        CPPUNIT_ASSERT_EQUAL(uint8_t(0), s.destination_of(11));
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), s.destination_of(5));
        CPPUNIT_ASSERT(s.carries_immediate(11, 4));
        CPPUNIT_ASSERT(s.carries_immediate(7, 4) && s.carries_immediate(6, 4));
        // No weight anywhere: nothing goes anywhere, nothing notifies.
        s.begin_epoch(16, weights({}), 4);
        CPPUNIT_ASSERT_EQUAL(link_schedule::none, s.destination_of(20));
        CPPUNIT_ASSERT(!s.carries_immediate(19, 4, 30));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), s.epochs());
        // Four epochs are kept: the first is forgotten once a fifth begins.
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), s.destination_of(5));
        s.begin_epoch(24, weights({ 2 }), 4);
        CPPUNIT_ASSERT_EQUAL(link_schedule::none, s.destination_of(5));
        CPPUNIT_ASSERT_EQUAL(uint8_t(0), s.destination_of(9));
        // A second epoch from the same message replaces it (nothing was sent in it).
        s.begin_epoch(24, weights({ 0, 1 }), 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), s.epochs());
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), s.destination_of(30));
    }

    void test_refusals_name_the_fix()
    {
        auto says = [](auto&& f, const std::string& text) {
            try {
                f();
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(
                    e.what(), std::string(e.what()).find(text) != std::string::npos);
                return;
            }
            CPPUNIT_FAIL("no error; expected one saying: " + text);
        };
        says([] { link_schedule(0, 16); }, "use 1..8");
        says([] { link_schedule(9, 16); }, "use 1..8");
        says([] { link_schedule(2, 0); }, "use 1 or more");
        link_schedule s;
        says([&] { s.begin_epoch(6, weights({ 1 }), 4); }, "multiple of the interval");
        s.begin_epoch(8, weights({ 1 }), 4);
        says([&] { s.begin_epoch(4, weights({ 1 }), 4); }, "only move forward");
        says(
            [&] {
                s.begin_epoch(12, weights({ 1000, 100 }), 4);
            },
            "divide them by a common factor");
        // A refused epoch leaves the schedule as it was.
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), s.epoch_first());
        CPPUNIT_ASSERT_EQUAL(1u, s.period());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_link_schedule);
