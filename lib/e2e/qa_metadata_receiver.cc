/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host end of the metadata channel, its receiving side: the receiver against a
// fake device socket (what it accepts, what it counts and drops, sequence numbers) and
// the intake sorting records to the streams that read them. The clock refiner is
// qa_metadata_clock's, the monitor qa_metadata_monitor's.

#include "../device/metadata_receiver.h"
#include "qa_metadata_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace qa_metadata_helpers;
using namespace std::chrono_literals;

class qa_metadata_receiver : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_receiver);
    CPPUNIT_TEST(test_accepts_records_with_arrival_time);
    CPPUNIT_TEST(test_drops_and_counts_what_is_not_a_record);
    CPPUNIT_TEST(test_counts_lost_and_duplicates);
    CPPUNIT_TEST(test_more_than_one_batch_waiting);
    CPPUNIT_TEST(test_intake_sorts_records_by_stream);
    CPPUNIT_TEST(test_intake_tx_records_go_to_attached_streams_only);
    CPPUNIT_TEST(test_a_forged_sequence_jump_is_no_loss);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_accepts_records_with_arrival_time()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        CPPUNIT_ASSERT(rx.local_address().port() != 0);
        CPPUNIT_ASSERT_EQUAL(size_t(0), rx.poll()); // nothing waits: returns at once
        fake_device dev;
        const int64_t before = host_time_ns();
        dev.send(rx.local_address(), make(meta::record_type::timestamp, 42, 4242));
        const auto got = take(rx, 1);
        const int64_t after = host_time_ns();
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT(got[0].record.type == meta::record_type::timestamp);
        CPPUNIT_ASSERT_EQUAL(uint64_t(42), got[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4242), got[0].record.time_ns);
        // The kernel's arrival time: between sending and reading.
        CPPUNIT_ASSERT(got[0].arrival_ns >= before && got[0].arrival_ns <= after);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.counts().bad);
    }

    void test_drops_and_counts_what_is_not_a_record()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev, stranger("127.0.0.2");
        const auto good = encoded(make(meta::record_type::stream_end, 7, 7));
        auto bad_magic = good, bad_version = good, bad_type = good, longer = good;
        bad_magic[0] = 'g';
        bad_version[meta::offset::version] = 2;
        bad_type[meta::offset::type] = 9;
        longer.resize(41);
        for (const auto& b : { std::vector<uint8_t>(good.begin(), good.begin() + 39),
                               bad_magic,
                               bad_version,
                               bad_type,
                               longer,
                               std::vector<uint8_t>(9000, 0x47) })
            dev.send_bytes(rx.local_address(), b);
        stranger.send_bytes(rx.local_address(), good); // right form, wrong sender
        dev.send_bytes(rx.local_address(), good);
        const auto got = take(rx, 1);
        std::this_thread::sleep_for(20ms);
        CPPUNIT_ASSERT_EQUAL(size_t(0), rx.poll());
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT(got[0].record.type == meta::record_type::stream_end);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), rx.counts().bad);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.counts().lost);
    }

    void test_counts_lost_and_duplicates()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev;
        for (uint32_t s : { 10u, 11u, 14u, 12u, 12u, 11u, 15u }) {
            meta::record r = make(meta::record_type::timestamp, s, s);
            r.sequence = s;
            dev.send(rx.local_address(), r, true);
        }
        const auto got = take(rx, 5);
        std::this_thread::sleep_for(20ms);
        rx.poll();
        CPPUNIT_ASSERT_EQUAL(size_t(5), got.size());         // 10 11 14 12 15
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().lost); // 13
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), rx.counts().duplicates);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), rx.counts().packets);
    }

    void test_more_than_one_batch_waiting()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev;
        for (int i = 0; i < 50; i++)
            dev.send(rx.local_address(), make(meta::record_type::timestamp, i, i));
        std::this_thread::sleep_for(20ms);
        CPPUNIT_ASSERT_EQUAL(metadata_receiver::max_records, rx.poll());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.record(0).record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(18), rx.poll());
        CPPUNIT_ASSERT_EQUAL(uint64_t(32), rx.record(0).record.sample);
        // discard() drops what waits, yet still counts it.
        for (int i = 50; i < 100; i++)
            dev.send(rx.local_address(), make(meta::record_type::timestamp, i, i));
        std::this_thread::sleep_for(20ms);
        rx.discard();
        CPPUNIT_ASSERT_EQUAL(size_t(0), rx.poll());
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), rx.counts().packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.counts().lost);
    }

    void test_intake_sorts_records_by_stream()
    {
        // One destination for the whole device: each stream reads only its own
        // records, in order, whichever stream drained the socket; a full inbox loses
        // its oldest, counted.
        auto in = intake(0x7F000001);
        fake_device dev;
        const auto to = in->local_address();
        for (uint64_t k = 0; k < 6; k++)
            dev.send(to,
                     make(meta::record_type::timestamp,
                          k,
                          1000 + k,
                          0,
                          0,
                          static_cast<uint8_t>(k % 3)));
        dev.send(to, make(meta::record_type::timestamp, 99, 1099, 0, 0, 200)); // no such
        std::this_thread::sleep_for(50ms);
        received_record out[8];
        CPPUNIT_ASSERT_EQUAL(size_t(2), in->poll(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), out[1].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll(1, out, 8)); // taken once
        CPPUNIT_ASSERT_EQUAL(size_t(1), in->poll(0, out, 1)); // one at a time
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(1), in->poll(0, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(2), in->poll(2, out, 8));
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll(200, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), in->counts().packets);

        const size_t extra = 5;
        for (uint64_t k = 0; k < metadata_intake::inbox_records + extra; k++) {
            dev.send(to, make(meta::record_type::timestamp, k, 1000 + k, 0, 0, 2));
            if (k % 64 == 63) { // the socket's buffer is smaller than the inbox
                std::this_thread::sleep_for(20ms);
                in->poll(0, out, 0);
            }
        }
        std::this_thread::sleep_for(50ms);
        size_t got = 0;
        uint64_t first = UINT64_MAX;
        size_t n;
        while ((n = in->poll(2, out, 8)) > 0) {
            first = std::min(first, out[0].record.sample);
            got += n;
        }
        CPPUNIT_ASSERT_EQUAL(metadata_intake::inbox_records, got);
        CPPUNIT_ASSERT_EQUAL(uint64_t(extra), first); // the oldest went
        CPPUNIT_ASSERT_EQUAL(uint64_t(extra), in->overflowed(2));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), in->overflowed(0));
    }

    void test_intake_tx_records_go_to_attached_streams_only()
    {
        // Stream byte 0x80 + t: TX stream t's inbox, apart from RX stream t's, while a
        // TX stream of this process has it; else (and for a stream beyond the map's)
        // counted and dropped.
        auto in = intake(0x7F000001);
        fake_device dev;
        const auto to = in->local_address();
        auto tx_record = [](unsigned t, uint64_t sample) {
            return make(meta::record_type::event,
                        sample,
                        5000 + sample,
                        meta::event_code::tx_underflow,
                        1,
                        meta::tx_stream_byte(t));
        };
        dev.send(to, tx_record(1, 1)); // nobody has TX stream 1 yet
        std::this_thread::sleep_for(30ms);
        received_record out[8];
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll_tx(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), in->unclaimed());
        in->attach_tx(1);
        dev.send(to, tx_record(1, 2));
        dev.send(to, make(meta::record_type::timestamp, 3, 5003, 0, 0, 1)); // RX 1
        dev.send(to, tx_record(0, 4));  // TX 0: not attached
        dev.send(to, tx_record(20, 5)); // beyond the register map's TX streams
        dev.send(to, tx_record(1, 6));
        std::this_thread::sleep_for(50ms);
        CPPUNIT_ASSERT_EQUAL(size_t(2), in->poll_tx(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), out[1].record.sample);
        CPPUNIT_ASSERT_EQUAL(meta::tx_stream_byte(1), out[1].record.stream);
        CPPUNIT_ASSERT_EQUAL(size_t(1), in->poll(1, out, 8)); // RX 1 kept its own
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll_tx(0, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), in->unclaimed());
        // Bounded as the RX inboxes: the oldest go, counted.
        for (uint64_t k = 0; k < metadata_intake::inbox_records + 3; k++) {
            dev.send(to, tx_record(1, 100 + k));
            if (k % 64 == 63) {
                std::this_thread::sleep_for(20ms);
                in->poll(0, out, 0);
            }
        }
        std::this_thread::sleep_for(50ms);
        size_t got = 0, n;
        uint64_t first = UINT64_MAX;
        while ((n = in->poll_tx(1, out, 8)) > 0) {
            first = std::min(first, out[0].record.sample);
            got += n;
        }
        CPPUNIT_ASSERT_EQUAL(metadata_intake::inbox_records, got);
        CPPUNIT_ASSERT_EQUAL(uint64_t(103), first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), in->tx_overflowed(1));
        // Detached: nobody's again.
        in->detach_tx(1);
        dev.send(to, tx_record(1, 7));
        std::this_thread::sleep_for(30ms);
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll_tx(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), in->unclaimed());
    }

    void test_a_forged_sequence_jump_is_no_loss()
    {
        // A record whose sequence number lies 2^31 - 1 ahead would count that many
        // records lost; no loss explains a jump past max_jump: a new base instead.
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev;
        meta::record r = make(meta::record_type::timestamp, 1, 1);
        r.sequence = 10;
        dev.send(rx.local_address(), r, true);
        r.sequence = 10u + 0x7FFFFFFFu;
        dev.send(rx.local_address(), r, true);
        r.sequence = 11u + 0x7FFFFFFFu + 5u; // 5 lost after the new base
        dev.send(rx.local_address(), r, true);
        take(rx, 3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), rx.counts().lost);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().resyncs);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_receiver);
