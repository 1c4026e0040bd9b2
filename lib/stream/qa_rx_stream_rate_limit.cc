/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rate_limit= (docs/device-args.md): the device dequeues the stream at most that fast
// (RX_RATE_LIMIT); what it cannot send overflows its FIFO and is reported lost, so the
// identity holds and what arrives is still the ramp.

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_rx_stream_rate_limit : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rx_stream_rate_limit);
    CPPUNIT_TEST(test_half_the_rate_delivers_at_most_half_and_adds_up);
    CPPUNIT_TEST(test_bad_limits_are_refused);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_half_the_rate_delivers_at_most_half_and_adds_up()
    {
        // 4 MS/s of sc16 is 16 MB/s; the device may send 8 MB/s of it.
        const uint64_t items = 2000000; // 0.5 s
        rx_stream s(
            "type=emu,signal=ramp,hugepages=off,rate_limit=8e6", "sc16", 4e6, items);
        s.start();
        uint64_t got = 0, mismatches = 0;
        bool end = false;
        const auto give_up = std::chrono::steady_clock::now() + 60s;
        while (!end && std::chrono::steady_clock::now() < give_up) {
            const rx_stream::chunk c = s.recv(1u << 20, 100ms);
            ramp_errors e;
            check_ramp(sample_format::sc16, c.first_item, c.data, c.items, e);
            mismatches += e.mismatches;
            got += c.items;
            s.release(c.items);
            end = c.end_of_stream;
        }
        s.stop();
        const rx_stream::accounting a = s.counts();
        const auto c = s.read_counters();
        const std::string why = "error '" + s.error() + "', emitted " +
                                std::to_string(c.at("device.samples_emitted")) +
                                ", delivered " + std::to_string(a.delivered) + ", lost " +
                                std::to_string(a.lost()) + ", skipped " +
                                std::to_string(a.lost_skipped);
        CPPUNIT_ASSERT_MESSAGE(why, end);
        // Every item is handed out, or skipped because this loop fell a ring behind (a
        // loaded machine: a CI run once skipped 800 768), and reported so.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, got + a.lost_skipped);
        CPPUNIT_ASSERT_EQUAL(c.at("device.samples_emitted"), a.delivered + a.lost());
        CPPUNIT_ASSERT(c.at("device.packets_dropped") > 0);
        CPPUNIT_ASSERT_EQUAL(a.lost_gap,
                             mismatches); // lost reads as zeros, the rest ramp
        // The limit's share of what was handed out (skips are the consumer's, not the
        // device's): never more than the limit lets out. Less on a busy machine, where
        // the emulator's thread falls behind and what waits too long overflows: how
        // close to half it comes is a figure of speed, for the benchmarks.
        const double delivered = double(a.delivered) / double(got);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(delivered) + "; " + why,
                               delivered > 0 && delivered < 0.6);
    }

    void test_bad_limits_are_refused()
    {
        for (const char* bad : { "rate_limit=100", "rate_limit=-1", "rate_limit=5e12" }) {
            std::string message;
            try {
                rx_stream s(std::string("type=emu,") + bad, "sc16", 1e6, 0);
            } catch (const std::invalid_argument& e) {
                message = e.what();
            }
            CPPUNIT_ASSERT_MESSAGE(message,
                                   message.find("rate_limit=") != std::string::npos);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rx_stream_rate_limit);
