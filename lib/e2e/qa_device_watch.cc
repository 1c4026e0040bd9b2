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
#include "../stream/device_watch.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
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
    CPPUNIT_TEST_SUITE_END();

    static constexpr int64_t second = 1000000000;

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
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_watch);
