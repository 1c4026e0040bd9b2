/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The control loop's event queues (docs/links.md, "Software control of the data
// path"): keep-latest coalescing per (stream, link) queue, kinds kept apart within a
// queue, stream-wide kinds in one queue per stream, oldest queue first, the counters'
// identity, and nothing out of range indexing past the queues.

#include "ctrl_event_queue.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <vector>

using namespace gr::rdma::emu;

class qa_ctrl_event_queue : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ctrl_event_queue);
    CPPUNIT_TEST(test_thousand_events_one_processed);
    CPPUNIT_TEST(test_kinds_kept_apart_latest_each);
    CPPUNIT_TEST(test_stream_kinds_share_one_queue);
    CPPUNIT_TEST(test_oldest_queue_first);
    CPPUNIT_TEST(test_counters_add_up);
    CPPUNIT_TEST(test_out_of_range_rejected);
    CPPUNIT_TEST(test_reset);
    CPPUNIT_TEST_SUITE_END();

    std::vector<ctrl_record> d_out = std::vector<ctrl_record>(ctrl_max_queues);

public:
    void test_thousand_events_one_processed()
    {
        ctrl_event_queue q;
        for (uint64_t i = 1; i <= 1000; i++)
            q.post({ ctrl_kind::rtt, 3, 1, i });
        CPPUNIT_ASSERT_EQUAL(size_t(1), q.pending());
        CPPUNIT_ASSERT_EQUAL(size_t(1), q.take(d_out.data()));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), q.events());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), q.processed());
        CPPUNIT_ASSERT_EQUAL(uint64_t(999), q.coalesced());
        // Keep-latest: the last value is what the loop sees.
        CPPUNIT_ASSERT_EQUAL(uint8_t(3), d_out[0].stream);
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), d_out[0].link);
        CPPUNIT_ASSERT(d_out[0].has(ctrl_kind::rtt));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), d_out[0].get(ctrl_kind::rtt));
        CPPUNIT_ASSERT_EQUAL(size_t(0), q.pending());
        CPPUNIT_ASSERT_EQUAL(size_t(0), q.take(d_out.data()));
    }

    void test_kinds_kept_apart_latest_each()
    {
        ctrl_event_queue q;
        q.post({ ctrl_kind::link, 0, 2, 0 }); // down
        q.post({ ctrl_kind::rtt, 0, 2, 500 });
        q.post({ ctrl_kind::nak, 0, 2, 7 });
        q.post({ ctrl_kind::rtt, 0, 2, 800 });
        CPPUNIT_ASSERT_EQUAL(size_t(1), q.take(d_out.data()));
        const ctrl_record& r = d_out[0];
        CPPUNIT_ASSERT(r.has(ctrl_kind::link));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.get(ctrl_kind::link));
        CPPUNIT_ASSERT_EQUAL(uint64_t(800), r.get(ctrl_kind::rtt));
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), r.get(ctrl_kind::nak));
        CPPUNIT_ASSERT(!r.has(ctrl_kind::demand));
        CPPUNIT_ASSERT(!r.has(ctrl_kind::host));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), q.coalesced());
        // A record taken starts afresh: kinds of the last one are not present again.
        q.post({ ctrl_kind::nak, 0, 2, 9 });
        CPPUNIT_ASSERT_EQUAL(size_t(1), q.take(d_out.data()));
        CPPUNIT_ASSERT(!d_out[0].has(ctrl_kind::link));
        CPPUNIT_ASSERT(!d_out[0].has(ctrl_kind::rtt));
        CPPUNIT_ASSERT_EQUAL(uint64_t(9), d_out[0].get(ctrl_kind::nak));
    }

    void test_stream_kinds_share_one_queue()
    {
        ctrl_event_queue q;
        q.post({ ctrl_kind::demand, 5, 3, 100 });
        q.post({ ctrl_kind::rtt, 5, 1, 10 });
        q.post({ ctrl_kind::demand, 5, 1, 200 }); // names link 1: still queue (5, 0)
        q.post({ ctrl_kind::host, 5, 7, 50 });
        CPPUNIT_ASSERT_EQUAL(size_t(2), q.take(d_out.data()));
        CPPUNIT_ASSERT_EQUAL(uint8_t(0), d_out[0].link);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), d_out[0].get(ctrl_kind::demand));
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), d_out[0].get(ctrl_kind::host));
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), d_out[1].link);
        CPPUNIT_ASSERT(!d_out[1].has(ctrl_kind::demand));
    }

    void test_oldest_queue_first()
    {
        ctrl_event_queue q;
        q.post({ ctrl_kind::rtt, 2, 0, 1 });
        q.post({ ctrl_kind::rtt, 0, 1, 1 });
        q.post({ ctrl_kind::rtt, 1, 0, 1 });
        q.post({ ctrl_kind::rtt, 2, 0, 2 }); // coalesced: keeps its place
        CPPUNIT_ASSERT_EQUAL(size_t(3), q.take(d_out.data()));
        CPPUNIT_ASSERT_EQUAL(uint8_t(2), d_out[0].stream);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), d_out[0].get(ctrl_kind::rtt));
        CPPUNIT_ASSERT_EQUAL(uint8_t(0), d_out[1].stream);
        CPPUNIT_ASSERT_EQUAL(uint8_t(1), d_out[2].stream);
    }

    void test_counters_add_up()
    {
        // Every queue, many events, takes in between: events = processed + coalesced
        // + pending at every step, and a take never returns more than the queues.
        ctrl_event_queue q;
        uint32_t x = 12345;
        for (int round = 0; round < 200; round++) {
            const int n = 1 + round * 7 % 500;
            for (int i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                q.post({ ctrl_kind((x >> 8) % ctrl_kinds),
                         uint8_t(x >> 12 & 15),
                         uint8_t(x >> 16 & 7),
                         x });
            }
            CPPUNIT_ASSERT_EQUAL(q.events(), q.processed() + q.coalesced() + q.pending());
            CPPUNIT_ASSERT(q.take(d_out.data()) <= ctrl_max_queues);
            CPPUNIT_ASSERT_EQUAL(q.events(), q.processed() + q.coalesced());
        }
    }

    void test_out_of_range_rejected()
    {
        ctrl_event_queue q;
        q.post({ ctrl_kind::rtt, ctrl_max_streams, 0, 1 });
        q.post({ ctrl_kind::rtt, 0, ctrl_max_links, 1 });
        q.post({ ctrl_kind(ctrl_kinds), 0, 0, 1 });
        // A stream-wide kind goes to link 0 whatever link it names: accepted.
        q.post({ ctrl_kind::demand, 0, 200, 1 });
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), q.rejected());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), q.events());
        CPPUNIT_ASSERT_EQUAL(size_t(1), q.pending());
        CPPUNIT_ASSERT_EQUAL(ctrl_max_queues, ctrl_event_queue::queue_of(16, 0));
        CPPUNIT_ASSERT_EQUAL(ctrl_rx_queues - 1, ctrl_event_queue::queue_of(15, 7));
        // The TX streams' queues come after the RX streams' (stream, link) ones.
        CPPUNIT_ASSERT_EQUAL(ctrl_rx_queues, ctrl_event_queue::tx_queue_of(0));
        CPPUNIT_ASSERT_EQUAL(ctrl_max_queues - 1,
                             ctrl_event_queue::tx_queue_of(ctrl_max_tx_streams - 1));
        CPPUNIT_ASSERT_EQUAL(ctrl_max_queues,
                             ctrl_event_queue::tx_queue_of(ctrl_max_tx_streams));
        q.post({ ctrl_kind::reread, ctrl_max_tx_streams, 0, 1 });
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), q.rejected());
        // A TX stream's re-reads: its own queue, whatever link the event names.
        q.post({ ctrl_kind::reread, 0, 5, 1 });
        CPPUNIT_ASSERT_EQUAL(size_t(2), q.pending());
        std::vector<ctrl_record> out(ctrl_max_queues);
        CPPUNIT_ASSERT_EQUAL(size_t(2), q.take(out.data()));
        CPPUNIT_ASSERT(out[1].has(ctrl_kind::reread));
        CPPUNIT_ASSERT_EQUAL(uint8_t(0), out[1].link);
    }

    void test_reset()
    {
        ctrl_event_queue q;
        q.post({ ctrl_kind::rtt, 1, 1, 1 });
        q.post({ ctrl_kind::rtt, 1, 1, 2 });
        q.reset();
        CPPUNIT_ASSERT_EQUAL(size_t(0), q.pending());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.events());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.coalesced());
        CPPUNIT_ASSERT_EQUAL(size_t(0), q.take(d_out.data()));
        q.post({ ctrl_kind::rtt, 1, 1, 3 });
        CPPUNIT_ASSERT_EQUAL(size_t(1), q.take(d_out.data()));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), d_out[0].get(ctrl_kind::rtt));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ctrl_event_queue);
