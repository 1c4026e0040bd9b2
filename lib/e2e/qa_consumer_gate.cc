/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The test mode emu_pace=consumer (docs/device-args.md, "Tests that no load can
// break"): the emulator in this process never outruns the stream's consumer. The gate's
// arithmetic; a consumer far slower than the device loses nothing, bit-exact over ring
// wraps; an emulator of this process is found by its address, any other device is
// refused, naming the fix.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../stream/consumer_gate.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_consumer_gate : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_consumer_gate);
    CPPUNIT_TEST(test_the_gate_is_half_a_ring_past_the_release);
    CPPUNIT_TEST(test_a_slow_consumer_loses_nothing);
    CPPUNIT_TEST(test_a_device_of_its_own_is_refused);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_the_gate_is_half_a_ring_past_the_release()
    {
        auto pacing = std::make_shared<consumer_pacing>();
        consumer_gate g(pacing);
        // A ring of 64 items, messages of 8; the run's sample 0 is the stream's 16.
        g.arm(64, 8, 16);
        CPPUNIT_ASSERT(pacing->on.load());
        CPPUNIT_ASSERT_EQUAL(uint64_t(24), pacing->gate.load()); // half a ring less one
        g.release(40); // stream samples: the run's 24, so 48
        CPPUNIT_ASSERT_EQUAL(uint64_t(48), pacing->gate.load());
        g.release(30); // never back
        CPPUNIT_ASSERT_EQUAL(uint64_t(48), pacing->gate.load());
        // What the device may have written: its count, never above the clock's bound.
        pacing->produced = 40;
        CPPUNIT_ASSERT_EQUAL(uint64_t(56), g.written_bound(1000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), g.written_bound(50));
        // What it had sent the quiet time ago is final, as far as the gate saw.
        pacing->sent = 32;
        pacing->sent_at_ns = consumer_pacing::now_ns() - 2000000000;
        CPPUNIT_ASSERT_EQUAL(uint64_t(48), g.final_by(1000000000));
        pacing->sent_at_ns = consumer_pacing::now_ns();
        pacing->sent = 40;
        CPPUNIT_ASSERT_EQUAL(uint64_t(48), g.final_by(1000000000)); // not yet
        CPPUNIT_ASSERT_EQUAL(uint64_t(56), g.final_by(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(56), g.final_by(1000000000)); // never back
    }

    void test_a_slow_consumer_loses_nothing()
    {
        // A 100 ms ring, 12 of its wraps, and a consumer that sleeps 40 ms after every
        // 20 ms worth of samples it takes: in real time the device would lap it again
        // and again. Paced, it waits for it: every sample is delivered, the ramp.
        const double rate = 2e6;
        rx_stream s("type=emu,signal=ramp,hugepages=off,latency=0.1,emu_pace=consumer",
                    "sc16",
                    rate,
                    0);
        const uint64_t items = 12 * s.ring_items();
        rx_stream burst("type=emu,signal=ramp,hugepages=off,latency=0.1,stream=1,"
                        "emu_pace=consumer",
                        "sc16",
                        rate,
                        items);
        burst.start();
        const auto start = std::chrono::steady_clock::now();
        ramp_errors errors;
        uint64_t got = 0;
        bool end = false;
        while (!end && std::chrono::steady_clock::now() < start + 60s) {
            const rx_stream::chunk c = burst.recv(uint64_t(0.02 * rate), 100ms);
            CPPUNIT_ASSERT_EQUAL(got, c.first_item);
            check_ramp(sample_format::sc16, c.first_item, c.data, c.items, errors);
            got += c.items;
            burst.release(c.items);
            end = c.end_of_stream;
            if (c.items)
                std::this_thread::sleep_for(40ms);
        }
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count();
        const rx_stream::accounting a = burst.counts();
        const auto counters = burst.read_counters();
        burst.stop();
        CPPUNIT_ASSERT(end);
        CPPUNIT_ASSERT(took > 1.5 * double(items) / rate); // the consumer was slower
        CPPUNIT_ASSERT_EQUAL(items, got);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), errors.mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost());
        CPPUNIT_ASSERT_EQUAL(items, a.delivered);
        CPPUNIT_ASSERT_EQUAL(items, counters.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), counters.at("device.samples_dropped"));
    }

    void test_a_device_of_its_own_is_refused()
    {
        // An emulator of this process is found by its address, whatever the args call
        // it (type=remote naming it: a test that shares the emulator object)...
        {
            emu::emulator dev{ emu::emulator_config{} };
            rx_stream s("type=remote,addr=" + dev.control_address().to_string() +
                            ",emu_pace=consumer",
                        "sc16",
                        1e6,
                        0);
        }
        // ... any other device is refused: the benchmarks' stand-in here, a daemon in
        // qa_emulator_daemon.py.
        std::string why;
        try {
            rx_stream s("type=null,emu_pace=consumer", "sc16", 1e6, 0);
        } catch (const std::invalid_argument& e) {
            why = e.what();
        }
        CPPUNIT_ASSERT_MESSAGE(why, why.find("test mode") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(why, why.find("remove emu_pace=") != std::string::npos);
        // A bad value names the choices.
        why.clear();
        try {
            rx_stream s("type=emu,emu_pace=later", "sc16", 1e6, 0);
        } catch (const std::invalid_argument& e) {
            why = e.what();
        }
        CPPUNIT_ASSERT_MESSAGE(why, why.find("consumer") != std::string::npos);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_consumer_gate);
