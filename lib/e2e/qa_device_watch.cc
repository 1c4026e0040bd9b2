/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The heartbeat's verdict (device_watch): a device is lost on evidence (it was asked,
// and did not answer), never because the host itself did not run. On a busy machine
// the watch's thread was starved for over a second and the stream ended with "the
// device has not answered" although nobody had asked it anything (issue 30). A refusal
// is an answer; a stream another host took over is told (issue 31).

#include "../device/shared_device.h"
#include "../emu/emulator.h"
#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../stream/device_watch.h"
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <map>
#include <string>
#include <vector>
#include <memory>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_device_watch : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device_watch);
    CPPUNIT_TEST(test_a_watch_that_did_not_run_blames_nobody);
    CPPUNIT_TEST(test_a_device_that_does_not_answer_is_lost);
    CPPUNIT_TEST(test_a_device_that_refuses_the_read_is_not_lost);
    CPPUNIT_TEST(test_a_stream_taken_over_is_told);
    CPPUNIT_TEST(test_a_stream_held_below_its_rate_is_told);
    CPPUNIT_TEST_SUITE_END();

    static constexpr int64_t second = 1000000000;

    struct held_run {
        std::vector<rx_event> holds;
        std::map<std::string, uint64_t> counters;
        rx_stream::accounting counts;
    };

    // A stream of 4 MS/s sc16 (16 MB/s of samples) under water filling for 2 s,
    // its device's link 0 carrying \p link_bytes_per_s (0: no limit).
    static held_run run_held(uint64_t link_bytes_per_s)
    {
        auto emulator = std::make_unique<emu::emulator>(emu::emulator_config{});
        if (link_bytes_per_s) { // before anyone owns a stream: anyone may write it
            axioe::client axi(emulator->control_address());
            axi.write64(regs::emu_link_reg(0, regs::emu_link::rate_lo), link_bytes_per_s);
        }
        rx_stream s("type=remote,addr=" + emulator->control_address().to_string() +
                        ",signal=ramp,hugepages=off,ctrl_policy=water_filling",
                    "sc16",
                    4e6,
                    0);
        s.start();
        held_run r;
        const auto end = std::chrono::steady_clock::now() + 2000ms;
        while (std::chrono::steady_clock::now() < end) {
            const rx_stream::chunk c = s.recv(1u << 20, 50ms);
            s.release(c.items);
            rx_event e;
            while (s.poll_event(e))
                if (e.cause == rx_event::reason::rate_held)
                    r.holds.push_back(e);
        }
        s.stop();
        rx_event e;
        while (s.poll_event(e))
            if (e.cause == rx_event::reason::rate_held)
                r.holds.push_back(e);
        r.counts = s.counts();
        r.counters = s.read_counters();
        return r;
    }

