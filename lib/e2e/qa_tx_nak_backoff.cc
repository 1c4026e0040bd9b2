/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Water filling's NAK backoff on a TX stream's READs (docs/register-map.md, "NAK
// backoff"): the emulator discards some READ RESPONSEs, the requester reads them
// again, the engine posts its re-read count and the controller holds the READs below
// their demand (CTRL_TX_RATE, CTRL_TX_NAK_CUTS), while every committed sample is still
// played, late or not played. Without the controller (policy 0) the same losses cut
// nothing.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr double rate = 2e6; // sc16: 8 MB/s of samples

struct outcome {
    tx_stream::accounting a;
    uint32_t lowest_kib = UINT32_MAX; // the lowest non-zero CTRL_TX_RATE seen
    uint32_t last_kib = 0;
    uint64_t cuts = 0; // CTRL_TX_NAK_CUTS
};

outcome run(uint32_t policy)
{
    emu::emulator_config config;
    config.tx_streams = 1;
    emu::emulator dev(config);
    axioe::client axi(dev.control_address());
    axi.write32(regs::ctrl_base + regs::ctrl::policy, policy);
    tx_stream s("type=remote,addr=" + dev.control_address().to_string() +
                    ",hugepages=off,latency=0.1,tx_loss_ppm=20000,tx_fault_seed=3",
                "sc16",
                rate);
    s.start();
    std::atomic<bool> done{ false };
    std::thread feeder([&] {
        uint64_t from = 0;
        while (!done) {
            const tx_stream::space sp = s.wait_space(1, 20ms);
            if (!sp.items)
                continue;
            ramp_fill(
                sample_format::sc16, from, sp.items, static_cast<uint8_t*>(sp.data));
            s.commit(sp.items);
            from += sp.items;
        }
    });
    outcome o;
    const auto end = std::chrono::steady_clock::now() + 1000ms;
    while (std::chrono::steady_clock::now() < end) {
        const uint32_t r = axi.read32(regs::ctrl_tx_rate_reg(0));
        if (r)
            o.lowest_kib = std::min(o.lowest_kib, r);
        o.last_kib = r;
        std::this_thread::sleep_for(2ms);
    }
    o.cuts = axi.read64(regs::ctrl_base + regs::ctrl::tx_nak_cuts_lo);
    done = true;
    feeder.join();
    s.stop();
    o.a = s.counts();
    return o;
}

std::string describe(const outcome& o)
{
    return "reads " + std::to_string(o.a.reads) + " rereads " +
           std::to_string(o.a.rereads) + " cuts " + std::to_string(o.cuts) +
           " lowest CTRL_TX_RATE " + std::to_string(o.lowest_kib) + " KiB/s, last " +
           std::to_string(o.last_kib) + "; committed " +
           std::to_string(o.a.host_committed) + " played " + std::to_string(o.a.played) +
           " late " + std::to_string(o.a.late) + " not played " +
           std::to_string(o.a.not_played);
}

} // namespace

class qa_tx_nak_backoff : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_nak_backoff);
    CPPUNIT_TEST(test_rereads_hold_the_reads_below_their_demand);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_rereads_hold_the_reads_below_their_demand()
    {
        const uint32_t demand_kib = uint32_t(rate * 4 / regs::ctrl::rate_unit);
        // Baseline, same losses: policy 0 reads at the demand and cuts nothing.
        const outcome none = run(regs::ctrl_policy::none);
        const std::string base = describe(none);
        CPPUNIT_ASSERT_MESSAGE(base, none.a.rereads > 0);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(base, uint64_t(0), none.cuts);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(base, UINT32_MAX, none.lowest_kib); // no rate held
        CPPUNIT_ASSERT_MESSAGE(base, none.a.identity_holds());

        const outcome wf = run(regs::ctrl_policy::water_filling);
        const std::string why = describe(wf) + " (baseline: " + base + ")";
        CPPUNIT_ASSERT_MESSAGE(why, wf.a.rereads > 0);
        CPPUNIT_ASSERT_MESSAGE(why, wf.cuts > 0);
        // Cut by half at least once, never below 1/64 of the demand.
        CPPUNIT_ASSERT_MESSAGE(why, wf.lowest_kib < demand_kib * 6 / 10);
        CPPUNIT_ASSERT_MESSAGE(why, wf.lowest_kib >= demand_kib / 64);
        // Whatever the cuts cost, the books balance.
        CPPUNIT_ASSERT_MESSAGE(why, wf.a.final);
        CPPUNIT_ASSERT_MESSAGE(why, wf.a.identity_holds());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_nak_backoff);
