/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "periodic_worker.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <chrono>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {
// Waits (bounded) until \p count reaches \p n: the tests assert lower bounds only, so
// a loaded machine makes them slower, never wrong.
bool reaches(const std::atomic<unsigned>& count, unsigned n)
{
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (count.load() < n) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}
} // namespace

class qa_periodic_worker : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_periodic_worker);
    CPPUNIT_TEST(test_beats_only_while_started);
    CPPUNIT_TEST(test_beats_periodically);
    CPPUNIT_TEST(test_stop_waits_for_the_beat);
    CPPUNIT_TEST(test_stop_is_idempotent);
    CPPUNIT_TEST(test_destructor_does_not_wait_out_the_period);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_beats_only_while_started()
    {
        std::atomic<unsigned> beats{ 0 };
        periodic_worker w(thread_role::host, "qa-worker", 1ms, [&] { beats++; });
        std::this_thread::sleep_for(20ms); // twenty periods, not started
        CPPUNIT_ASSERT_EQUAL(0u, beats.load());
        w.start();
        CPPUNIT_ASSERT(reaches(beats, 1));
        w.stop();
        const unsigned at_stop = beats.load();
        std::this_thread::sleep_for(20ms);
        CPPUNIT_ASSERT_EQUAL(at_stop, beats.load());
        w.start(); // again, on the same thread
        CPPUNIT_ASSERT(reaches(beats, at_stop + 1));
    }

    void test_beats_periodically()
    {
        // A beat each period, not one per start(): several beats come with no call.
        std::atomic<unsigned> beats{ 0 };
        periodic_worker w(thread_role::host, "qa-worker", 2ms, [&] { beats++; });
        w.start();
        CPPUNIT_ASSERT(reaches(beats, 10));
    }

    void test_stop_waits_for_the_beat()
    {
        std::atomic<unsigned> begun{ 0 };
        std::atomic<unsigned> ended{ 0 };
        periodic_worker w(thread_role::host, "qa-worker", 1ms, [&] {
            begun++;
            std::this_thread::sleep_for(30ms);
            ended++;
        });
        w.start();
        CPPUNIT_ASSERT(reaches(begun, 1));
        w.stop(); // a beat is under way: stop() returns once it has ended
        CPPUNIT_ASSERT_EQUAL(begun.load(), ended.load());
    }

    void test_stop_is_idempotent()
    {
        std::atomic<unsigned> beats{ 0 };
        periodic_worker w(thread_role::host, "qa-worker", 1ms, [&] { beats++; });
        w.stop(); // never started
        w.start();
        CPPUNIT_ASSERT(reaches(beats, 1));
        w.stop();
        w.stop();
        const unsigned at_stop = beats.load();
        std::this_thread::sleep_for(10ms);
        CPPUNIT_ASSERT_EQUAL(at_stop, beats.load());
    } // and the destructor after stop()

    void test_destructor_does_not_wait_out_the_period()
    {
        // An hour's period: only the wake-up lets the destructor return in time.
        const auto begin = std::chrono::steady_clock::now();
        {
            periodic_worker w(thread_role::host, "qa-worker", 1h, [] {});
            w.start();
            std::this_thread::sleep_for(5ms); // the thread is in its wait
        }
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - begin < 10min);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_periodic_worker);
