/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft completion queue: capacity, FIFO order, overflow, and wait() semantics —
// above all that a wake-up is never lost between a consumer arming and a producer
// pushing.

#include "qa_nic_fixture.h"
#include "soft_completion_queue.h"
#include "soft_nic.h"
#include <cppunit/TestFixture.h>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

using namespace gr::rdma;
using namespace gr::rdma::nic;
using namespace std::chrono_literals;

namespace {
work_completion wc_with_id(uint64_t id)
{
    work_completion wc;
    wc.wr_id = id;
    wc.imm_data = static_cast<uint32_t>(id * 3);
    return wc;
}
} // namespace

class qa_completion_queue : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_completion_queue);
    CPPUNIT_TEST(test_capacity);
    CPPUNIT_TEST(test_fifo_and_overflow);
    CPPUNIT_TEST(test_wait_returns);
    CPPUNIT_TEST(test_interrupt);
    CPPUNIT_TEST(test_stress_no_lost_wakeups);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_capacity()
    {
        soft_nic nic(qa_nic::test_config(false));
        CPPUNIT_ASSERT_EQUAL(1, nic.create_cq(1)->capacity());
        CPPUNIT_ASSERT_EQUAL(8, nic.create_cq(5)->capacity());
        CPPUNIT_ASSERT_EQUAL(1024, nic.create_cq(1024)->capacity());
        CPPUNIT_ASSERT_THROW(nic.create_cq(0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(nic.create_cq(-3), std::invalid_argument);
        // A CQ of another device cannot serve this device's QPs.
        soft_nic other(qa_nic::test_config(false));
        auto foreign = other.create_cq(4);
        CPPUNIT_ASSERT_THROW(nic.alloc_pd()->create_qp(qp_type::uc, *foreign, 4),
                             std::invalid_argument);
    }

    void test_fifo_and_overflow()
    {
        completion_ring ring(3, nullptr);
        CPPUNIT_ASSERT_EQUAL(4, ring.capacity());
        for (uint64_t i = 0; i < 4; i++)
            CPPUNIT_ASSERT(ring.push(wc_with_id(i)));
        CPPUNIT_ASSERT(!ring.push(wc_with_id(4))); // full: dropped
        work_completion out[8];
        CPPUNIT_ASSERT_EQUAL(2, ring.pop(out, 2));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), out[0].wr_id);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), out[1].wr_id);
        CPPUNIT_ASSERT(ring.push(wc_with_id(5)));
        CPPUNIT_ASSERT(ring.push(wc_with_id(6)));
        CPPUNIT_ASSERT_EQUAL(4, ring.pop(out, 8));
        const uint64_t expected[] = { 2, 3, 5, 6 };
        for (int i = 0; i < 4; i++)
            CPPUNIT_ASSERT_EQUAL(expected[i], out[i].wr_id);
        CPPUNIT_ASSERT_EQUAL(0, ring.pop(out, 8));
        CPPUNIT_ASSERT_EQUAL(0, ring.pop(out, 0));
    }

    void test_wait_returns()
    {
        completion_ring ring(8, nullptr);
        // Timeout: false, after about the time asked.
        auto t0 = std::chrono::steady_clock::now();
        CPPUNIT_ASSERT(!ring.wait(20ms));
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - t0 >= 19ms);
        // Something queued: true at once.
        ring.push(wc_with_id(1));
        t0 = std::chrono::steady_clock::now();
        CPPUNIT_ASSERT(ring.wait(5s));
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - t0 < 1s);
        work_completion out[2];
        CPPUNIT_ASSERT_EQUAL(1, ring.pop(out, 2));
        // A push from another thread wakes a blocked wait.
        std::thread producer([&] {
            std::this_thread::sleep_for(20ms);
            ring.push(wc_with_id(2));
        });
        t0 = std::chrono::steady_clock::now();
        const bool woken = ring.wait(5s);
        const auto waited = std::chrono::steady_clock::now() - t0;
        producer.join();
        CPPUNIT_ASSERT(woken);
        CPPUNIT_ASSERT(waited < 2s);
        CPPUNIT_ASSERT_EQUAL(1, ring.pop(out, 2));
        // The stale signal of that wake-up does not fake a completion.
        CPPUNIT_ASSERT(!ring.wait(10ms));
    }

    void test_interrupt()
    {
        soft_nic nic(qa_nic::test_config(false));
        auto cq = nic.create_cq(8);
        std::thread stopper([&] {
            std::this_thread::sleep_for(20ms);
            cq->interrupt();
        });
        const auto t0 = std::chrono::steady_clock::now();
        const bool completed = cq->wait(10s);
        const auto waited = std::chrono::steady_clock::now() - t0;
        stopper.join();
        CPPUNIT_ASSERT(!completed);
        CPPUNIT_ASSERT(waited < 5s);
        // An interrupt before the wait is not lost either; it is consumed once.
        cq->interrupt();
        CPPUNIT_ASSERT(!cq->wait(10s));
        CPPUNIT_ASSERT(!cq->wait(1ms));
    }

    void test_stress_no_lost_wakeups()
    {
        // The producer pushes in bursts with pauses, so that the consumer keeps
        // emptying the ring and going to sleep: every arm/push interleaving gets hit.
        // A lost wake-up shows as a wait() that sleeps until its timeout although the
        // producer is busy; a reordering as a wrong wr_id.
        completion_ring ring(64, nullptr);
        constexpr uint64_t total = 200000;
        std::atomic<uint64_t> refused{ 0 };
        std::atomic<bool> abandoned{ false }; // the consumer gave up: test failed
        std::thread producer([&] {
            std::minstd_rand rng(12345);
            uint64_t next = 0;
            while (next < total && !abandoned.load()) {
                const uint64_t burst = 1 + rng() % 48;
                for (uint64_t k = 0; k < burst && next < total; k++) {
                    while (!ring.push(wc_with_id(next)) && !abandoned.load())
                        refused.fetch_add(1, std::memory_order_relaxed);
                    next++;
                }
                if (rng() % 8 == 0)
                    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 50));
                else
                    std::this_thread::yield();
            }
        });
        uint64_t expected = 0, waits = 0;
        bool lost_wakeup = false, out_of_order = false;
        work_completion out[16];
        while (expected < total && !lost_wakeup) {
            const int n = ring.pop(out, 16);
            for (int i = 0; i < n; i++) {
                out_of_order |= out[i].wr_id != expected ||
                                out[i].imm_data != static_cast<uint32_t>(expected * 3);
                expected++;
            }
            if (n == 0) {
                waits++;
                // The producer never pauses for more than 50 us: a wait that ends
                // by its timeout, or takes anywhere near it, missed a wake-up.
                const auto t0 = std::chrono::steady_clock::now();
                const bool woken = ring.wait(2s);
                lost_wakeup = !woken || std::chrono::steady_clock::now() - t0 > 1s;
            }
        }
        abandoned.store(true);
        producer.join();
        CPPUNIT_ASSERT(!lost_wakeup);
        CPPUNIT_ASSERT(!out_of_order);
        CPPUNIT_ASSERT_EQUAL(total, expected);
        CPPUNIT_ASSERT(waits > 100); // the sleeping path really was exercised
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_completion_queue);
