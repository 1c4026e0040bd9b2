/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A path that delivers later than the host's clock allows (docs/loss-accounting.md,
// "When the path runs late"): a software NIC starved on a busy machine holds its
// socket's backlog for as long as it is starved; here the emulator's link holds every
// frame 100 ms (EMU_LINK_DELAY_US), far past the grace. Whatever lands late must never
// pass for what it is not: every item handed out is the device's sample or a reported
// gap (zeros), or is reported afterwards; nothing lands after a burst.
// Found on a busy machine (issue 30): a message judged lost by the clock landed over
// the mark armed for its slot's next lap, which then passed for that lap's message.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr uint32_t delay_us = 100000; // the longest EMU_LINK_DELAY_US
constexpr double rate = 1e6;
constexpr uint64_t message_items = 1024; // payload=4096 of sc16

// A stream over the emulator's link 0, which holds each frame \p delay µs. The clock
// waits 35 ms, and (latency=0.2: a ring of 200 ms) at most 50 ms more for a path it
// found late.
std::string late_args(const emu::emulator& dev, uint32_t delay)
{
    axioe::client axi(dev.control_address());
    axi.write32(regs::emu_link_reg(0, regs::emu_link::delay_us), delay);
    return "type=remote,addr=" + dev.control_address().to_string() +
           ",signal=ramp,hugepages=off,payload=4096,mtu=4096,grace=0.035,latency=0.2";
}

// Disjoint [first, end) ranges of items, merged as they come in order.
struct item_ranges {
    std::vector<std::pair<uint64_t, uint64_t>> r;
    void add(uint64_t first, uint64_t end)
    {
        if (!r.empty() && r.back().second >= first && r.back().first <= first)
            r.back().second = std::max(r.back().second, end);
        else
            r.emplace_back(first, end);
    }
    bool covers(uint64_t item) const
    {
        for (const auto& [first, end] : r)
            if (item >= first && item < end)
                return true;
        return false;
    }
    //! Items of these ranges that \p other does not cover.
    uint64_t outside(const item_ranges& other) const
    {
        uint64_t n = 0;
        for (const auto& [first, end] : r)
            for (uint64_t i = first; i < end; i++)
                n += !other.covers(i);
        return n;
    }
};

// Items [first, first + n) at \p data that are neither the ramp nor (in \p gaps) zeros.
void note_wrong(const uint8_t* data,
                uint64_t first,
                uint64_t n,
                const item_ranges& gaps,
                item_ranges& wrong)
{
    for (uint64_t i = 0; i < n; i++) {
        uint8_t expect[4] = {};
        if (!gaps.covers(first + i))
            ramp_item(sample_format::sc16, first + i, expect);
        if (std::memcmp(expect, data + 4 * i, 4) != 0)
            wrong.add(first + i, first + i + 1);
    }
}

// Gaps (zeros, as told), and the reports that excuse what the consumer read: samples
// it held that were overwritten, or lost ones that landed after all.
void take_events(rx_stream& s, item_ranges& gaps, item_ranges& excused)
{
    rx_event e;
    while (s.poll_event(e)) {
        if (e.type == rx_event::kind::gap)
            gaps.add(e.item, e.item + e.count);
        if (e.cause == rx_event::reason::overwritten ||
            e.cause == rx_event::reason::gap_overwritten)
            excused.add(e.item, e.item + e.count);
    }
}

} // namespace

class qa_late_path : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_late_path);
    CPPUNIT_TEST(test_late_laps_never_pass_for_the_next);
    CPPUNIT_TEST(test_nothing_lands_after_the_burst);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_late_laps_never_pass_for_the_next()
    {
        // Continuous, the ring 200 ms long. At 0.3 s the path turns 100 ms late at
        // once: the clock, which does not know it yet, declares messages lost 35 ms
        // after their time; their packets land 65 ms later, the next lap's 100 ms
        // after that. A slot must not be armed for its next lap before its own packet
        // has landed (a notification proves it), or that packet would erase the next
        // lap's mark, and the next lap, final by the clock before it lands itself,
        // pass for it.
        emu::emulator dev{ emu::emulator_config{} };
        rx_stream s(late_args(dev, 0), "sc16", rate, 0);
        s.start();
        item_ranges gaps, wrong, excused;
        uint64_t items = 0;
        const auto start = std::chrono::steady_clock::now();
        bool late = false;
        while (std::chrono::steady_clock::now() < start + 1500ms) {
            if (!late && std::chrono::steady_clock::now() > start + 300ms) {
                // The stream is owned: not through AXIoE, straight into the link.
                regs::emu_link_values v = dev.channel(0).configuration();
                v.delay_us = delay_us;
                dev.channel(0).configure(v);
                late = true;
            }
            const rx_stream::chunk c = s.recv(1u << 16, 100ms);
            take_events(s, gaps, excused);
            note_wrong(
                static_cast<const uint8_t*>(c.data), c.first_item, c.items, gaps, wrong);
            items += c.items;
            s.release(c.items);
        }
        s.stop();
        take_events(s, gaps, excused);
        const auto counters = s.read_counters();
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT(items > 0);
        CPPUNIT_ASSERT(!gaps.r.empty()); // the late path cost something
        // Wrong only where the stream said so afterwards (a lost message that landed
        // while the consumer held its zeros: gap_overwritten).
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), wrong.outside(excused));
        CPPUNIT_ASSERT_EQUAL(counters.at("device.samples_emitted"),
                             a.delivered + a.lost());
    }

    void test_nothing_lands_after_the_burst()
    {
        // 16 messages, all 100 ms late: the clock ends the burst, its items lost,
        // before any lands. The consumer holds them all, unreleased, well past their
        // arrival: they must still read as what it was told (or be reported).
        emu::emulator dev{ emu::emulator_config{} };
        const uint64_t burst = 16 * message_items;
        rx_stream s(late_args(dev, delay_us), "sc16", rate, burst);
        s.start();
        item_ranges gaps, wrong, excused;
        rx_stream::chunk last;
        const auto give_up = std::chrono::steady_clock::now() + 10s;
        while (!last.end_of_stream && std::chrono::steady_clock::now() < give_up) {
            // Not released: each recv() hands out everything from item 0 again.
            last = s.recv(burst, 100ms);
            take_events(s, gaps, excused);
        }
        CPPUNIT_ASSERT(last.end_of_stream);
        CPPUNIT_ASSERT_EQUAL(burst, uint64_t(last.items));
        std::this_thread::sleep_for(std::chrono::microseconds(3 * delay_us));
        take_events(s, gaps, excused);
        note_wrong(static_cast<const uint8_t*>(last.data), 0, burst, gaps, wrong);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), wrong.outside(excused));
        const auto counters = s.read_counters();
        // On a machine slow enough some may land in time, and are the ramp; what did
        // not is a gap whose zeros stay: the NIC took nothing after the end.
        if (!gaps.r.empty())
            CPPUNIT_ASSERT_EQUAL(uint64_t(1), counters.at("host.end_fenced"));
        s.release(last.items);
        s.stop();
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT_EQUAL(burst, a.delivered + a.lost());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_late_path);
