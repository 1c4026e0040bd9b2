/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The TX burst queue's checks and the TX burst schedule (docs/register-map.md, "TX
// burst queue"; docs/transmit.md, "Queued bursts"), alone: which burst an item is in,
// when it plays, how messages are cut into pieces, idle ticks, time errors and drops.

#include "tx_burst_schedule.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <vector>

using namespace gr::rdma;
using emu::tx_burst_schedule;
using emu::tx_entry;
namespace err = regs::tbq::error;
namespace op = regs::tbq::op;
using what = tx_burst_schedule::what;

namespace {

tx_entry start(uint64_t item, uint64_t time_ns = 0)
{
    return { op::start, item, time_ns };
}
tx_entry end(uint64_t item) { return { op::end, item, 0 }; }

constexpr uint64_t t0 = 1000000000000ull; // the run's start, device ns
constexpr uint64_t us = 1000;

// Plays what the schedule holds up to tick \p until, all of it fetched: returns the
// items played in order and counts idle ticks and ended bursts.
struct player {
    explicit player(tx_burst_schedule& schedule) : s(schedule) {}
    tx_burst_schedule& s;
    uint64_t idle = 0;
    std::vector<tx_burst_schedule::event> ended;
    std::vector<tx_burst_schedule::event> errors;
    std::vector<uint64_t> ticks_of; // tick at which item k played

    void run(uint64_t until)
    {
        while (s.tick() < until) {
            const tx_burst_schedule::event e = s.next();
            if (e.kind == what::burst_ended) {
                ended.push_back(e);
                continue;
            }
            if (e.kind == what::time_error) {
                errors.push_back(e);
                continue;
            }
            if (e.kind == what::idle) {
                const uint64_t n = std::min(e.until, until) - s.tick();
                s.idle(n);
                idle += n;
                continue;
            }
            const uint64_t n = std::min(until - s.tick(), e.piece_end - s.item());
            for (uint64_t i = 0; i < n; i++) {
                if (ticks_of.size() <= s.item() + i)
                    ticks_of.resize(s.item() + i + 1, UINT64_MAX);
                ticks_of[s.item() + i] = s.tick() + i;
            }
            s.consume(n, n);
        }
    }
};

} // namespace

