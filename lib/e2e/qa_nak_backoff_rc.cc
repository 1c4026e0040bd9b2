/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Water filling's NAK backoff on a real RC run (docs/register-map.md, "Policies"): the
// emulator's RC stream loses packets, the host's NIC NAKs them, the engine posts the
// counts and the controller holds the stream below its demand (CTRL_RATE), while
// every sample is still delivered or counted lost.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_nak_backoff_rc : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_nak_backoff_rc);
    CPPUNIT_TEST(test_naks_hold_the_stream_below_its_demand);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_naks_hold_the_stream_below_its_demand()
    {
        emu::emulator dev(emu::emulator_config{});
        axioe::client axi(dev.control_address());
        axi.write32(regs::ctrl_base + regs::ctrl::policy, regs::ctrl_policy::water_filling);
        constexpr double rate = 10e6;   // sc16: 40 MB/s of samples
        const uint64_t items = 6000000; // 0.6 s
        rx_stream s("type=remote,addr=" + dev.control_address().to_string() +
                        ",signal=ramp,hugepages=off,transport=rc,loss=0.02,fault_seed=3",
                    "sc16",
                    rate,
                    items);
        s.start();
        const uint32_t demand_kib = uint32_t(rate * 4 / regs::ctrl::rate_unit);
        uint32_t lowest = UINT32_MAX;
        bool end = false;
        const auto give_up = std::chrono::steady_clock::now() + 60s;
        while (!end && std::chrono::steady_clock::now() < give_up) {
            const rx_stream::chunk c = s.recv(1u << 20, 20ms);
            s.release(c.items);
            end = c.end_of_stream;
            const uint32_t r = axi.read32(regs::ctrl_rate_reg(0));
            if (r)
                lowest = std::min(lowest, r);
        }
        s.stop();
        const auto c = s.read_counters();
        const rx_stream::accounting a = s.counts();
        const std::string why =
            "naks=" + std::to_string(c.at("device.naks_received")) +
            " lowest CTRL_RATE=" + std::to_string(lowest) +
            " KiB/s, demand=" + std::to_string(demand_kib) + " KiB/s";
        CPPUNIT_ASSERT_MESSAGE(why, end);
        CPPUNIT_ASSERT_MESSAGE(why, c.at("device.naks_received") > 0);
        // Cut by half at least once: the stream was held below 60 % of its demand.
        CPPUNIT_ASSERT_MESSAGE(why, lowest < demand_kib * 6 / 10);
        CPPUNIT_ASSERT_MESSAGE(why, lowest >= demand_kib / 64);
        // Whatever the cuts cost, the books balance.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, c.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, a.delivered + a.lost());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_nak_backoff_rc);
