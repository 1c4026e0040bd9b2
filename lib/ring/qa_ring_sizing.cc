/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sizing rule (ring_bytes_for): worked examples, properties over random inputs,
// and the arguments it rejects.

#include "qa_ring_helpers.h"
#include "ring_sizing.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <spdlog/fmt/fmt.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

using namespace qa_ring;

class qa_ring_sizing : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ring_sizing);
    CPPUNIT_TEST(test_sizing_examples);
    CPPUNIT_TEST(test_sizing_properties);
    CPPUNIT_TEST(test_sizing_rejections);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_sizing_examples()
    {
        // 20 MS/s of sc16 (4 bytes), 100 ms: 8,000,000 bytes -> 1954 pages of 4 KiB.
        CPPUNIT_ASSERT_EQUAL(size_t(8003584), ring_bytes_for(20e6, 4, 0.1, 4096, 4096));
        // The same with 2 MiB hugepages: 4 hugepages.
        CPPUNIT_ASSERT_EQUAL(size_t(8388608),
                             ring_bytes_for(20e6, 4, 0.1, 4096, 2 * mib));
        // fc32 (8 bytes), 1024-item packets of 8192 bytes: 16e6 -> 1954 granules.
        CPPUNIT_ASSERT_EQUAL(size_t(16007168), ring_bytes_for(20e6, 8, 0.1, 8192, 4096));
        // fc32 in 8000-byte packets: multiples of lcm(4096, 8000) = 512000 -> 32 of them.
        CPPUNIT_ASSERT_EQUAL(size_t(16384000), ring_bytes_for(20e6, 8, 0.1, 8000, 4096));
        // At least one granule, however short the budget.
        CPPUNIT_ASSERT_EQUAL(size_t(8192), ring_bytes_for(1000, 4, 1e-6, 8192, 4096));
        // Floating-point noise does not add a page: 409600 * 1.1 is 450560.00000000006
        // in binary, i.e. exactly 440 pages of sc16, not 441.
        CPPUNIT_ASSERT_EQUAL(size_t(440 * 4096),
                             ring_bytes_for(409600, 4, 1.1, 4096, 4096));
        // Just below GNU Radio's 2^31-item limit.
        CPPUNIT_ASSERT_EQUAL(size_t(2147000320), ring_bytes_for(1e9, 1, 2.147, 1, 4096));
    }

    void test_sizing_properties()
    {
        std::mt19937_64 rng(20260101);
        std::uniform_real_distribution<double> log_rate(3, 9.5), log_latency(-5, 0.5);
        const size_t items[] = { 1, 2, 4, 8, 16 };
        size_t checked = 0, rejected = 0;
        for (int i = 0; i < 20000; i++) {
            const size_t item = items[rng() % 5];
            const size_t granule =
                item * (rng() % 2 ? size_t(1) << (rng() % 14) : 1 + rng() % 3000);
            const size_t page = rng() % 2 ? size_t(4096) : 2 * mib;
            const double rate = std::pow(10.0, log_rate(rng));
            const double latency = std::pow(10.0, log_latency(rng));
            const size_t unit = std::lcm(page, granule);
            const double wanted = rate * latency * item; // bytes
            const double floor_bytes = std::max(wanted, double(granule));
            const std::string what =
                fmt::format("rate {} item {} latency {} granule {} page {}",
                            rate,
                            item,
                            latency,
                            granule,
                            page);
            size_t bytes = 0;
            try {
                bytes = ring_bytes_for(rate, item, latency, granule, page);
            } catch (const std::invalid_argument& e) {
                // Only legitimate when the rounded ring reaches 2^31 items.
                const double rounded = std::ceil(floor_bytes * (1 - 1e-9) / unit) * unit;
                CPPUNIT_ASSERT_MESSAGE(what + ": " + e.what(),
                                       rounded / item > double(INT32_MAX));
                ASSERT_CONTAINS(std::string(e.what()), "lower the latency budget");
                rejected++;
                continue;
            }
            CPPUNIT_ASSERT_MESSAGE(what, bytes % page == 0);
            CPPUNIT_ASSERT_MESSAGE(what, bytes % granule == 0);
            CPPUNIT_ASSERT_MESSAGE(what, bytes % item == 0);
            CPPUNIT_ASSERT_MESSAGE(what, bytes / item <= size_t(INT32_MAX));
            CPPUNIT_ASSERT_MESSAGE(what, double(bytes) >= floor_bytes * (1 - 1e-9));
            CPPUNIT_ASSERT_MESSAGE(what, double(bytes) < floor_bytes + item + unit);
            checked++;
        }
        CPPUNIT_ASSERT(checked > 15000);
        CPPUNIT_ASSERT(rejected > 0); // the generator reaches the limit too
    }

    void test_sizing_rejections()
    {
        auto message = [](auto&& call) -> std::string {
            try {
                call();
            } catch (const std::invalid_argument& e) {
                return e.what();
            }
            CPPUNIT_FAIL("expected std::invalid_argument");
            return {};
        };
        const double nan = std::nan("");
        const double inf = INFINITY;
        for (const double rate : { 0.0, -1.0, nan, inf })
            ASSERT_CONTAINS(message([&] { ring_bytes_for(rate, 4, 0.1, 4096, 4096); }),
                            "sample rate must be positive");
        for (const double latency : { 0.0, -0.1, nan, inf })
            ASSERT_CONTAINS(message([&] { ring_bytes_for(1e6, 4, latency, 4096, 4096); }),
                            "latency budget must be positive");
        ASSERT_CONTAINS(message([] { ring_bytes_for(1e6, 0, 0.1, 4096, 4096); }),
                        "item size must be at least 1 byte");
        ASSERT_CONTAINS(
            message([] { ring_bytes_for(1e6, 4, 0.1, 6, 4096); }),
            "granule (6 bytes) must be a nonzero multiple of the item size (4");
        ASSERT_CONTAINS(message([] { ring_bytes_for(1e6, 4, 0.1, 0, 4096); }),
                        "granule (0 bytes)");
        ASSERT_CONTAINS(message([] { ring_bytes_for(1e6, 4, 0.1, 4096, 0); }),
                        "page size");
        // 1 GS/s for 2.2 s is 2.2e9 items: over 2^31. The largest budget that fits is
        // (2^31 - 1) rounded down to 4096 items, over the rate.
        const std::string too_long =
            message([] { ring_bytes_for(1e9, 4, 2.2, 4096, 4096); });
        ASSERT_CONTAINS(too_long, "fewer than 2^31 items");
        ASSERT_CONTAINS(too_long, "lower the latency budget to at most 2.14748 s");
        // Rounding alone may cross the limit: 2^31 - 1 items round up to 2^31.
        const std::string rounded =
            message([] { ring_bytes_for(double(INT32_MAX), 1, 1.0, 1, 4096); });
        ASSERT_CONTAINS(rounded, "lower the latency budget");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ring_sizing);