class qa_tx_burst_schedule : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_burst_schedule);
    CPPUNIT_TEST(test_push_checks_in_order);
    CPPUNIT_TEST(test_time_behind_follows_the_bursts);
    CPPUNIT_TEST(test_clear_goes_back_to_what_was_taken_up);
    CPPUNIT_TEST(test_full_and_closed);
    CPPUNIT_TEST(test_continuous_and_finite_are_one_burst);
    CPPUNIT_TEST(test_timed_burst_and_idle);
    CPPUNIT_TEST(test_seamless_bursts_and_pieces);
    CPPUNIT_TEST(test_asap_after_a_gap_waits_a_lead);
    CPPUNIT_TEST(test_underflow_shifts_the_burst_and_its_followers);
    CPPUNIT_TEST(test_time_error_when_taken_up);
    CPPUNIT_TEST(test_time_error_found_by_the_converter);
    CPPUNIT_TEST(test_end_behind_the_converter);
    CPPUNIT_TEST(test_bursts_are_retired);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_push_checks_in_order()
    {
        emu::tx_entry_queue q;
        CPPUNIT_ASSERT_EQUAL(err::not_running, q.push(start(0)));
        q.open(t0, 1000000, 1);
        CPPUNIT_ASSERT_EQUAL(err::sequence, q.push(end(10)));    // no open burst
        CPPUNIT_ASSERT_EQUAL(err::item_order, q.push(start(1))); // the first is item 0
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(0)));
        CPPUNIT_ASSERT_EQUAL(err::sequence, q.push(start(0))); // a burst is open
        CPPUNIT_ASSERT_EQUAL(err::item_order, q.push(end(0))); // not above its START
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(end(100)));
        CPPUNIT_ASSERT_EQUAL(err::sequence, q.push(end(200)));
        CPPUNIT_ASSERT_EQUAL(err::item_order, q.push(start(99)));
        CPPUNIT_ASSERT_EQUAL(err::item_order, q.push(start(101)));
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(100)));
        CPPUNIT_ASSERT_EQUAL(size_t(3), q.size());
        // Taken up in order.
        CPPUNIT_ASSERT_EQUAL(op::start, q.front()->op);
        q.pop();
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), q.front()->item);
        CPPUNIT_ASSERT_EQUAL(op::end, q.front()->op);
    }

    void test_time_behind_follows_the_bursts()
    {
        emu::tx_entry_queue q;
        q.open(t0, 1000000, 1); // 1 µs per item
        CPPUNIT_ASSERT_EQUAL(err::time_behind, q.push(start(0, t0 - 1))); // before START
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(0, t0 + 10 * us)));
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(end(1000))); // ends at t0 + 1010 µs
        CPPUNIT_ASSERT_EQUAL(err::time_behind, q.push(start(1000, t0 + 1010 * us - 1)));
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(1000, 0))); // seamless
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(end(1500)));      // ends >= t0 + 1510 µs
        CPPUNIT_ASSERT_EQUAL(err::time_behind, q.push(start(1500, t0 + 1509 * us)));
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(1500, t0 + 1510 * us)));
        // At 3 items per µs, the end is rounded up to the ns.
        emu::tx_entry_queue r;
        r.open(t0, 3000000, 1);
        r.push(start(0));
        r.push(end(1)); // 333.33.. ns
        CPPUNIT_ASSERT_EQUAL(err::time_behind, r.push(start(1, t0 + 333)));
        CPPUNIT_ASSERT_EQUAL(err::none, r.push(start(1, t0 + 334)));
    }

    void test_clear_goes_back_to_what_was_taken_up()
    {
        emu::tx_entry_queue q;
        q.open(t0, 1000000, 1);
        q.push(start(0, t0 + 5 * us));
        q.push(end(100));
        q.push(start(100));
        q.pop(); // START taken up: its burst is open
        q.clear();
        CPPUNIT_ASSERT_EQUAL(size_t(0), q.size());
        CPPUNIT_ASSERT(q.front() == nullptr);
        CPPUNIT_ASSERT_EQUAL(err::sequence, q.push(start(0)));
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(end(50)));
        CPPUNIT_ASSERT_EQUAL(err::time_behind, q.push(start(50, t0 + 54 * us)));
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(50, t0 + 55 * us)));
    }

    void test_full_and_closed()
    {
        emu::tx_entry_queue q;
        q.open(t0, 1000000, 1);
        uint64_t item = 0;
        for (size_t i = 0; i < emu::tx_entry_queue::capacity; i++)
            CPPUNIT_ASSERT_EQUAL(err::none,
                                 q.push(i % 2 ? end(item += 10) : start(item)));
        CPPUNIT_ASSERT_EQUAL(err::full, q.push(start(item)));
        q.pop();
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(item)));
        q.close();
        CPPUNIT_ASSERT_EQUAL(size_t(0), q.size());
        CPPUNIT_ASSERT_EQUAL(err::not_running, q.push(end(item + 1)));
        q.open(t0, 1000000, 1); // a new run: from item 0 again
        CPPUNIT_ASSERT_EQUAL(err::none, q.push(start(0)));
    }

    void test_continuous_and_finite_are_one_burst()
    {
        tx_burst_schedule s;
        s.reset(0, false, 256);
        player p{ s };
        p.run(1000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), s.item());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.idle);
        CPPUNIT_ASSERT(p.ended.empty());
        tx_burst_schedule::piece pc;
        CPPUNIT_ASSERT(s.next_piece(pc)); // never behind the converter: whole messages
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), pc.first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), pc.end);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), pc.tick);
        CPPUNIT_ASSERT_EQUAL(tx_burst_schedule::open, s.next_end_count(0));

        s.reset(1000, false, 256);
        std::vector<uint64_t> pieces;
        while (s.next_piece(pc)) {
            pieces.push_back(pc.end);
            s.requested(pc.end);
        }
        CPPUNIT_ASSERT((pieces == std::vector<uint64_t>{ 256, 512, 768, 1000 }));
        player f{ s };
        f.run(2000);
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.ended.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), f.ended[0].item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), f.ended[0].played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), f.idle);           // after its end: nothing
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), s.next_end_count(0)); // its last message
        CPPUNIT_ASSERT_EQUAL(tx_burst_schedule::open, s.next_end_count(4));
    }

    void test_timed_burst_and_idle()
    {
        tx_burst_schedule s;
        s.reset(0, true, 256);
        player p{ s };
        p.run(50); // nothing taken up: idle
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), p.idle);
        tx_burst_schedule::piece pc;
        CPPUNIT_ASSERT(!s.next_piece(pc)); // nothing to READ yet
        CPPUNIT_ASSERT(s.start_at(100, t0, 50));
        CPPUNIT_ASSERT(s.next_piece(pc));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), pc.first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), pc.end); // no END known: whole messages
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), pc.tick);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), s.end(300));
        s.requested(256);
        CPPUNIT_ASSERT(s.next_piece(pc));
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), pc.first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), pc.end); // the END cuts message 1
        CPPUNIT_ASSERT_EQUAL(uint64_t(356), pc.tick);
        s.requested(300);
        CPPUNIT_ASSERT(!s.next_piece(pc)); // no burst after it yet
        p.run(1000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), p.ticks_of[0]); // item 0 at its tick
        CPPUNIT_ASSERT_EQUAL(uint64_t(399), p.ticks_of[299]);
        CPPUNIT_ASSERT_EQUAL(size_t(1), p.ended.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), p.ended[0].played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000 - 300), p.idle); // 100 before, 600 after
        CPPUNIT_ASSERT_EQUAL(uint64_t(2),
                             s.next_end_count(0)); // message 1 holds item 299
    }

    void test_seamless_bursts_and_pieces()
    {
        // Bursts shorter than a message, back to back: one message, several pieces,
        // every item one tick after the one before.
        tx_burst_schedule s;
        s.reset(0, true, 256);
        s.start_asap(0, 1000); // the first burst of a run: at the run's start
        s.end(50);
        s.start_asap(0, 1000);
        s.end(100);
        s.start_asap(0, 1000);
        s.end(150);
        s.start_asap(0, 1000);
        std::vector<uint64_t> ends;
        tx_burst_schedule::piece pc;
        while (s.next_piece(pc) && pc.first < 512) {
            CPPUNIT_ASSERT_EQUAL(pc.first, pc.tick); // no gap anywhere
            ends.push_back(pc.end);
            s.requested(pc.end);
        }
        CPPUNIT_ASSERT((ends == std::vector<uint64_t>{ 50, 100, 150, 256, 512 }));
        player p{ s };
        p.run(600);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.idle);
        CPPUNIT_ASSERT_EQUAL(size_t(3), p.ended.size());
        for (uint64_t k = 0; k < 600; k++)
            CPPUNIT_ASSERT_EQUAL(k, p.ticks_of[k]);
        // Message 0 holds the last item of three bursts: one notification point.
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.next_end_count(0));
        CPPUNIT_ASSERT_EQUAL(tx_burst_schedule::open, s.next_end_count(1));
    }

    void test_asap_after_a_gap_waits_a_lead()
    {
        tx_burst_schedule s;
        s.reset(0, true, 256);
        s.start_asap(0, 10);
        s.end(100);
        player p{ s };
        p.run(500); // the burst ended at tick 100; idle since
        CPPUNIT_ASSERT_EQUAL(uint64_t(400), p.idle);
        s.start_asap(500, 40); // its predecessor's end passed: a lead from now
        p.run(600);
        CPPUNIT_ASSERT_EQUAL(uint64_t(440), p.idle);
        CPPUNIT_ASSERT_EQUAL(uint64_t(540), p.ticks_of[100]);
        // The first burst of a run taken up after the run's start: a lead from then.
        tx_burst_schedule late;
        late.reset(0, true, 256);
        player q{ late };
        q.run(30);
        late.start_asap(30, 7);
        q.run(100);
        CPPUNIT_ASSERT_EQUAL(uint64_t(37), q.ticks_of[0]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(37), q.idle);
    }

    void test_underflow_shifts_the_burst_and_its_followers()
    {
        tx_burst_schedule s;
        s.reset(0, true, 100);
        s.start_asap(0, 0);
        s.end(300);
        s.start_asap(0, 0); // seamless after it
        s.end(400);
        CPPUNIT_ASSERT(s.start_at(1000, t0, 0)); // timed: keeps its tick
        player p{ s };
        p.run(150);
        CPPUNIT_ASSERT(s.next().kind == what::piece);
        s.underflow(25); // the host is late: item 150 waits
        CPPUNIT_ASSERT_EQUAL(uint64_t(175), s.tick());
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), s.item());
        tx_burst_schedule::piece pc;
        s.requested(300);
        CPPUNIT_ASSERT(s.next_piece(pc));
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), pc.first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(325), pc.tick); // the follower moved with it
        s.requested(400);
        CPPUNIT_ASSERT(s.next_piece(pc));
        CPPUNIT_ASSERT_EQUAL(uint64_t(400), pc.first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), pc.tick); // the timed one did not
        p.run(2000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(424), p.ticks_of[399]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), p.ticks_of[400]);
        CPPUNIT_ASSERT_EQUAL(size_t(2), p.ended.size());
        // 2000 ticks: 2000 - 25 underflow = played + idle.
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000 - 25), p.idle + s.item());
    }

    void test_time_error_when_taken_up()
    {
        tx_burst_schedule s;
        s.reset(0, true, 100);
        player p{ s };
        p.run(20);
        CPPUNIT_ASSERT(!s.start_at(10, t0 + 10, 20)); // its tick passed
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.dropped(0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(120), s.dropped(120)); // open: all committed
        tx_burst_schedule::piece pc;
        CPPUNIT_ASSERT(!s.next_piece(pc)); // never READ
        CPPUNIT_ASSERT(s.drops_waiting());
        uint64_t from = 0, to = 0;
        // Handed out as committed, one message at a time, within the limit.
        CPPUNIT_ASSERT(s.take_dropped(150, 1000, from, to));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), from);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), to);
        CPPUNIT_ASSERT(s.take_dropped(150, 1000, from, to));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), from);
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), to);
        CPPUNIT_ASSERT(!s.take_dropped(150, 1000, from, to));
        s.end(250);
        CPPUNIT_ASSERT(s.start_at(300, t0 + 300, 20)); // the next one plays
        s.end(260);
        CPPUNIT_ASSERT(s.next_piece(pc));
        CPPUNIT_ASSERT_EQUAL(uint64_t(250), pc.first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(260), pc.end);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), pc.tick);
        CPPUNIT_ASSERT(s.take_dropped(300, 200, from, to)); // up to the limit
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), from);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), to);
        CPPUNIT_ASSERT(!s.take_dropped(300, 200, from, to));
        CPPUNIT_ASSERT(s.take_dropped(300, 1000, from, to));
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), from);
        CPPUNIT_ASSERT_EQUAL(uint64_t(250), to);
        CPPUNIT_ASSERT(!s.drops_waiting());
        p.run(400);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), p.ticks_of[250]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(400 - 10), p.idle);
        CPPUNIT_ASSERT_EQUAL(uint64_t(250), s.dropped(1000));
        // A timed START inside the burst before it (as it plays) is late too.
        tx_burst_schedule o;
        o.reset(0, true, 100);
        o.start_asap(0, 0);
        o.end(1000);
        CPPUNIT_ASSERT(!o.start_at(999, t0 + 999, 0));
        o.end(1100);
        CPPUNIT_ASSERT(o.start_at(1100, t0 + 1100, 0));
    }

    void test_time_error_found_by_the_converter()
    {
        tx_burst_schedule s;
        s.reset(0, true, 100);
        CPPUNIT_ASSERT(s.start_at(0, t0, 0));
        s.end(200);
        CPPUNIT_ASSERT(s.start_at(200, t0 + 200, 0)); // right after it, as planned
        s.end(300);
        s.start_asap(0, 0);
        s.end(350);
        s.requested(230); // the READs had gone ahead into the second burst
        player p{ s };
        p.run(100);
        CPPUNIT_ASSERT(s.next().kind == what::piece);
        s.underflow(3); // the first burst now ends at tick 203
        p.run(1000);
        CPPUNIT_ASSERT_EQUAL(size_t(1), p.errors.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), p.errors[0].item);
        CPPUNIT_ASSERT_EQUAL(t0 + 200, p.errors[0].time_ns);
        CPPUNIT_ASSERT_EQUAL(size_t(2), p.ended.size());
        // The dropped burst takes no time: the seamless one follows the first.
        CPPUNIT_ASSERT_EQUAL(uint64_t(203), p.ticks_of[300]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), s.dropped(1000));
        // What was READ before the drop completes as READ; the rest is handed out.
        uint64_t from = 0, to = 0;
        CPPUNIT_ASSERT(s.take_dropped(1000, 1000, from, to));
        CPPUNIT_ASSERT_EQUAL(uint64_t(230), from);
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), to);
    }

    void test_end_behind_the_converter()
    {
        tx_burst_schedule s;
        s.reset(0, true, 100);
        s.start_asap(0, 0);
        player p{ s };
        p.run(150);
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), s.end(120)); // the converter took 150
        s.start_asap(150, 0);
        s.end(200);
        p.run(300);
        CPPUNIT_ASSERT_EQUAL(size_t(2), p.ended.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), p.ended[0].item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), p.ticks_of[150]);
    }

    void test_bursts_are_retired()
    {
        // Many short bursts: the schedule never holds more than it can.
        tx_burst_schedule s;
        s.reset(0, true, 64);
        player p{ s };
        uint64_t item = 0;
        for (int i = 0; i < 3000; i++) {
            while (!s.can_start()) {
                p.run(s.tick() + 5);
                s.next_end_count(s.item() / 64);
            }
            s.start_asap(s.tick(), 0);
            item += 5;
            s.end(item);
            tx_burst_schedule::piece pc;
            while (s.next_piece(pc))
                s.requested(pc.end);
            s.next_end_count(s.item() / 64);
        }
        p.run(s.tick() + 10000);
        CPPUNIT_ASSERT_EQUAL(size_t(3000), p.ended.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(15000), s.item());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_burst_schedule);
