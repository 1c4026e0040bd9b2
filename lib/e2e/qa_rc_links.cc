/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RC over several links (docs/links.md, "RC over several links"; docs/roce-wire.md, RC
// profile, "Several destinations"): each destination of the stream is an RC requester
// of its own, with its own device QP, PSNs and retransmissions, reached over its link.
// A real host (rx_stream, soft NIC RC QPs) against the emulator on two links.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cmath>
#include <map>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

emu::emulator_config two_links()
{
    emu::emulator_config c;
    c.more_links.push_back(socket_address::parse("127.0.0.1:0"));
    return c;
}

struct outcome {
    std::map<std::string, uint64_t> counters;
    rx_stream::accounting counts;
    uint64_t items = 0, mismatches = 0;
    bool end = false;
};

outcome consume(rx_stream& s)
{
    outcome o;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!o.end && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        ramp_errors e;
        check_ramp(sample_format::sc16, c.first_item, c.data, c.items, e);
        o.mismatches += e.mismatches;
        o.items += c.items;
        s.release(c.items);
        o.end = c.end_of_stream;
    }
    s.stop();
    o.counters = s.read_counters();
    o.counts = s.counts();
    return o;
}

// A finite ramp at 2 MS/s over the emulator's two links on RC, consumed to its end.
outcome stream_rc(const emu::emulator& dev, const std::string& more, uint64_t items)
{
    rx_stream s("type=remote,addr=" + dev.control_address().to_string() +
                    ",signal=ramp,hugepages=off,transport=rc,links=2,link_timeout=0," +
                    more,
                "sc16",
                2e6,
                items);
    s.start();
    return consume(s);
}

std::string describe(const outcome& o)
{
    std::string out;
    for (const char* k : { "device.link0.retransmits",
                           "device.link1.retransmits",
                           "device.link0.naks",
                           "device.link1.naks",
                           "device.link0.rtt_ns",
                           "device.link1.rtt_ns",
                           "host.link0.messages",
                           "host.link1.messages",
                           "device.zero_substituted",
                           "device.samples_emitted" }) {
        const auto it = o.counters.find(k);
        out += std::string(k) + "=" +
               (it == o.counters.end() ? std::string("?") : std::to_string(it->second)) +
               " ";
    }
    return out + "lost=" + std::to_string(o.counts.lost());
}

} // namespace

