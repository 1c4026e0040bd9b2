/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// destination_log: a destination's packet j names the message (and route) that held
// it, in the destination's own sequence; the newest messages only; a new run starts
// at packet 0.

#include "destination_log.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma::emu;

class qa_destination_log : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_destination_log);
    CPPUNIT_TEST(test_packets_name_their_message);
    CPPUNIT_TEST(test_only_the_newest_are_held);
    CPPUNIT_TEST_SUITE_END();

    static message_route route(uint32_t psn)
    {
        message_route r;
        r.destination = 1;
        r.first_psn = psn;
        return r;
    }

public:
    void test_packets_name_their_message()
    {
        // Messages 2, 3 and 6 of the stream went to this destination, 2 packets each
        // but the last (a burst's short one): its packets 0-1, 2-3 and 4.
        destination_log log(8);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), log.append(2, 2, route(100)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), log.append(3, 2, route(102)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), log.append(6, 1, route(104)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), log.packets());
        destination_log::entry e;
        const uint64_t message_of[] = { 2, 2, 3, 3, 6 };
        for (uint64_t j = 0; j < 5; j++) {
            CPPUNIT_ASSERT(log.find(j, e));
            CPPUNIT_ASSERT_EQUAL(message_of[j], e.message);
            CPPUNIT_ASSERT_EQUAL(uint32_t(100 + e.first_packet), e.route.first_psn);
        }
        CPPUNIT_ASSERT(!log.find(5, e)); // not sent
        log.reset();
        CPPUNIT_ASSERT(!log.find(0, e));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), log.append(9, 2, route(7)));
    }

    void test_only_the_newest_are_held()
    {
        destination_log log(3);
        for (uint64_t m = 0; m < 10; m++)
            log.append(m * 2, 4, route(uint32_t(m * 4)));
        CPPUNIT_ASSERT_EQUAL(size_t(3), log.size());
        destination_log::entry e;
        CPPUNIT_ASSERT(!log.find(27, e)); // message 12's: forgotten
        for (uint64_t j = 28; j < 40; j++) {
            CPPUNIT_ASSERT(log.find(j, e));
            CPPUNIT_ASSERT_EQUAL(j / 4 * 2, e.message);
            CPPUNIT_ASSERT_EQUAL(j / 4 * 4, e.first_packet);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_destination_log);
