/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A run over several destinations that continues a stream (docs/register-map.md,
// "Continuing a stream over several destinations"): with RX_FIRST_MESSAGE = F the
// device's schedule, ring slots, immediates and EPOCH_SCHEDULED are those of local
// messages F, F + 1, ..., epoch 0 beginning at F; START refuses an F that is not a
// window boundary, and any F with several shares.

#include "destination_table.h"
#include "inproc_wire.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using namespace gr::rdma;

namespace {

// Two destinations 3:1, windows of 4 messages, rings of 16 messages of 1 KiB.
emu::rx_descriptor two_destinations(uint64_t first_message)
{
    emu::rx_descriptor d;
    d.payload_bytes = 1024;
    d.notify_interval = 4;
    d.ring_bytes = 16 * d.payload_bytes;
    d.dest_qpn = 0x10;
    d.start_psn = 100;
    d.va = 0x100000;
    d.first_message = first_message;
    d.destinations[0].weight = 3;
    regs::destination_values& v = d.destinations[1];
    v.qpn = 0x11;
    v.destination = socket_address::parse("127.0.0.1:9");
    v.ring_bytes = d.ring_bytes;
    v.va = 0x200000;
    v.start_psn = 500;
    v.weight = 1;
    return d;
}

} // namespace

class qa_links_continue : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_links_continue);
    CPPUNIT_TEST(test_start_checks_the_first_message);
    CPPUNIT_TEST(test_the_schedule_begins_at_the_first_message);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_start_checks_the_first_message()
    {
        namespace ec = regs::error_code;
        CPPUNIT_ASSERT_EQUAL(
            ec::none, emu::destination_table::validate(two_destinations(8), nullptr));
        // Inside a window: epochs begin at window boundaries only.
        CPPUNIT_ASSERT_EQUAL(
            ec::bad_destinations,
            emu::destination_table::validate(two_destinations(6), nullptr));
        // Without windows (N = 0) any message is a boundary.
        emu::rx_descriptor any = two_destinations(6);
        any.notify_interval = 0;
        CPPUNIT_ASSERT_EQUAL(ec::none, emu::destination_table::validate(any, nullptr));
        // Queued bursts number their own messages: refused as before.
        emu::rx_descriptor queued = two_destinations(8);
        queued.queued = true;
        CPPUNIT_ASSERT_EQUAL(ec::bad_destinations,
                             emu::destination_table::validate(queued, nullptr));
        // Several shares follow one run from message 0.
        emu::rx_descriptor shared = two_destinations(8);
        shared.shares = 2;
        shared.share_block = 16;
        shared.destinations[1] = regs::destination_values{};
        shared.destinations[4] = two_destinations(8).destinations[1];
        CPPUNIT_ASSERT_EQUAL(ec::bad_destinations,
                             emu::destination_table::validate(shared, nullptr));
        shared.first_message = 0;
        CPPUNIT_ASSERT_EQUAL(ec::none, emu::destination_table::validate(shared, nullptr));
        // One destination routes nothing: a run may continue from any message, and
        // its epoch 0 says where.
        emu::rx_descriptor one = two_destinations(37);
        one.destinations[1] = regs::destination_values{};
        CPPUNIT_ASSERT_EQUAL(ec::none, emu::destination_table::validate(one, nullptr));
        emu::inproc_wire fallback(socket_address::parse("127.0.0.1:0"));
        emu::destination_table t(one, nullptr, fallback);
        CPPUNIT_ASSERT(!t.routing());
        CPPUNIT_ASSERT_EQUAL(uint64_t(37), t.epoch_entry(0).first);
        t.poll(5);
        CPPUNIT_ASSERT_EQUAL(uint64_t(42), t.scheduled());
    }

    void test_the_schedule_begins_at_the_first_message()
    {
        const uint64_t F = 1000; // a multiple of 4, not of the ring's 16
        const emu::rx_descriptor d = two_destinations(F);
        emu::inproc_wire fallback(socket_address::parse("127.0.0.1:0"));
        emu::destination_table t(d, nullptr, fallback);
        CPPUNIT_ASSERT(t.routing());
        // Epoch 0 begins at F, and nothing of the run is scheduled yet.
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), t.epoch_count());
        CPPUNIT_ASSERT_EQUAL(F, t.epoch_entry(0).first);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), t.epoch_entry(0).number);
        CPPUNIT_ASSERT_EQUAL(F, t.scheduled());
        // SWRR 3:1 from step 0 at F: 0 0 1 0 per period; the last of each destination
        // in a window [4w, 4w + 4) of local messages notifies.
        const uint8_t pattern[4] = { 0, 0, 1, 0 };
        const bool notifies[4] = { false, false, true, true };
        uint32_t psn[2] = { d.start_psn, d.destinations[1].start_psn };
        const uint64_t va[2] = { d.va, d.destinations[1].va };
        for (uint64_t i = F; i < F + 64; i++) {
            const size_t packets = 2;
            const emu::message_route r = t.route(i, packets, 0);
            const unsigned step = unsigned((i - F) % 4);
            CPPUNIT_ASSERT_EQUAL(pattern[step], r.destination);
            CPPUNIT_ASSERT_EQUAL(notifies[step], r.immediate);
            CPPUNIT_ASSERT_EQUAL(uint32_t(i), r.imm);
            CPPUNIT_ASSERT_EQUAL(va[r.destination] + (i % 16) * d.payload_bytes, r.va);
            // Each destination's PSNs start again at its DST_START_PSN in a new run.
            CPPUNIT_ASSERT_EQUAL(psn[r.destination], r.first_psn);
            psn[r.destination] += packets;
            CPPUNIT_ASSERT_EQUAL(i + 1, t.scheduled());
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(48), t.counters(0).messages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), t.counters(1).messages);
        // A weight change begins epoch 1 at the next window boundary, above F.
        CPPUNIT_ASSERT(t.set_weight(1, 3));
        t.route(F + 64, 1, 0);
        CPPUNIT_ASSERT_EQUAL(uint32_t(2), t.epoch_count());
        CPPUNIT_ASSERT_EQUAL(F + 64, t.epoch_entry(1).first);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_links_continue);
