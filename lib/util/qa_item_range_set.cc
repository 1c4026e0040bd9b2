/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "item_range_set.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <random>
#include <vector>

using namespace gr::rdma;

class qa_item_range_set : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_item_range_set);
    CPPUNIT_TEST(test_touching_ranges_merge);
    CPPUNIT_TEST(test_range_inside_a_later_one_counts_once);
    CPPUNIT_TEST(test_range_spanning_several_absorbs_them);
    CPPUNIT_TEST(test_overlap_of_a_query_inside_one_range);
    CPPUNIT_TEST(test_empty_range_adds_nothing);
    CPPUNIT_TEST(test_random_ranges_match_a_bitmap);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_touching_ranges_merge()
    {
        item_range_set s;
        s.add(10, 20);
        s.add(20, 30);
        s.add(0, 10);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s.ranges().size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(30), s.size());
    }

    void test_range_inside_a_later_one_counts_once()
    {
        // A small report first, the big one around it later (the overload run's order:
        // a device overflow, then the gap it lies in overwritten).
        item_range_set s;
        s.add(500, 510);
        s.add(100, 1000);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s.ranges().size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(900), s.size());
        CPPUNIT_ASSERT(s.contains(700)); // past the small range: still covered
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), s.overlap(500, 510));
        // The big one first, the small one inside it later.
        item_range_set t;
        t.add(100, 1000);
        t.add(500, 510);
        CPPUNIT_ASSERT_EQUAL(uint64_t(900), t.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), t.overlap(500, 510));
    }

    void test_range_spanning_several_absorbs_them()
    {
        item_range_set s;
        s.add(10, 20);
        s.add(30, 40);
        s.add(50, 60);
        s.add(15, 55);
        CPPUNIT_ASSERT_EQUAL(size_t(1), s.ranges().size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), s.ranges().begin()->first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(60), s.ranges().begin()->second);
    }

    void test_overlap_of_a_query_inside_one_range()
    {
        item_range_set s;
        s.add(100, 200);
        s.add(300, 400);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), s.overlap(150, 160));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.overlap(200, 300));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), s.overlap(150, 350));
        CPPUNIT_ASSERT(!s.contains(99));
        CPPUNIT_ASSERT(!s.contains(200));
        CPPUNIT_ASSERT(s.contains(399));
    }

    void test_empty_range_adds_nothing()
    {
        item_range_set s;
        s.add(5, 5);
        s.add(9, 3);
        CPPUNIT_ASSERT(s.empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.size());
    }

    void test_random_ranges_match_a_bitmap()
    {
        std::mt19937 rng(7);
        for (int round = 0; round < 200; round++) {
            item_range_set s;
            std::vector<bool> bitmap(300, false);
            for (int i = 0; i < 12; i++) {
                const uint64_t a = rng() % 280, n = rng() % 40;
                const uint64_t b = std::min<uint64_t>(a + n, bitmap.size());
                s.add(a, b);
                for (uint64_t k = a; k < b; k++)
                    bitmap[k] = true;
            }
            // Disjoint and not touching: every range a separate run of the bitmap.
            uint64_t last_end = 0;
            bool first = true;
            for (const auto& [lo, hi] : s.ranges()) {
                CPPUNIT_ASSERT(hi > lo);
                CPPUNIT_ASSERT(first || lo > last_end);
                first = false;
                last_end = hi;
            }
            for (int q = 0; q < 50; q++) {
                const uint64_t a = rng() % 300, b = a + rng() % (300 - a + 1);
                uint64_t expected = 0;
                for (uint64_t k = a; k < b; k++)
                    expected += bitmap[k];
                CPPUNIT_ASSERT_EQUAL(expected, s.overlap(a, b));
            }
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_item_range_set);
