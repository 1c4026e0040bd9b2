/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's copy of the device's schedule (docs/links.md, "What the host does"):
// epochs followed in order, what each changed, and a device whose schedule cannot be
// followed refused with the reason.

#include "../regs/link_registers.h"
#include "epoch_follower.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;
using kind = epoch_follower::change::kind;
namespace cause = regs::epoch::cause_code;

namespace {

constexpr uint32_t notify = 4;

regs::epoch_values epoch(uint32_t number,
                         uint64_t first,
                         uint32_t why,
                         uint32_t link,
                         uint16_t w0,
                         uint16_t w1)
{
    regs::epoch_values e;
    e.number = number;
    e.first = first;
    e.cause = why;
    e.link = link;
    e.weights[0] = w0;
    e.weights[1] = w1;
    return e;
}

epoch_snapshot snapshot(uint64_t known,
                        std::initializer_list<regs::epoch_values> epochs,
                        uint32_t count = 0)
{
    epoch_snapshot s;
    s.known_messages = known;
    for (const regs::epoch_values& e : epochs)
        s.epochs[s.kept++] = e;
    s.epoch_count = count ? count : (s.kept ? s.epochs[s.kept - 1].number + 1 : 0);
    return s;
}

struct fixture {
    regs::link_schedule schedule;
    destination_progress progress;
    epoch_follower follower;
    explicit fixture(uint16_t w0 = 1, uint16_t w1 = 1)
    {
        epoch_follower::weights_t w{};
        w[0] = w0;
        w[1] = w1;
        schedule.begin_epoch(0, w, notify);
        progress.reset(schedule, 256, 0, notify, 4);
        follower.reset(schedule, progress, 2, w, notify);
    }
};

} // namespace

class qa_epoch_follower : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_epoch_follower);
    CPPUNIT_TEST(test_nothing_is_known_before_epoch_0);
    CPPUNIT_TEST(test_epochs_are_followed_and_say_what_changed);
    CPPUNIT_TEST(test_a_link_down_at_start_replaces_the_programmed_weights);
    CPPUNIT_TEST(test_missed_epochs_end_the_following);
    CPPUNIT_TEST(test_an_epoch_below_what_was_known_is_refused);
    CPPUNIT_TEST(test_the_schedule_is_believed_only_as_far_as_possible);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_nothing_is_known_before_epoch_0()
    {
        fixture f;
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.progress.known());
        CPPUNIT_ASSERT(f.follower.follow(snapshot(8, {}), 100));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.progress.known());
        CPPUNIT_ASSERT(
            f.follower.follow(snapshot(8, { epoch(0, 0, cause::start, 0, 1, 1) }), 100));
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), f.progress.known());
        CPPUNIT_ASSERT_EQUAL(0u, f.follower.change_count());
    }

    void test_epochs_are_followed_and_say_what_changed()
    {
        fixture f;
        const auto e0 = epoch(0, 0, cause::start, 0, 1, 1);
        const auto e1 = epoch(1, 8, cause::host_down, 1, 1, 0);
        const auto e2 = epoch(2, 16, cause::link_up, 1, 1, 1);
        CPPUNIT_ASSERT(f.follower.follow(snapshot(8, { e0 }), 100));
        CPPUNIT_ASSERT(f.follower.follow(snapshot(20, { e0, e1, e2 }), 100));
        CPPUNIT_ASSERT_EQUAL(uint32_t(3), f.follower.followed());
        CPPUNIT_ASSERT_EQUAL(4u, f.follower.change_count());
        CPPUNIT_ASSERT(f.follower.change_at(0).what == kind::schedule);
        CPPUNIT_ASSERT(f.follower.change_at(1).what == kind::link_down);
        CPPUNIT_ASSERT_EQUAL(1u, f.follower.change_at(1).link);
        CPPUNIT_ASSERT_EQUAL(cause::host_down, f.follower.change_at(1).by);
        CPPUNIT_ASSERT(f.follower.change_at(3).what == kind::link_up);
        // The host's schedule is the device's: 8..15 all destination 0.
        for (uint64_t m = 8; m < 16; m++)
            CPPUNIT_ASSERT_EQUAL(uint8_t(0), f.schedule.destination_of(m));
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), f.schedule.destination_of(17));
        // A repeat of the same snapshot changes nothing.
        CPPUNIT_ASSERT(f.follower.follow(snapshot(20, { e0, e1, e2 }), 100));
        CPPUNIT_ASSERT_EQUAL(0u, f.follower.change_count());
    }

    void test_a_link_down_at_start_replaces_the_programmed_weights()
    {
        fixture f;
        CPPUNIT_ASSERT(
            f.follower.follow(snapshot(4, { epoch(0, 0, cause::start, 0, 1, 0) }), 100));
        CPPUNIT_ASSERT_EQUAL(1u, f.follower.change_count());
        CPPUNIT_ASSERT(f.follower.change_at(0).what == kind::link_down);
        CPPUNIT_ASSERT_EQUAL(1u, f.follower.change_at(0).link);
        CPPUNIT_ASSERT_EQUAL(uint8_t(0), f.schedule.destination_of(1));
    }

    void test_missed_epochs_end_the_following()
    {
        fixture f;
        CPPUNIT_ASSERT(
            f.follower.follow(snapshot(4, { epoch(0, 0, cause::start, 0, 1, 1) }), 100));
        // Epochs 1..5 begun, only 2..5 shown: epoch 1 is gone.
        const bool ok =
            f.follower.follow(snapshot(40,
                                       { epoch(2, 12, cause::weights, 0, 2, 1),
                                         epoch(3, 16, cause::weights, 0, 1, 2),
                                         epoch(4, 20, cause::weights, 0, 1, 1),
                                         epoch(5, 24, cause::weights, 0, 3, 1) }),
                              100);
        CPPUNIT_ASSERT(!ok);
        CPPUNIT_ASSERT(f.follower.why().find("faster than the host read them") !=
                       std::string::npos);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), f.progress.known());     // no further
        CPPUNIT_ASSERT(!f.follower.follow(snapshot(40, {}), 100)); // and final
    }

    void test_an_epoch_below_what_was_known_is_refused()
    {
        fixture f;
        CPPUNIT_ASSERT(
            f.follower.follow(snapshot(12, { epoch(0, 0, cause::start, 0, 1, 1) }), 100));
        CPPUNIT_ASSERT(
            !f.follower.follow(snapshot(16,
                                        { epoch(0, 0, cause::start, 0, 1, 1),
                                          epoch(1, 8, cause::link_down, 1, 1, 0) }),
                               100));
        CPPUNIT_ASSERT(f.follower.why().find("below the 12") != std::string::npos);
        // Weights the schedule cannot take: refused too.
        fixture g;
        CPPUNIT_ASSERT(!g.follower.follow(
            snapshot(4, { epoch(0, 0, cause::start, 0, 1000, 100) }), 100));
        CPPUNIT_ASSERT(g.follower.why().find("is not one") != std::string::npos);
    }

    void test_the_schedule_is_believed_only_as_far_as_possible()
    {
        fixture f;
        CPPUNIT_ASSERT(f.follower.follow(
            snapshot(1000, { epoch(0, 0, cause::start, 0, 1, 1) }), 24));
        CPPUNIT_ASSERT_EQUAL(uint64_t(24), f.progress.known());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.follower.implausible());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_epoch_follower);