class qa_rc_links : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rc_links);
    CPPUNIT_TEST(test_loss_on_one_link_is_resent_there_and_nothing_is_lost);
    CPPUNIT_TEST(test_each_link_has_the_rtt_of_its_path);
    CPPUNIT_TEST(test_shortest_rtt_sends_most_by_the_quick_link);
    CPPUNIT_TEST(test_a_cut_link_gives_up_its_packets_and_the_books_balance);
    CPPUNIT_TEST(test_a_device_without_rc_links_is_refused_naming_the_fix);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_loss_on_one_link_is_resent_there_and_nothing_is_lost()
    {
        emu::emulator dev(two_links());
        axioe::client axi(dev.control_address());
        // Each destination sends from a device QP of its own.
        const uint32_t qpn0 =
            axi.read32(regs::rx_dest_rc_reg(0, 0, regs::dst_rc::source_qpn));
        const uint32_t qpn1 =
            axi.read32(regs::rx_dest_rc_reg(0, 1, regs::dst_rc::source_qpn));
        CPPUNIT_ASSERT_EQUAL(axi.read32(regs::rx_reg(0, regs::rx::source_qpn)), qpn0);
        CPPUNIT_ASSERT(qpn1 != qpn0 && qpn1 != 0);
        // Link 1 loses 1 % of its frames, link 0 none.
        axi.write32(regs::emu_link_reg(1, regs::emu_link::loss_ppm), 10000);
        axi.write32(regs::emu_link_reg(1, regs::emu_link::seed), 7);
        const uint64_t items = 2000000; // 1 s at 2 MS/s: about 1950 messages of 4 KiB
        const outcome o = stream_rc(dev, "weights=1:1", items);
        axi.write32(regs::emu_link_reg(1, regs::emu_link::loss_ppm), 0);
        const std::string why = describe(o);
        const auto& c = o.counters;
        CPPUNIT_ASSERT_MESSAGE(why, o.end);
        // Bit-exact and whole: every lost frame came again, on its own link's QP.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, o.items);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.mismatches);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.counts.lost());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), c.at("device.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why, c.at("device.samples_emitted"), o.counts.delivered);
        CPPUNIT_ASSERT_MESSAGE(why, c.at("device.link1.retransmits") > 0);
        CPPUNIT_ASSERT_MESSAGE(why, c.at("device.link1.naks") > 0);
        // Link 0 lost nothing, so its host never NAKed (a probe after an ACK late on a
        // loaded machine is a resend without a NAK, and may happen on either link).
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), c.at("device.link0.naks"));
        CPPUNIT_ASSERT_MESSAGE(
            why, c.at("device.link1.retransmits") > c.at("device.link0.retransmits"));
        // The stream's counters are the sum of its destinations'.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why,
                                     c.at("device.link0.retransmits") +
                                         c.at("device.link1.retransmits"),
                                     c.at("device.retransmits"));
        // And the schedule is kept: 1:1 to the message over whole periods.
        const double m0 = double(c.at("host.link0.messages"));
        const double m1 = double(c.at("host.link1.messages"));
        CPPUNIT_ASSERT_MESSAGE(why, std::abs(m1 / (m0 + m1) - 0.5) <= 0.01);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why, uint64_t(0), c.at("host.links_unattributed_messages"));
    }

    void test_each_link_has_the_rtt_of_its_path()
    {
        emu::emulator dev(two_links());
        axioe::client axi(dev.control_address());
        const uint64_t items = 1000000; // 0.5 s
        const outcome o = stream_rc(dev, "emu_link_delay_us=0:3000", items);
        const std::string why = describe(o);
        const auto& c = o.counters;
        CPPUNIT_ASSERT_MESSAGE(why, o.end);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, o.items);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.mismatches);
        for (unsigned d = 0; d < 2; d++)
            CPPUNIT_ASSERT_MESSAGE(
                why,
                axi.read32(regs::rx_dest_rc_reg(0, d, regs::dst_rc::rtt_samples)) > 10);
        // Link 1's frames wait 3 ms on the way: its RTT is about that much longer (the
        // engine reads ACKs at most 0.5 ms late, on either link).
        const int64_t rtt0 = int64_t(c.at("device.link0.rtt_ns"));
        const int64_t rtt1 = int64_t(c.at("device.link1.rtt_ns"));
        CPPUNIT_ASSERT_MESSAGE(why, rtt0 > 0);
        CPPUNIT_ASSERT_MESSAGE(why, rtt1 - rtt0 > 2000000 && rtt1 - rtt0 < 6000000);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why,
            uint64_t(rtt1),
            uint64_t(axi.read32(regs::rx_dest_rc_reg(0, 1, regs::dst_rc::rtt_ns))));
    }

    void test_shortest_rtt_sends_most_by_the_quick_link()
    {
        // Policy 2 weighs the links by 1 / RTT: with RC, the device's own RTTs (3 ms
        // more on link 1), as they come; the stream stays whole.
        emu::emulator dev(two_links());
        const uint64_t items = 3000000; // 1.5 s
        const outcome o =
            stream_rc(dev, "emu_link_delay_us=0:3000,ctrl_policy=shortest_rtt", items);
        const std::string why = describe(o);
        const auto& c = o.counters;
        CPPUNIT_ASSERT_MESSAGE(why, o.end);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, o.items);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.mismatches);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), o.counts.lost());
        CPPUNIT_ASSERT_MESSAGE(why, c.at("host.epochs") >= 2);
        CPPUNIT_ASSERT_MESSAGE(
            why, c.at("host.link0.messages") > 3 * c.at("host.link1.messages"));
    }

    void test_a_cut_link_gives_up_its_packets_and_the_books_balance()
    {
        // Link 1 goes down for good at 0.2 s: the device moves its share to link 0, and
        // destination 1's requester, whose packets can no longer arrive, abandons what
        // it holds after its retries (9 timeouts from 2 ms, doubling: about 1 s); the
        // host counts the loss on link 1.
        emu::emulator dev(two_links());
        axioe::client axi(dev.control_address());
        const uint64_t items = 3600000; // 1.8 s
        const outcome o = stream_rc(dev, "emu_link_down=1@0.2", items);
        const std::string why = describe(o);
        const auto& c = o.counters;
        CPPUNIT_ASSERT_MESSAGE(why, o.end);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why, c.at("device.samples_emitted"), o.counts.delivered + o.counts.lost());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, o.counts.lost_gap, o.mismatches);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), c.at("host.link0.lost_samples"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why, o.counts.lost_gap, c.at("host.link1.lost_samples"));
        // Link 0 carried the rest of the stream to its end.
        CPPUNIT_ASSERT_MESSAGE(why, o.counts.delivered > items / 2);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), c.at("device.link0.naks"));
        // Messages the schedule gave link 1 until the device saw it down were lost on
        // it, and its requester gave them up instead of resending them for ever.
        CPPUNIT_ASSERT_MESSAGE(why, o.counts.lost_gap > 0);
        CPPUNIT_ASSERT_MESSAGE(
            why, axi.read64(regs::rx_dest_rc_reg(0, 1, regs::dst_rc::abandoned_lo)) > 0);
    }

    void test_a_device_without_rc_links_is_refused_naming_the_fix()
    {
        emu::emulator_config config = two_links();
        config.capabilities_off = regs::cap::rc_links;
        emu::emulator dev(config);
        const std::string args =
            "type=remote,addr=" + dev.control_address().to_string() + ",links=2";
        std::string message;
        try {
            rx_stream s(args + ",transport=rc", "sc16", 1e6, 0);
        } catch (const std::invalid_argument& e) {
            message = e.what();
        }
        CPPUNIT_ASSERT_MESSAGE(message,
                               message.find("lacks RC_LINKS") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(message,
                               message.find("drop transport=rc") != std::string::npos);
        // UC over the same links is what it does take.
        rx_stream uc(args, "sc16", 1e6, 0);
        // And the host of one share of a split stream streams UC only, as before.
        emu::emulator whole(two_links());
        message.clear();
        try {
            rx_stream s("type=remote,addr=" + whole.control_address().to_string() +
                            ",links=2,share=0/2,transport=rc",
                        "sc16",
                        1e6,
                        0);
        } catch (const std::invalid_argument& e) {
            message = e.what();
        }
        CPPUNIT_ASSERT_MESSAGE(message,
                               message.find("drop transport=rc") != std::string::npos);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rc_links);
