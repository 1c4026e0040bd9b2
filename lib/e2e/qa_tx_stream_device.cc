/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// tx_stream from C++ against an emulator of this process reached over AXIoE
// (type=remote), whose register file shows what the host programmed: the TX block as
// docs/transmit.md lays it out, the ring and the control page remote-READ only.

#include "../emu/emulator.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct scene {
    emu::emulator dev{ emu::emulator_config{} };

    std::unique_ptr<tx_stream> stream(const std::string& extra = "")
    {
        return std::make_unique<tx_stream>(
            "type=remote,addr=" + dev.control_address().to_string() +
                ",tx_check=1,hugepages=off,latency=0.02" + extra,
            "sc16",
            1e6);
    }
};

// The ramp into the ring up to item \p total, in place.
uint64_t fill(tx_stream& t, uint64_t from, uint64_t total)
{
    while (from < total) {
        const tx_stream::space s = t.wait_space(1, 2s);
        if (!s.items)
            break;
        const size_t n = static_cast<size_t>(std::min<uint64_t>(s.items, total - from));
        CPPUNIT_ASSERT_EQUAL(from, s.first_item);
        ramp_fill(sample_format::sc16, from, n, static_cast<uint8_t*>(s.data));
        t.commit(n);
        from += n;
    }
    return from;
}

} // namespace

class qa_tx_stream_device : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_stream_device);
    CPPUNIT_TEST(test_device_programmed_as_the_layout_says);
    CPPUNIT_TEST(test_ramp_over_wraps_in_place);
    CPPUNIT_TEST(test_space_and_commit_bounds);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_device_programmed_as_the_layout_says()
    {
        scene sc;
        auto t = sc.stream(",notify=8,min_lead=0.001,max_lead=0.005");
        t->start();
        const emu::tx_descriptor d = sc.dev.registers().tx_descriptor_of(0);
        CPPUNIT_ASSERT_EQUAL(reinterpret_cast<uintptr_t>(t->ring_base()),
                             uintptr_t(d.va));
        CPPUNIT_ASSERT_EQUAL(uint64_t(t->ring_bytes()), d.ring_bytes);
        CPPUNIT_ASSERT_EQUAL(uint32_t(t->payload_bytes()), d.payload_bytes);
        CPPUNIT_ASSERT_EQUAL(uint32_t(t->path_mtu()), d.path_mtu);
        CPPUNIT_ASSERT_EQUAL(uint32_t(8), d.notify_interval);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1000000), d.rate_num);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), d.rate_den);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1000000), d.min_lead_ns);
        CPPUNIT_ASSERT_EQUAL(uint32_t(5000000), d.max_lead_ns);
        CPPUNIT_ASSERT(d.rkey != d.ctrl_rkey); // two MRs
        CPPUNIT_ASSERT(d.ctrl_va != 0 && d.ctrl_va % 4096 == 0);
        // TX_MAX_RD_ATOMIC is the host QP's max_dest_rd_atomic (the soft NIC's 16).
        CPPUNIT_ASSERT_EQUAL(16u, t->max_reads());
        CPPUNIT_ASSERT_EQUAL(uint32_t(16), d.max_rd_atomic);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), d.emulation.check);
        // The control page: committed 0, then this run's number.
        const auto* page = reinterpret_cast<const uint64_t*>(d.ctrl_va);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), page[0]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(d.run), page[1]);
        const uint32_t first_run = d.run;
        t->stop();
        // A new run: a new run number, on the page and in TX_RUN.
        t->start();
        const emu::tx_descriptor d2 = sc.dev.registers().tx_descriptor_of(0);
        CPPUNIT_ASSERT(d2.run != first_run);
        CPPUNIT_ASSERT_EQUAL(uint64_t(d2.run),
                             reinterpret_cast<const uint64_t*>(d2.ctrl_va)[1]);
        t->stop();
    }

    void test_ramp_over_wraps_in_place()
    {
        scene sc;
        auto t = sc.stream();
        const uint64_t N = t->ring_items();
        CPPUNIT_ASSERT_EQUAL(N, fill(*t, 0, N)); // primed before START
        t->start();
        CPPUNIT_ASSERT_EQUAL(11 * N, fill(*t, N, 11 * N));
        CPPUNIT_ASSERT(t->wait_fetched(2s));
        CPPUNIT_ASSERT(t->wait_played(2s));
        t->stop();
        const tx_stream::accounting a = t->counts();
        const auto c = t->read_counters();
        CPPUNIT_ASSERT(a.final);
        CPPUNIT_ASSERT_EQUAL(11 * N, a.host_committed);
        CPPUNIT_ASSERT(a.identity_holds());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("device.check_mismatches"));
        CPPUNIT_ASSERT_EQUAL(a.played, c.at("device.check_samples"));
        CPPUNIT_ASSERT(a.played >= 10 * N);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.implausible_fetch"));
        // The reports add up to the device's counters.
        uint64_t underflow = 0, late = 0;
        tx_event e;
        while (t->poll_event(e)) {
            if (e.type == tx_event::kind::underflow)
                underflow += e.count;
            if (e.type == tx_event::kind::late)
                late += e.count;
        }
        CPPUNIT_ASSERT_EQUAL(a.underflow, underflow);
        CPPUNIT_ASSERT_EQUAL(a.late, late);
    }

    void test_space_and_commit_bounds()
    {
        scene sc;
        auto t = sc.stream();
        const size_t N = t->ring_items();
        CPPUNIT_ASSERT_THROW(t->wait_space(N + 1, 0us), std::invalid_argument);
        const tx_stream::space s = t->wait_space(N, 0us);
        CPPUNIT_ASSERT_EQUAL(N, s.items);
        CPPUNIT_ASSERT(s.data == t->ring_base());
        t->commit(N - 10);
        const tx_stream::space rest = t->wait_space(1, 0us);
        CPPUNIT_ASSERT_EQUAL(size_t(10), rest.items);
        // At the write position: slot N - 10.
        CPPUNIT_ASSERT(static_cast<uint8_t*>(rest.data) ==
                       t->ring_base() + (N - 10) * t->item_size());
        CPPUNIT_ASSERT_THROW(t->commit(11), std::invalid_argument);
        t->commit(10);
        CPPUNIT_ASSERT_EQUAL(size_t(0), t->wait_space(1, 0us).items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(N), t->committed());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_stream_device);
