/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device's control loop (docs/links.md, "Software control of the data path"): at
// most one run per period and only when something waits, a demand drop freeing its
// share at the next run, work that stays bounded while the event rate grows 100x,
// and the policies' weights (the split of water filling, 1/RTT, links down).

#include "rate_controller.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

using namespace gr::rdma::emu;

// Every allocation of this test program is counted, so that a test can show the loop
// allocates nothing (the controller runs on the emulator's data path).
static std::atomic<uint64_t> g_allocations{ 0 };

void* operator new(std::size_t n)
{
    g_allocations++;
    if (void* p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

constexpr int64_t us = 1000, ms = 1000000;
constexpr double M = 1e6;

// Three streams on two links of 2/3 the offered load (qa_water_filling's first case).
void three_on_two(rate_controller& c)
{
    CPPUNIT_ASSERT(c.set_policy(1));
    c.set_capacity(0, 80 * M);
    c.set_capacity(1, 120 * M);
    c.set_links(0, 1);
    c.set_links(1, 3);
    c.set_links(2, 3);
    for (uint8_t s = 0; s < 3; s++)
        c.post({ ctrl_kind::demand, s, 0, uint64_t(100 * M) });
}

unsigned weight_sum(const ctrl_output& o)
{
    unsigned sum = 0;
    for (uint16_t w : o.weight)
        sum += w;
    return sum;
}

struct work {
    uint64_t runs, processed, computations, events;
};

// One simulated second at \p rate events/s spread over the six queues of
// three_on_two (NAKs and RTT probes), the loop ticked every 10 us.
work one_second(double rate)
{
    rate_controller c;
    three_on_two(c);
    uint32_t x = 1;
    double due = 0;
    for (int64_t t = 0; t < 1000 * ms; t += 10 * us) {
        for (due += rate * 1e-5; due >= 1; due -= 1) {
            x = x * 1103515245u + 12345u;
            const uint8_t s = uint8_t(x >> 16) % 3, l = s == 0 ? 0 : (x >> 20 & 1);
            c.post({ (x >> 24 & 1) ? ctrl_kind::rtt : ctrl_kind::nak, s, l, x });
        }
        c.tick(t);
    }
    return { c.runs(), c.queue().processed(), c.computations(), c.queue().events() };
}

} // namespace

class qa_rate_controller : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rate_controller);
    CPPUNIT_TEST(test_at_most_one_run_per_period);
    CPPUNIT_TEST(test_demand_drop_frees_share_at_next_run);
    CPPUNIT_TEST(test_bounded_work_as_events_grow);
    CPPUNIT_TEST(test_water_filling_weights_are_its_split);
    CPPUNIT_TEST(test_shortest_rtt_weights);
    CPPUNIT_TEST(test_link_down_and_host_limit);
    CPPUNIT_TEST(test_policy_none_and_settings);
    CPPUNIT_TEST(test_high_stream_and_link_numbers);
    CPPUNIT_TEST(test_tx_reads_share_the_links_other_direction);
    CPPUNIT_TEST(test_no_allocation_after_construction);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_at_most_one_run_per_period()
    {
        rate_controller c;
        CPPUNIT_ASSERT(!c.tick(0)); // nothing waits
        c.post({ ctrl_kind::rtt, 0, 0, 5 });
        CPPUNIT_ASSERT(c.tick(0)); // the first run may come at once
        c.post({ ctrl_kind::rtt, 0, 0, 6 });
        CPPUNIT_ASSERT(!c.due(999 * us));
        CPPUNIT_ASSERT(!c.tick(999 * us));
        CPPUNIT_ASSERT(c.due(1000 * us));
        CPPUNIT_ASSERT(c.tick(1000 * us));
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), c.model().stream(0).dst[0].rtt_ns);
        CPPUNIT_ASSERT(!c.tick(5000 * us)); // nothing waits: no run
        c.set_capacity(0, 1);               // a configuration change waits too
        CPPUNIT_ASSERT(c.tick(5000 * us));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.runs());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.computations());
        // A longer period.
        CPPUNIT_ASSERT(c.set_period_us(10000));
        c.post({ ctrl_kind::rtt, 0, 0, 7 });
        CPPUNIT_ASSERT(!c.tick(14999 * us));
        CPPUNIT_ASSERT(c.tick(15000 * us));
    }

    void test_demand_drop_frees_share_at_next_run()
    {
        rate_controller c;
        three_on_two(c);
        CPPUNIT_ASSERT(c.tick(0));
        for (unsigned s = 0; s < 3; s++) {
            CPPUNIT_ASSERT_DOUBLES_EQUAL(200 * M / 3, c.output(s).rate, 1.0);
            CPPUNIT_ASSERT(c.output(s).limited);
        }
        c.post({ ctrl_kind::demand, 0, 0, uint64_t(25 * M) });
        CPPUNIT_ASSERT(!c.tick(500 * us)); // within the period: shares unchanged
        CPPUNIT_ASSERT_DOUBLES_EQUAL(200 * M / 3, c.output(1).rate, 1.0);
        CPPUNIT_ASSERT(c.tick(1000 * us)); // the next run
        CPPUNIT_ASSERT_DOUBLES_EQUAL(25 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(0).limited);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(87.5 * M, c.output(1).rate, 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(87.5 * M, c.output(2).rate, 1.0);
    }

    void test_bounded_work_as_events_grow()
    {
        // 6 queues, 1 ms period: at most 1000 runs and 6000 records a second, one
        // policy computation per run, at 20 000 events/s and at 100x that.
        const work low = one_second(20000), high = one_second(2000000);
        CPPUNIT_ASSERT(high.events >= 99 * low.events);
        for (const work& w : { low, high }) {
            CPPUNIT_ASSERT(w.runs <= 1001);
            CPPUNIT_ASSERT(w.processed <= 6 * w.runs);
            CPPUNIT_ASSERT_EQUAL(w.runs, w.computations);
        }
        CPPUNIT_ASSERT(high.runs <= 2 * low.runs);
        CPPUNIT_ASSERT(high.processed <= 2 * low.processed);
        // And the loop did run about every period at both rates.
        CPPUNIT_ASSERT(low.runs >= 990);
    }

    void test_water_filling_weights_are_its_split()
    {
        rate_controller c;
        three_on_two(c);
        CPPUNIT_ASSERT(c.tick(0));
        // Stream 0 is on link 0 alone; 1 and 2 split the rest: link 0 has 80 - 66.7 =
        // 13.3 left, link 1 all of its 120. Whatever the split, per link the weights
        // times the rates add up to the link's capacity (to the weights' rounding).
        CPPUNIT_ASSERT_EQUAL(uint16_t(1024), c.output(0).weight[0]);
        for (unsigned l = 0; l < 2; l++) {
            double load = 0;
            for (unsigned s = 0; s < 3; s++) {
                CPPUNIT_ASSERT_EQUAL(1024u, weight_sum(c.output(s)));
                load += c.output(s).rate * c.output(s).weight[l] / 1024.0;
            }
            CPPUNIT_ASSERT_DOUBLES_EQUAL(l == 0 ? 80 * M : 120 * M, load, 0.2 * M);
        }
        for (unsigned s = 0; s < 3; s++)
            for (unsigned l = 2; l < ctrl_max_links; l++)
                CPPUNIT_ASSERT_EQUAL(uint16_t(0), c.output(s).weight[l]);
    }

    void test_shortest_rtt_weights()
    {
        rate_controller c;
        CPPUNIT_ASSERT(c.set_policy(2));
        c.set_links(0, 0x7); // links 0, 1, 2
        c.post({ ctrl_kind::demand, 0, 0, 1000 });
        c.post({ ctrl_kind::rtt, 0, 0, 100000 });
        c.post({ ctrl_kind::rtt, 0, 1, 300000 });
        CPPUNIT_ASSERT(c.tick(0));
        // 1/100 : 1/300 : unmeasured = the slowest, 1/300 -> 3 : 1 : 1 of 1024 =
        // 614.4 : 204.8 : 204.8; the two units left go to the largest rests.
        const ctrl_output& o = c.output(0);
        CPPUNIT_ASSERT_EQUAL(uint16_t(614), o.weight[0]);
        CPPUNIT_ASSERT_EQUAL(uint16_t(205), o.weight[1]);
        CPPUNIT_ASSERT_EQUAL(uint16_t(205), o.weight[2]);
        CPPUNIT_ASSERT_EQUAL(1000.0, o.rate);
        CPPUNIT_ASSERT(!o.limited);
        // RTTs re-read every run: link 1 becomes the fastest.
        c.post({ ctrl_kind::rtt, 0, 1, 50000 });
        CPPUNIT_ASSERT(c.tick(ms));
        CPPUNIT_ASSERT(c.output(0).weight[1] > c.output(0).weight[0]);
        // No RTT measured anywhere: equal.
        rate_controller u;
        u.set_policy(2);
        u.set_links(1, 0x3);
        CPPUNIT_ASSERT(u.tick(0));
        CPPUNIT_ASSERT_EQUAL(uint16_t(512), u.output(1).weight[0]);
        CPPUNIT_ASSERT_EQUAL(uint16_t(512), u.output(1).weight[1]);
    }

    void test_link_down_and_host_limit()
    {
        rate_controller c;
        three_on_two(c);
        // Link 1 goes down for stream 1: it has link 0 only; 0 and 1 share 80.
        c.post({ ctrl_kind::link, 1, 1, 0 });
        CPPUNIT_ASSERT(c.tick(0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(40 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(40 * M, c.output(1).rate, 1.0);
        CPPUNIT_ASSERT_EQUAL(uint16_t(0), c.output(1).weight[1]);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(2).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(2).limited);
        // Up again; the host asks stream 2 for at most 10 MB/s (receiver-driven).
        c.post({ ctrl_kind::link, 1, 1, 1 });
        c.post({ ctrl_kind::host, 2, 0, uint64_t(10 * M) });
        CPPUNIT_ASSERT(c.tick(ms));
        // Stream 2 frozen at 10; stream 0 fills link 0 alone (80); stream 1 takes its
        // 100 from link 1, which has 120 - 10 of room.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10 * M, c.output(2).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(2).limited); // it wants no more than that
        CPPUNIT_ASSERT_DOUBLES_EQUAL(80 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(c.output(0).limited);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(1).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(1).limited);
        // Every destination of stream 0 down: no weight anywhere, and not held (its
        // messages keep leaving, to be dropped at the cut, so that its schedule
        // reaches the window where a rejoin takes effect: held near 0 it never
        // would, and water filling kept it there for good after a double cut).
        c.post({ ctrl_kind::link, 0, 0, 0 });
        CPPUNIT_ASSERT(c.tick(2 * ms));
        CPPUNIT_ASSERT_EQUAL(0u, weight_sum(c.output(0)));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(!c.output(0).limited);
        // Its link back (LINK_CONTROL = 1): its fair share again at the next run.
        c.post({ ctrl_kind::link, 0, 0, 1 });
        CPPUNIT_ASSERT(c.tick(3 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(80 * M, c.output(0).rate, 1.0);
        CPPUNIT_ASSERT(c.output(0).limited);
    }

    void test_policy_none_and_settings()
    {
        rate_controller c;
        CPPUNIT_ASSERT(!c.writes());
        c.set_links(0, 0x3);
        c.set_capacity(0, 1);
        c.set_capacity(1, 2);
        c.post({ ctrl_kind::demand, 0, 0, 500 });
        CPPUNIT_ASSERT(c.tick(0));
        // What the registers hold at reset: equal weights, no limit.
        CPPUNIT_ASSERT_EQUAL(500.0, c.output(0).rate);
        CPPUNIT_ASSERT(!c.output(0).limited);
        CPPUNIT_ASSERT_EQUAL(uint16_t(512), c.output(0).weight[1]);
        CPPUNIT_ASSERT(!c.set_policy(3));
        CPPUNIT_ASSERT(c.policy() == ctrl_policy::none);
        CPPUNIT_ASSERT(!c.set_period_us(0));
        CPPUNIT_ASSERT(!c.set_period_us(rate_controller::max_period_us + 1));
        CPPUNIT_ASSERT_EQUAL(rate_controller::default_period_us, c.period_us());
        CPPUNIT_ASSERT(c.set_policy(1));
        CPPUNIT_ASSERT(c.writes());
        CPPUNIT_ASSERT(c.tick(ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(3.0, c.output(0).rate, 1e-9); // both links full
        CPPUNIT_ASSERT(c.output(0).limited);
    }

    void test_high_stream_and_link_numbers()
    {
        // Streams 9 and 15 on links 6 and 7 (the loop computes only up to the last in
        // use; nothing below may be dropped): 15 alone on link 7 (10), 9 on both takes
        // link 6's 30. A stream not in use gets nothing.
        rate_controller c;
        c.set_policy(1);
        c.set_capacity(6, 30);
        c.set_capacity(7, 10);
        c.set_links(9, 0xC0);
        c.set_links(15, 0x80);
        c.post({ ctrl_kind::demand, 9, 0, 100 });
        c.post({ ctrl_kind::demand, 15, 0, 100 });
        c.post({ ctrl_kind::demand, 3, 0, 100 });
        CPPUNIT_ASSERT(c.tick(0));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(30.0, c.output(9).rate, 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.0, c.output(15).rate, 1e-9);
        CPPUNIT_ASSERT_EQUAL(uint16_t(1024), c.output(9).weight[6]);
        CPPUNIT_ASSERT_EQUAL(uint16_t(1024), c.output(15).weight[7]);
        CPPUNIT_ASSERT_EQUAL(0.0, c.output(3).rate);
        CPPUNIT_ASSERT_EQUAL(0u, weight_sum(c.output(3)));
    }

    void test_tx_reads_share_the_links_other_direction()
    {
        rate_controller c;
        CPPUNIT_ASSERT(c.set_policy(1));
        c.set_capacity(0, 90 * M);
        // An RX stream fills link 0 one way; two TX streams' READs the other way.
        c.set_links(0, 1);
        c.post({ ctrl_kind::demand, 0, 0, uint64_t(90 * M) });
        ctrl_tx_state a;
        a.link = 0;
        a.demand = uint64_t(60 * M);
        ctrl_tx_state b = a;
        b.demand = uint64_t(20 * M);
        c.set_tx(0, a);
        c.set_tx(3, b);
        CPPUNIT_ASSERT(c.tick(0));
        // Max-min: the small demand met (20), the rest (70) to the other: 60 met too.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(60 * M, c.tx_output(0).rate, 1);
        CPPUNIT_ASSERT(!c.tx_output(0).limited);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(20 * M, c.tx_output(3).rate, 1);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(90 * M, c.output(0).rate, 1); // the RX side: all
        CPPUNIT_ASSERT(!c.output(0).limited);
        // The big one grows past the link: the small keeps its demand, the big the rest.
        a.demand = uint64_t(100 * M);
        c.set_tx(0, a);
        CPPUNIT_ASSERT(c.tick(1 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(70 * M, c.tx_output(0).rate, 1);
        CPPUNIT_ASSERT(c.tx_output(0).limited);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(20 * M, c.tx_output(3).rate, 1);
        // The host's limit is its demand; a stream that stops frees its share.
        b.host_limit = uint64_t(5 * M);
        c.set_tx(3, b);
        CPPUNIT_ASSERT(c.tick(2 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(5 * M, c.tx_output(3).rate, 1);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(85 * M, c.tx_output(0).rate, 1);
        c.set_tx(3, ctrl_tx_state());
        CPPUNIT_ASSERT(c.tick(3 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(90 * M, c.tx_output(0).rate, 1);
        CPPUNIT_ASSERT_EQUAL(0.0, c.tx_output(3).rate);
        // Policy 0: demands as they are, nobody limited.
        CPPUNIT_ASSERT(c.set_policy(0));
        CPPUNIT_ASSERT(c.tick(4 * ms));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, c.tx_output(0).rate, 1);
        CPPUNIT_ASSERT(!c.tx_output(0).limited);
    }

    void test_no_allocation_after_construction()
    {
        auto c = std::make_unique<rate_controller>();
        three_on_two(*c);
        // From here on only what the emulator calls at run time; no CppUnit assertion
        // inside (they allocate their messages).
        const uint64_t before = g_allocations;
        for (uint32_t policy = 0; policy < 3; policy++) {
            c->set_policy(policy);
            c->set_capacity(1, double(100 + policy) * M);
            for (int64_t t = 0; t < 50 * ms; t += 100 * us) {
                for (uint8_t i = 0; i < 40; i++)
                    c->post({ ctrl_kind(i % ctrl_kinds),
                              uint8_t(i % 16),
                              uint8_t(i % 8),
                              i });
                c->tick(int64_t(policy) * 100 * ms + t);
            }
        }
        const uint64_t after = g_allocations;
        CPPUNIT_ASSERT(c->runs() >= 150);
        CPPUNIT_ASSERT_EQUAL(before, after);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rate_controller);