public:
    void test_a_watch_that_did_not_run_blames_nobody()
    {
        auto emulator = std::make_unique<emu::emulator>(emu::emulator_config{});
        auto dev = shared_device::open(device_args::parse(
            "type=remote,addr=" + emulator->control_address().to_string()));
        device_watch watch(dev->controller(), 0, 10ms, 100ms);
        // Started and at once stopped: as a thread that never got the CPU again.
        watch.start(false);
        watch.stop();
        const int64_t later = device_watch::now_ns() + 10 * second;
        CPPUNIT_ASSERT(watch.current(later) != device_watch::state::lost);
        // Even with the device gone: nobody asked it.
        emulator.reset();
        CPPUNIT_ASSERT(watch.current(later) != device_watch::state::lost);
    }

    void test_a_device_that_does_not_answer_is_lost()
    {
        auto emulator = std::make_unique<emu::emulator>(emu::emulator_config{});
        auto dev = shared_device::open(device_args::parse(
            "type=remote,addr=" + emulator->control_address().to_string()));
        device_watch watch(dev->controller(), 0, 10ms, 100ms);
        watch.start(false);
        emulator.reset(); // its control port closes: nothing answers any more
        const auto give_up = std::chrono::steady_clock::now() + 10s;
        while (watch.current(device_watch::now_ns()) != device_watch::state::lost &&
               std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT(watch.current(device_watch::now_ns()) ==
                       device_watch::state::lost);
        CPPUNIT_ASSERT(!watch.last_failure().empty()); // why: the client gave up
        watch.stop();
    }

    void test_a_device_that_refuses_the_read_is_not_lost()
    {
        // A stream the device does not have: every read is refused (DECERR). A refusal
        // is an answer: the device is there, whatever the stream's books say.
        auto emulator = std::make_unique<emu::emulator>(emu::emulator_config{});
        auto dev = shared_device::open(device_args::parse(
            "type=remote,addr=" + emulator->control_address().to_string()));
        CPPUNIT_ASSERT_THROW(dev->controller().client().read32(
                                 regs::rx_reg(15, regs::rx::status)),
                             axioe::error);
        device_watch watch(dev->controller(), 15, 10ms, 100ms);
        watch.start(false);
        std::this_thread::sleep_for(400ms); // four times lost_after, some 40 refusals
        CPPUNIT_ASSERT(watch.current(device_watch::now_ns()) != device_watch::state::lost);
        watch.stop();
    }

    void test_a_stream_taken_over_is_told()
    {
        // Host a owns RX stream 0; host b takes it over. The stream may well run on
        // (b's run): only its owner tells a that it is no longer a's.
        auto emulator = std::make_unique<emu::emulator>(emu::emulator_config{});
        const std::string addr = emulator->control_address().to_string();
        auto a = shared_device::open(device_args::parse("type=remote,addr=" + addr));
        auto b = shared_device::open(
            device_args::parse("type=remote,addr=" + addr + ",name=host_b"));
        a->controller().claim_rx(0, random_owner_token(), 5000, false);
        device_watch watch(a->controller(), 0, 10ms, 1000ms);
        watch.start(true);
        std::this_thread::sleep_for(50ms);
        CPPUNIT_ASSERT(watch.current(device_watch::now_ns()) !=
                       device_watch::state::taken_over);
        b->controller().claim_rx(0, random_owner_token(), 5000, true);
        const auto give_up = std::chrono::steady_clock::now() + 5s;
        while (watch.current(device_watch::now_ns()) != device_watch::state::taken_over &&
               std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT(watch.current(device_watch::now_ns()) ==
                       device_watch::state::taken_over);
        watch.stop();
        // Unowned, the same watch never reads the owner: b's claim is nothing to it.
        device_watch unowned(a->controller(), 0, 10ms, 1000ms);
        unowned.start(false);
        std::this_thread::sleep_for(50ms);
        CPPUNIT_ASSERT(unowned.current(device_watch::now_ns()) !=
                       device_watch::state::taken_over);
        unowned.stop();
    }

    void test_a_stream_held_below_its_rate_is_told()
    {
        // Link 0 carries 2 MB/s: water filling holds the stream to its fair share of
        // it (CTRL_RATE some 1.9 MB/s), and the device drops the rest. Nothing said
        // why 7/8 of the samples were lost (issue 31: 48 M of 60 M, exit 0, no word);
        // now one rate_held report and a warning, within two heartbeats.
        const held_run held = run_held(2000000);
        CPPUNIT_ASSERT_EQUAL(size_t(1), held.holds.size());
        const rx_event& h = held.holds[0];
        CPPUNIT_ASSERT(h.type == rx_event::kind::device);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16000000), h.count); // the samples' bytes/s
        CPPUNIT_ASSERT(h.value > 0 && h.value < 2000000);   // what the link leaves
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), held.counters.at("host.rate_held_reports"));
        const rx_stream::accounting& a = held.counts;
        CPPUNIT_ASSERT_EQUAL(held.counters.at("device.samples_emitted"),
                             a.delivered + a.lost());
        CPPUNIT_ASSERT(a.lost() > 0);
        // The same stream on a link without a limit: water filling holds nothing.
        const held_run free = run_held(0);
        CPPUNIT_ASSERT_EQUAL(size_t(0), free.holds.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), free.counters.at("host.rate_held_reports"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_watch);
