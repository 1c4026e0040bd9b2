/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Host feedback (docs/links.md, "Host feedback"): a stream over two links of an
// emulator, one of them delayed by 4 ms. The host measures each destination's path,
// writes DST_PATH_NS, and the device's shortest-RTT policy moves the stream onto the
// quick link, while the ring stays bit-exact and every sample is accounted.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <array>
#include <chrono>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

emu::emulator_config two_links()
{
    emu::emulator_config c;
    c.more_links.push_back(socket_address::parse("127.0.0.1:0"));
    return c;
}

} // namespace

class qa_path_feedback : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_path_feedback);
    CPPUNIT_TEST(test_shortest_rtt_moves_the_stream_to_the_quick_link);
    CPPUNIT_TEST(test_no_feedback_without_the_controller_policy_weighs_as_written);
    CPPUNIT_TEST_SUITE_END();

    struct outcome {
        std::map<std::string, uint64_t> counters;
        std::array<uint32_t, 2> path_register{}; // DST_PATH_NS: anyone's to read
        uint64_t items = 0, mismatches = 0;
        uint64_t delivered = 0, lost = 0;
    };

    static outcome run(uint32_t policy)
    {
        emu::emulator dev(two_links());
        axioe::client axi(dev.control_address());
        axi.write32(regs::ctrl_base + regs::ctrl::policy, policy);
        const uint64_t items = 3000000; // 1.5 s at 2 MS/s: 1465 messages of 4 KiB
        rx_stream s("type=remote,addr=" + dev.control_address().to_string() +
                        ",signal=ramp,hugepages=off,links=2,mtu=4096,payload=4096,"
                        "emu_link_delay_us=0:4000",
                    "sc16",
                    2e6,
                    items);
        s.start();
        outcome o;
        bool end = false;
        const auto give_up = std::chrono::steady_clock::now() + 60s;
        std::vector<std::pair<uint64_t, uint64_t>> gaps; // zeros, as reported
        while (!end && std::chrono::steady_clock::now() < give_up) {
            const rx_stream::chunk c = s.recv(1u << 20, 100ms);
            rx_event ev;
            while (s.poll_event(ev))
                if (ev.type == rx_event::kind::gap)
                    gaps.emplace_back(ev.item, ev.item + ev.count);
            // Every item the ramp, but for reported gaps (a busy machine may lap the
            // reader: that is the stream's business, not the feedback's).
            const auto* p = static_cast<const uint8_t*>(c.data);
            for (uint64_t i = 0; i < c.items; i++) {
                const uint64_t item = c.first_item + i;
                bool gap = false;
                for (const auto& [first, end_item] : gaps)
                    gap = gap || (item >= first && item < end_item);
                if (!gap) {
                    ramp_errors e;
                    check_ramp(sample_format::sc16, item, p + 4 * i, 1, e);
                    o.mismatches += e.mismatches;
                }
            }
            o.items += c.items;
            s.release(c.items);
            end = c.end_of_stream;
        }
        for (unsigned d = 0; d < 2; d++)
            o.path_register[d] = axi.read32(regs::rx_dest_reg(0, d, regs::dst::path_ns));
        s.stop();
        o.counters = s.read_counters();
        o.delivered = s.counts().delivered;
        o.lost = s.counts().lost();
        CPPUNIT_ASSERT_EQUAL_MESSAGE(s.error(), items, o.items + s.counts().lost_skipped);
        return o;
    }

    static std::string describe(const outcome& o)
    {
        std::string out;
        for (const char* k : { "host.link0.messages",
                               "host.link1.messages",
                               "host.link0.path_ns",
                               "host.link1.path_ns",
                               "host.epochs",
                               "host.path_feedback_failures",
                               "device.samples_emitted" })
            out += std::string(k) + "=" + std::to_string(o.counters.at(k)) + " ";
        return out + "DST_PATH_NS=" + std::to_string(o.path_register[0]) + "," +
               std::to_string(o.path_register[1]);
    }

public:
    void test_shortest_rtt_moves_the_stream_to_the_quick_link()
    {
        const outcome o = run(regs::ctrl_policy::shortest_rtt);
        const std::string why = describe(o);
        const auto& c = o.counters;
        // The host measured the delayed link as the slower by about its delay, and
        // told the device so.
        CPPUNIT_ASSERT_MESSAGE(why, c.at("host.link0.path_ns") > 0);
        CPPUNIT_ASSERT_MESSAGE(
            why, c.at("host.link1.path_ns") > c.at("host.link0.path_ns") + 3000000);
        CPPUNIT_ASSERT_MESSAGE(why, o.path_register[0] > 0);
        CPPUNIT_ASSERT_MESSAGE(why, o.path_register[1] > o.path_register[0] + 3000000);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), c.at("host.path_feedback_failures"));
        // The device weighed the links by 1 / RTT: most messages went the quick way
        // (1:1 until the first feedback, a few hundred ms at most).
        CPPUNIT_ASSERT_MESSAGE(why, c.at("host.epochs") >= 2);
        CPPUNIT_ASSERT_MESSAGE(why, c.at("host.link0.messages") > 3 * c.at("host.link1.messages"));
        // And the stream's books are exact, every sample the ramp or reported lost
        // (real time: a busy machine may lap the reader, or starve the NIC past the
        // grace; idle, nothing is lost).
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.mismatches);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why, c.at("device.samples_emitted"), o.delivered + o.lost);
    }

    void test_no_feedback_without_the_controller_policy_weighs_as_written()
    {
        // Policy 0: the host measures and tells as before; the device keeps the weights
        // as written (1:1).
        const outcome o = run(regs::ctrl_policy::none);
        const std::string why = describe(o);
        const auto& c = o.counters;
        CPPUNIT_ASSERT_MESSAGE(
            why, c.at("host.link1.path_ns") > c.at("host.link0.path_ns") + 3000000);
        const double m0 = double(c.at("host.link0.messages")),
                     m1 = double(c.at("host.link1.messages"));
        CPPUNIT_ASSERT_MESSAGE(why, m0 <= m1 + 2 && m1 <= m0 + 2);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.mismatches);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, c.at("device.samples_emitted"), o.delivered + o.lost);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_path_feedback);
