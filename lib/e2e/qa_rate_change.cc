/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rx_stream::change_rate() end to end (docs/radio.md, "Continuing a stream in a new
// run"): a running type=emu stream changes its rate twice; the items stay one sequence
// (the emulator's ramp is of the item index, and RX_FIRST_MESSAGE continues it), nothing
// is lost, and a time event marks each change at its item, with its time. Over two
// links too: each new run's schedule begins at its first message (LINKS_CONTINUE).

#include "../util/log.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <spdlog/sinks/ostream_sink.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct change {
    double rate;
    uint64_t after_items; // asked for once this many items were handed out
    rx_stream::rate_change where{};
    bool asked = false;
};

// Runs \p s through two rate changes (5 MS/s, then 1 MS/s), checking every item of
// the ramp; returns the events. The changes' places are in \p changes.
std::vector<rx_event> run_two_changes(rx_stream& s, std::vector<change>& changes)
{
    s.start();
    changes = { { 5e6, 400000 }, { 1e6, 0 } };
    uint64_t items = 0, mismatches = 0, first_mismatch = UINT64_MAX;
    std::vector<rx_event> events;
    const uint64_t want_after_last = 200000;
    const auto give_up = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < give_up) {
        // The second change is asked for once the first has taken effect.
        for (size_t i = 0; i < changes.size(); i++) {
            change& c = changes[i];
            const uint64_t due = i == 0 ? c.after_items : changes[0].where.item + 500000;
            if (!c.asked && (i == 0 || changes[0].asked) && items >= due) {
                c.where = s.change_rate(c.rate);
                c.asked = true;
            }
        }
        if (changes.back().asked && items >= changes.back().where.item + want_after_last)
            break;
        const rx_stream::chunk c = s.recv(1u << 16, 100ms);
        const auto* p = static_cast<const uint8_t*>(c.data);
        for (size_t i = 0; i < c.items; i++) {
            uint8_t expect[4];
            ramp_item(sample_format::sc16, c.first_item + i, expect);
            if (std::memcmp(expect, p + 4 * i, 4) != 0 && mismatches++ == 0)
                first_mismatch = c.first_item + i;
        }
        CPPUNIT_ASSERT_EQUAL(items, c.first_item);
        items += c.items;
        s.release(c.items);
        rx_event e;
        while (s.poll_event(e))
            events.push_back(e);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(s.error(), std::string(), s.error());
    }
    CPPUNIT_ASSERT(changes.back().asked);
    CPPUNIT_ASSERT(items >= changes.back().where.item + want_after_last);
    s.stop();
    rx_event e;
    while (s.poll_event(e))
        events.push_back(e);

    // Bit-exact across both changes: the ramp of the item index goes on.
    CPPUNIT_ASSERT_EQUAL_MESSAGE(std::to_string(first_mismatch), uint64_t(0), mismatches);
    // Nothing lost: what the device emitted in all three runs was handed out, or is
    // the tail emitted before STOP.
    const rx_stream::accounting a = s.counts();
    CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost_gap + a.lost_skipped + a.lost_overwritten);
    CPPUNIT_ASSERT_EQUAL(items, a.delivered);
    const auto counters = s.read_counters();
    CPPUNIT_ASSERT_EQUAL(uint64_t(1), counters.at("device.counters_known"));
    CPPUNIT_ASSERT_EQUAL(counters.at("device.samples_emitted"), a.delivered + a.lost());
    // The time events: item 0 at the start, then one per change at its item, with its
    // time and the new rate (mS/s); no gap, no overrun.
    std::vector<rx_event> marks;
    for (const rx_event& ev : events) {
        CPPUNIT_ASSERT(ev.type != rx_event::kind::gap &&
                       ev.type != rx_event::kind::overrun);
        if (ev.type == rx_event::kind::time && ev.cause == rx_event::reason::rate_changed)
            marks.push_back(ev);
    }
    CPPUNIT_ASSERT_EQUAL(size_t(2), marks.size());
    for (size_t i = 0; i < 2; i++) {
        const change& c = changes[i];
        CPPUNIT_ASSERT_EQUAL(c.where.item, marks[i].item);
        CPPUNIT_ASSERT_EQUAL(c.where.time_ns, marks[i].time_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(c.rate * 1e3), marks[i].value);
    }
    CPPUNIT_ASSERT(changes[0].where.item < changes[1].where.item);
    // The new rate is in effect: the timeline after the second change runs at 1 MS/s.
    CPPUNIT_ASSERT_EQUAL(1e6, s.sample_rate());
    return events;
}

