/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device's schedule of shares alone (destination_table, no wire): a share that
// lags share 0 by a block larger than destination 0's ring must still find the epoch
// its next message belongs to (docs/register-map.md, "Shares", kept epochs).

#include "destination_table.h"
#include "inproc_wire.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

class qa_share_schedule : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_share_schedule);
    CPPUNIT_TEST(test_a_lagging_share_keeps_its_epoch);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_a_lagging_share_keeps_its_epoch()
    {
        // Two shares of 256 messages; share 0 over destinations 0 and 1, share 1 over
        // destination 4; rings of 16 messages, windows of 4.
        emu::rx_descriptor d;
        d.payload_bytes = 1024;
        d.notify_interval = 4;
        d.ring_bytes = 16 * d.payload_bytes;
        d.shares = 2;
        d.share_block = 256;
        d.dest_qpn = 0x10;
        for (unsigned i : { 1u, 4u }) {
            d.destinations[i].qpn = 0x10 + i;
            d.destinations[i].destination = socket_address::parse("127.0.0.1:9");
            d.destinations[i].ring_bytes = d.ring_bytes;
        }
        CPPUNIT_ASSERT_EQUAL(regs::error_code::none,
                             emu::destination_table::validate(d, nullptr));
        emu::inproc_wire fallback(socket_address::parse("127.0.0.1:0"));
        emu::destination_table t(d, nullptr, fallback);
        // Share 0's weights change at every window: an epoch per window, as far as
        // the kept epochs allow.
        uint32_t weight = 1;
        for (uint64_t m = 0; m < 4096; m++) {
            if (m % 4 == 0)
                CPPUNIT_ASSERT(t.set_weight(1, weight = 3 - weight));
            const emu::message_route r = t.route(m, 1, 0);
            const bool share1 = (m / 256) % 2 == 1;
            if (share1)
                CPPUNIT_ASSERT_EQUAL(uint8_t(4), r.destination);
            else
                CPPUNIT_ASSERT(r.destination == 0 || r.destination == 1);
            CPPUNIT_ASSERT_EQUAL(uint32_t(m / 512 * 256 + m % 256), r.imm);
        }
        // Share 1 starts at message 256: the epochs of share 0's first block that it
        // needs were kept until it had sent in them; the schedule went on after.
        const uint32_t epochs = t.epoch_count();
        CPPUNIT_ASSERT(epochs > 2 * emu::destination_table::kept_epochs);
        for (unsigned j = 0; j < emu::destination_table::kept_epochs; j++)
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.epoch_entry(j).first % 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2048), t.scheduled());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_share_schedule);
