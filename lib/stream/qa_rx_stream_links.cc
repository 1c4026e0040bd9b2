/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rx_stream over two links of the built-in emulator (docs/links.md, "Host side"): one
// QP per destination on the soft NIC, the ring checked against the ramp, the identity
// and the per-link counters against the weights.

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct consumed {
    uint64_t items = 0;
    uint64_t mismatches = 0;
    bool end_of_stream = false;
};

consumed consume_ramp(rx_stream& s)
{
    consumed r;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!r.end_of_stream && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        CPPUNIT_ASSERT_EQUAL(r.items, c.first_item);
        ramp_errors e;
        check_ramp(sample_format::sc16, c.first_item, c.data, c.items, e);
        r.mismatches += e.mismatches;
        r.items += c.items;
        s.release(c.items);
        r.end_of_stream = c.end_of_stream;
    }
    return r;
}

std::string refusal(const std::string& args, uint64_t num_samples = 0)
{
    try {
        rx_stream s(args, "sc16", 1e6, num_samples);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

} // namespace

class qa_rx_stream_links : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rx_stream_links);
    CPPUNIT_TEST(test_two_links_3_1_bit_exact_identity_and_counters);
    CPPUNIT_TEST(test_two_links_1_1_bit_exact_identity_and_counters);
    CPPUNIT_TEST(test_two_links_two_soft_nics_bit_exact);
    CPPUNIT_TEST(test_two_links_3_1_out_of_order_bit_exact);
    CPPUNIT_TEST(test_lost_messages_are_attributed_to_their_links);
    CPPUNIT_TEST(test_one_link_has_no_link_counters);
    CPPUNIT_TEST(test_what_several_links_cannot_do_is_refused);
    CPPUNIT_TEST_SUITE_END();

    void run(unsigned w0, unsigned w1, const std::string& more = "")
    {
        const std::string args =
            "type=emu,signal=ramp,hugepages=off,links=2,weights=" + std::to_string(w0) +
            ":" + std::to_string(w1) + more;
        rx_stream probe(args, "sc16", 1e6, 0);
        const uint64_t items = 10 * probe.ring_items() + 777; // > 10 wraps, short end
        rx_stream s(args + ",stream=1", "sc16", 1e6, items);
        s.start();
        const consumed r = consume_ramp(s);
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT(r.end_of_stream);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost());
        CPPUNIT_ASSERT_EQUAL(items, a.delivered);
        const auto c = s.read_counters();
        // The identity against the device's own count.
        CPPUNIT_ASSERT_EQUAL(c.at("device.samples_emitted"), a.delivered + a.lost());
        // Every message counted for the link the schedule sent it on: the weights, to
        // the message over whole periods (the issue asks 1 %).
        const uint64_t m0 = c.at("host.link0.messages"), m1 = c.at("host.link1.messages");
        const uint64_t messages = m0 + m1;
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.links_unattributed_messages"));
        CPPUNIT_ASSERT(messages > 0);
        const double share = double(m1) / double(messages);
        CPPUNIT_ASSERT(std::abs(share - double(w1) / (w0 + w1)) <= 0.01);
        // Each destination notified in sequence; every immediate sent completed.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.link0.imm_out_of_sequence"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.link1.imm_out_of_sequence"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.imm_wrong_destination"));
        CPPUNIT_ASSERT_EQUAL(c.at("device.imm_sent"), c.at("host.completions"));
        CPPUNIT_ASSERT(c.at("host.link1.frontier") > 0);
        s.stop();
    }

public:
    void test_two_links_3_1_bit_exact_identity_and_counters() { run(3, 1); }
    void test_two_links_1_1_bit_exact_identity_and_counters() { run(1, 1); }
    // Destination 1 on a soft NIC of its own (another loopback address), the ring
    // registered with both.
    void test_two_links_two_soft_nics_bit_exact()
    {
        run(1, 1, ",nic_addr=127.0.0.1+127.0.0.2");
    }

    // Link 1's frames 3 ms late (three messages at 1 MS/s), link 0's by a random 0..0.5
    // ms: messages reach the host out of order across the links and land by address.
    void test_two_links_3_1_out_of_order_bit_exact()
    {
        run(3, 1, ",emu_link_delay_us=0:3000,emu_link_reorder_us=500:0");
    }

    void test_lost_messages_are_attributed_to_their_links()
    {
        // 3:1 is 0 0 1 0: the device drops messages 5 and 7 (destination 0, link 0),
        // 6 and 102 (destination 1, link 1).
        const uint64_t ipm = 1024; // payload=4096 of sc16
        const uint64_t items = 400 * ipm;
        rx_stream s("type=emu,signal=ramp,hugepages=off,links=2,weights=3:1,mtu=4096,"
                    "payload=4096,drop=5:6:7:102",
                    "sc16",
                    1e6,
                    items);
        s.start();
        const consumed r = consume_ramp(s);
        const rx_stream::accounting a = s.counts();
        const auto c = s.read_counters();
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        CPPUNIT_ASSERT_EQUAL(4 * ipm, a.lost_gap);
        CPPUNIT_ASSERT_EQUAL(a.lost_gap, r.mismatches); // the gaps read as zeros
        CPPUNIT_ASSERT_EQUAL(c.at("device.samples_emitted"), a.delivered + a.lost());
        CPPUNIT_ASSERT_EQUAL(c.at("device.samples_dropped"), a.lost_gap);
        CPPUNIT_ASSERT_EQUAL(2 * ipm, c.at("host.link0.lost_samples"));
        CPPUNIT_ASSERT_EQUAL(2 * ipm, c.at("host.link1.lost_samples"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.links_unattributed_samples"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(300), c.at("host.link0.messages"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), c.at("host.link1.messages"));
        s.stop();
    }

    void test_one_link_has_no_link_counters()
    {
        rx_stream s("type=emu,signal=ramp,hugepages=off", "sc16", 10e6, 100000);
        s.start();
        const consumed r = consume_ramp(s);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000), r.items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        const auto c = s.read_counters();
        CPPUNIT_ASSERT(c.find("host.links") == c.end());
        CPPUNIT_ASSERT(c.find("host.link0.messages") == c.end());
        s.stop();
    }

    void test_what_several_links_cannot_do_is_refused()
    {
        CPPUNIT_ASSERT(refusal("type=emu,links=2", rx_stream::queued)
                           .find("drop links= for queued bursts") != std::string::npos);
        CPPUNIT_ASSERT(refusal("type=emu,links=9").find("links") != std::string::npos);
        CPPUNIT_ASSERT(refusal("type=emu,links=2,nic_addr=127.0.0.1+127.0.0.1+127.0.0.1")
                           .find("one per link") != std::string::npos);
        CPPUNIT_ASSERT(refusal("type=emu,links=2,weights=3:1:1").find("one per link") !=
                       std::string::npos);
        CPPUNIT_ASSERT(
            refusal("type=emu,links=2,emu_link_delay_us=5").find("one per link") !=
            std::string::npos);
        CPPUNIT_ASSERT(refusal("type=emu,links=2,emu_link_reorder_us=0:100001")
                           .find("emu_link_reorder_us") != std::string::npos);
        CPPUNIT_ASSERT(refusal("type=emu,emu_link_delay_us=5").find("give links=") !=
                       std::string::npos);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rx_stream_links);
