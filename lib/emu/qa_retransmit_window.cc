/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The RC requester's rules, one by one, on the pure state machine: cumulative ACKs,
// go-back-N on a NAK, eviction and zero substitution counted once, the timer (probe,
// go back, backoff, give up), RNR backoff, and PSNs that wrap.

#include "retransmit_window.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma::emu;
using verdict = retransmit_window::verdict;

namespace {

constexpr int64_t ms = 1000000;

retransmit_window make(uint64_t capacity, uint32_t start_psn = 1000)
{
    retransmit_window::config c;
    c.start_psn = start_psn;
    c.capacity_packets = capacity;
    c.timeout_ns = 2 * ms;
    c.probe_limit = 2;
    c.retry_limit = 5;
    return retransmit_window(c);
}

} // namespace

class qa_retransmit_window : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_retransmit_window);
    CPPUNIT_TEST(test_cumulative_ack);
    CPPUNIT_TEST(test_psn_wrap);
    CPPUNIT_TEST(test_nak_goes_back_n);
    CPPUNIT_TEST(test_eviction_and_substitution_counted_once);
    CPPUNIT_TEST(test_capacity_at_least_one);
    CPPUNIT_TEST(test_packets_sent_as_zeros_stay_zeros);
    CPPUNIT_TEST(test_timer_needs_an_ack_request);
    CPPUNIT_TEST(test_timeout_probes_then_goes_back);
    CPPUNIT_TEST(test_timeout_after_unanswered_nak_goes_back_to_it);
    CPPUNIT_TEST(test_progress_restarts_the_timer);
    CPPUNIT_TEST(test_gives_up_after_retry_limit);
    CPPUNIT_TEST(test_rnr_backoff);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_cumulative_ack()
    {
        auto w = make(100);
        CPPUNIT_ASSERT(w.all_acked());
        CPPUNIT_ASSERT(w.on_ack(1000, 0) == verdict::invalid); // nothing sent yet
        w.on_sent(10, 0, 0);
        CPPUNIT_ASSERT(!w.all_acked());
        CPPUNIT_ASSERT(!w.busy(0));
        CPPUNIT_ASSERT(w.on_ack(1004, 0) == verdict::progress); // packets 0..4
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), w.acked());
        CPPUNIT_ASSERT(w.on_ack(1002, 0) == verdict::stale);
        CPPUNIT_ASSERT(w.on_ack(1004, 0) == verdict::stale);   // a duplicate re-ACK
        CPPUNIT_ASSERT(w.on_ack(1010, 0) == verdict::invalid); // never sent
        CPPUNIT_ASSERT(w.on_ack(999, 0) == verdict::invalid);  // before the first packet
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), w.acked());
        CPPUNIT_ASSERT(w.on_ack(1009, 0) == verdict::progress);
        CPPUNIT_ASSERT(w.all_acked());
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), w.floor());
    }

    void test_psn_wrap()
    {
        auto w = make(100, 0xFFFFFE);
        CPPUNIT_ASSERT_EQUAL(0xFFFFFEu, w.psn_of(0));
        CPPUNIT_ASSERT_EQUAL(0x000001u, w.psn_of(3));
        w.on_sent(6, 0, 0);
        CPPUNIT_ASSERT(w.on_ack(0xFFFFFF, 0) == verdict::progress);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), w.acked());
        CPPUNIT_ASSERT(w.on_nak(0x000001, 0) == verdict::progress); // expects packet 3
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), w.acked());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), w.resend_next());
        CPPUNIT_ASSERT(w.on_ack(0x000003, 0) == verdict::progress);
        CPPUNIT_ASSERT(w.all_acked());
    }

    void test_nak_goes_back_n()
    {
        auto w = make(1000);
        w.on_sent(50, 0, 0);
        // The host got 0..19 and expects 20: everything from 20 goes again, in order.
        CPPUNIT_ASSERT(w.on_nak(1020, 1 * ms) == verdict::progress);
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), w.acked());
        CPPUNIT_ASSERT(w.busy(1 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), w.resend_next());
        for (uint64_t p = 20; p < 50; p++)
            CPPUNIT_ASSERT(w.holds(p));
        w.on_resent(36, true, 1 * ms);
        CPPUNIT_ASSERT(w.busy(1 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(36), w.resend_next());
        w.on_resent(50, true, 1 * ms);
        CPPUNIT_ASSERT(!w.busy(1 * ms));
        // A NAK before the frontier is stale; a NAK for a PSN never sent is invalid.
        CPPUNIT_ASSERT(w.on_nak(1010, 1 * ms) == verdict::stale);
        CPPUNIT_ASSERT(w.on_nak(1060, 1 * ms) == verdict::invalid);
        CPPUNIT_ASSERT(!w.busy(1 * ms));
        // New packets follow; an ACK during a go-back skips what the host has.
        w.on_sent(60, 0, 2 * ms);
        CPPUNIT_ASSERT(w.on_nak(1040, 2 * ms) == verdict::progress);
        CPPUNIT_ASSERT(w.on_ack(1044, 2 * ms) == verdict::progress);
        CPPUNIT_ASSERT_EQUAL(uint64_t(45), w.resend_next());
    }

    void test_eviction_and_substitution_counted_once()
    {
        auto w = make(4);
        w.on_sent(10, 0, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), w.floor()); // holds the newest 4: 6..9
        w.on_nak(1003, 0);
        CPPUNIT_ASSERT(!w.holds(3) && !w.holds(5));
        CPPUNIT_ASSERT(w.holds(6) && w.holds(9));
        // Sent as zeros: 3, 4, 5; each counted once, even when it goes again.
        CPPUNIT_ASSERT(w.first_substitution(3));
        CPPUNIT_ASSERT(w.first_substitution(4));
        CPPUNIT_ASSERT(w.first_substitution(5));
        w.on_resent(10, true, 0);
        w.on_nak(1004, 0); // the resent 4 was lost: from 4 again
        CPPUNIT_ASSERT(!w.first_substitution(4));
        CPPUNIT_ASSERT(!w.first_substitution(5));
        w.on_resent(10, true, 0);
        // Acknowledged packets leave the window; floor never goes below acked.
        w.on_ack(1007, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), w.floor());
        w.on_sent(20, 0, 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), w.floor());
        w.on_nak(1012, 0);
        CPPUNIT_ASSERT(w.first_substitution(12)); // beyond the counted frontier
    }

    void test_capacity_at_least_one()
    {
        auto w = make(0);
        w.on_sent(5, 0, 0);
        CPPUNIT_ASSERT(w.holds(4)); // the probe is always held
        CPPUNIT_ASSERT(!w.holds(3));
    }

    void test_packets_sent_as_zeros_stay_zeros()
    {
        auto w = make(100);
        w.on_sent(30, 0, 0);
        w.mark_zeros(10, 12);
        w.mark_zeros(12, 14); // one run
        w.mark_zeros(20, 21);
        CPPUNIT_ASSERT(w.holds(9) && !w.holds(10) && !w.holds(13) && w.holds(14));
        CPPUNIT_ASSERT(!w.holds(20) && w.holds(21));
        // A go-back over them: counted when first sent, not again; the rest as usual.
        w.on_nak(1005, 0);
        CPPUNIT_ASSERT(!w.first_substitution(10));
        CPPUNIT_ASSERT(!w.first_substitution(13));
        CPPUNIT_ASSERT(w.first_substitution(14)); // were it evicted
        CPPUNIT_ASSERT(!w.first_substitution(20));
        // The oldest runs are forgotten first.
        for (uint64_t k = 0; k < retransmit_window::zero_ranges; k++)
            w.mark_zeros(100 + 2 * k, 101 + 2 * k);
        CPPUNIT_ASSERT(!w.sent_as_zeros(10) && !w.sent_as_zeros(20));
        CPPUNIT_ASSERT(w.sent_as_zeros(100) && !w.sent_as_zeros(101));
    }

    void test_timer_needs_an_ack_request()
    {
        auto w = make(100);
        w.on_sent(10, 0, 0); // no AckReq: no answer is due, nothing times out
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, w.next_deadline());
        CPPUNIT_ASSERT(!w.on_timer(100 * ms));
        w.on_sent(20, 16, 100 * ms); // packet 15 asked for an ACK
        CPPUNIT_ASSERT_EQUAL(102 * ms, w.next_deadline());
        CPPUNIT_ASSERT(w.on_ack(1015, 101 * ms) == verdict::progress);
        // Answered: 16..19 asked nothing, so the timer is off again.
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, w.next_deadline());
        CPPUNIT_ASSERT(!w.on_timer(200 * ms));
    }

    void test_timeout_probes_then_goes_back()
    {
        auto w = make(100);
        w.on_sent(10, 10, 0); // the tail (9, AckReq) is lost: no NAK will come
        CPPUNIT_ASSERT(!w.on_timer(2 * ms - 1));
        CPPUNIT_ASSERT(w.on_timer(2 * ms));
        CPPUNIT_ASSERT(w.busy(2 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(9), w.resend_next()); // the probe: newest packet
        w.on_resent(10, true, 2 * ms);
        CPPUNIT_ASSERT(!w.busy(2 * ms));
        // Unanswered: the next expiry comes after twice the timeout, probes again...
        CPPUNIT_ASSERT(!w.on_timer(6 * ms - 1));
        CPPUNIT_ASSERT(w.on_timer(6 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(9), w.resend_next());
        w.on_resent(10, true, 6 * ms);
        // ... then goes back to the oldest unacknowledged packet (a NAK was lost).
        CPPUNIT_ASSERT(w.on_timer(14 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), w.resend_next());
        // The probe's answer ends it: the host had everything.
        w.on_resent(10, true, 14 * ms);
        CPPUNIT_ASSERT(w.on_ack(1009, 15 * ms) == verdict::progress);
        CPPUNIT_ASSERT(w.all_acked());
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, w.next_deadline());
    }

    void test_timeout_after_unanswered_nak_goes_back_to_it()
    {
        auto w = make(100);
        w.on_sent(10, 10, 0);
        w.on_nak(1004, 1 * ms);
        w.on_resent(10, true, 1 * ms); // the resend of 4.. is lost: the host stays silent
        CPPUNIT_ASSERT(w.on_timer(3 * ms));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), w.resend_next()); // not a probe: 4 is missing
    }

    void test_progress_restarts_the_timer()
    {
        auto w = make(100);
        w.on_sent(32, 32, 0);
        CPPUNIT_ASSERT(w.on_ack(1015, 1500000) == verdict::progress);
        CPPUNIT_ASSERT(!w.on_timer(3 * ms)); // restarted at 1.5 ms
        CPPUNIT_ASSERT(w.on_timer(3500000));
    }

    void test_gives_up_after_retry_limit()
    {
        auto w = make(100);
        w.on_sent(10, 10, 0);
        int64_t now = 0;
        for (int i = 0; i < 5; i++) {
            now = w.next_deadline();
            CPPUNIT_ASSERT(w.on_timer(now));
            CPPUNIT_ASSERT(w.busy(now));
            w.on_resent(10, true, now);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), w.abandoned());
        now = w.next_deadline();
        CPPUNIT_ASSERT(w.on_timer(now)); // the 6th expiry: beyond retry_limit
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), w.abandoned());
        CPPUNIT_ASSERT(w.all_acked());
        CPPUNIT_ASSERT(!w.busy(now));
        CPPUNIT_ASSERT_EQUAL(INT64_MAX, w.next_deadline());
    }

    void test_rnr_backoff()
    {
        auto w = make(100);
        w.on_sent(10, 10, 0);
        CPPUNIT_ASSERT(w.on_rnr(1006, 640000, 1 * ms) == verdict::progress);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), w.acked());
        CPPUNIT_ASSERT(w.busy(1 * ms));
        CPPUNIT_ASSERT(w.paused(1 * ms));
        // The host NAKs what followed the refused packet: the backoff covers it.
        CPPUNIT_ASSERT(w.on_nak(1006, 1100000) == verdict::stale);
        CPPUNIT_ASSERT(w.paused(1639999));
        CPPUNIT_ASSERT_EQUAL(int64_t(1640000), w.next_deadline());
        CPPUNIT_ASSERT(!w.on_timer(1639999));
        CPPUNIT_ASSERT(!w.paused(1640000));
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), w.resend_next()); // then from the refused one
        w.on_resent(10, true, 1640000);
        CPPUNIT_ASSERT(w.on_ack(1009, 1700000) == verdict::progress);
        CPPUNIT_ASSERT(w.all_acked());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_retransmit_window);