//! While it lives, every logger the transport core makes writes where the test reads.
class captured_logs
{
public:
    captured_logs() : d_sink(std::make_shared<spdlog::sinks::ostream_sink_mt>(d_text))
    {
        set_logger_factory([sink = d_sink](const std::string& name) {
            auto l = std::make_shared<spdlog::logger>(name, sink);
            l->set_level(spdlog::level::info);
            return l;
        });
    }
    ~captured_logs() { set_logger_factory(nullptr); }
    captured_logs(const captured_logs&) = delete;
    captured_logs& operator=(const captured_logs&) = delete;

    std::string warnings()
    {
        std::string out, line;
        std::istringstream lines(d_text.str());
        while (std::getline(lines, line))
            if (line.find("[warning]") != std::string::npos)
                out += line + "\n";
        return out;
    }

private:
    std::ostringstream d_text;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> d_sink;
};

//! The warnings of asking a stream started at 20 MS/s (defaults: 8 KiB messages, a
//! notification every 9, about a millisecond) to change to \p rate.
std::string warnings_of_change_to(double rate)
{
    captured_logs logs;
    rx_stream s("type=emu,signal=ramp,latency=0.5,hugepages=off", "sc16", 20e6);
    s.start();
    s.change_rate(rate);
    s.stop();
    return logs.warnings();
}

} // namespace

class qa_rate_change : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rate_change);
    CPPUNIT_TEST(test_two_rate_changes_lose_nothing);
    CPPUNIT_TEST(test_two_rate_changes_over_two_links);
    CPPUNIT_TEST(test_links_change_at_a_window_boundary);
    CPPUNIT_TEST(test_sparse_notifications_after_a_change_are_named);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_two_rate_changes_lose_nothing()
    {
        rx_stream s("type=emu,signal=ramp,latency=0.5", "sc16", 2e6);
        std::vector<change> changes;
        run_two_changes(s, changes);
    }

    void test_two_rate_changes_over_two_links()
    {
        // Each new run continues the stream over both links (RX_FIRST_MESSAGE with
        // LINKS_CONTINUE), its schedule from its first message on; the links deliver
        // out of order (link 1 later), and every message counts for the link that
        // carried it, 3:1.
        rx_stream s("type=emu,signal=ramp,latency=0.5,links=2,weights=3:1,"
                    "emu_link_delay_us=0:2000",
                    "sc16",
                    2e6);
        std::vector<change> changes;
        run_two_changes(s, changes);
        const auto c = s.read_counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.at("host.links"));
        const uint64_t m0 = c.at("host.link0.messages"), m1 = c.at("host.link1.messages");
        CPPUNIT_ASSERT(m1 > 0);
        const double ratio = double(m0) / double(m1);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(ratio),
                               ratio > 3 * 0.99 && ratio < 3 * 1.01);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.link0.lost_samples"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.link1.lost_samples"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.links_unattributed_messages"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.imm_wrong_destination"));
        // Every delivered message was final and counted for a link.
        const uint64_t P = s.payload_bytes() / 4;
        CPPUNIT_ASSERT(m0 + m1 >= s.counts().delivered / P);
        // The last run's epoch 0 was followed: it began at the second change's item.
        CPPUNIT_ASSERT(c.at("host.epochs") >= 1);
        CPPUNIT_ASSERT(c.at("host.link1.frontier") * P > changes[1].where.item);
    }

    void test_links_change_at_a_window_boundary()
    {
        // notify=4: a new run over several links begins at a window of 4 messages.
        rx_stream s("type=emu,signal=ramp,latency=0.5,links=2,notify=4", "sc16", 2e6);
        s.start();
        const uint64_t P = s.payload_bytes() / 4;
        const uint64_t far = 10 * 1000 * 1000; // 5 s ahead
        try {
            s.change_rate(1e6, (far / (4 * P)) * 4 * P + P);
            CPPUNIT_FAIL("a change inside a notification window was taken");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(
                e.what(),
                std::string(e.what()).find("notification window boundary") !=
                    std::string::npos);
        }
        const rx_stream::rate_change w = s.change_rate(1e6, (far / (4 * P)) * 4 * P);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), w.item % (4 * P));
        s.stop();
    }

    void test_sparse_notifications_after_a_change_are_named()
    {
        // Payload and notify stay the first rate's. At 5 MS/s a notification comes every
        // 3.7 ms, well inside the grace: nothing to say. At 100 kS/s every 184 ms (9 messages of 2048 items): the
        // clock makes items final first, and the warning says so and names the fix.
        CPPUNIT_ASSERT_EQUAL(std::string(), warnings_of_change_to(5e6));
        const std::string w = warnings_of_change_to(1e5);
        CPPUNIT_ASSERT_MESSAGE(w, w.find("a notification comes every 184.32 ms") !=
                                      std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(w, w.find("give payload= and notify=") != std::string::npos);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rate_change);
