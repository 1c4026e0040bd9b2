/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream ownership from the host's side: device_controller's claim, release and
// renewal, and rx_stream hosts sharing one emulator (type=remote), each with its own
// AXIoE client, so each its own owner identity.

#include "../emu/emulator.h"
#include "../device/device_controller.h"
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

// The message \p f throws as \p E, or "" if it does not throw.
template <typename E, typename F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

// Items a running stream hands out within \p window.
uint64_t items_within(rx_stream& s, std::chrono::milliseconds window)
{
    uint64_t items = 0;
    const auto end = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < end) {
        const rx_stream::chunk c = s.recv(1u << 16, 10ms);
        items += c.items;
        s.release(c.items);
    }
    return items;
}

struct shared_device {
    emu::emulator dev{ emu::emulator_config{} };
    std::string args(const std::string& more = "") const
    {
        return "type=remote,addr=" + dev.control_address().to_string() +
               ",signal=ramp,latency=0.1" + (more.empty() ? "" : "," + more);
    }
    //! Each host sees the device through its own controller (name=), as a host of its
    //! own would.
    std::unique_ptr<rx_stream> host(const std::string& more = "")
    {
        const std::string name = "name=host" + std::to_string(++hosts);
        return std::make_unique<rx_stream>(
            args(more.empty() ? name : name + "," + more), "sc16", 1e6, 0);
    }
    unsigned hosts = 0;
    bool owned() const { return dev.registers().owner_of(0).owned; }
};

} // namespace

class qa_stream_ownership : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_stream_ownership);
    CPPUNIT_TEST(test_controller_claim_take_over_release);
    CPPUNIT_TEST(test_controller_renew_keeps_the_lease);
    CPPUNIT_TEST(test_controller_refuses_bad_claims);
    CPPUNIT_TEST(test_second_host_told_who_owns_the_stream);
    CPPUNIT_TEST(test_take_over_host_streams_previous_host_stops_quietly);
    CPPUNIT_TEST(test_stop_releases_restart_claims_again);
    CPPUNIT_TEST(test_unowned_run_refused_unless_take_over);
    CPPUNIT_TEST(test_lease_and_take_over_args);
    CPPUNIT_TEST(test_heartbeat_keeps_the_lease_for_long_runs);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_controller_claim_take_over_release()
    {
        shared_device d;
        device_controller a(d.dev.control_address()), b(d.dev.control_address());
        CPPUNIT_ASSERT(a.identify().has(regs::cap::ownership));
        CPPUNIT_ASSERT(a.read_rx_owner(0) == stream_owner::none);
        a.claim_rx(0, random_owner_token(), 1500, false);
        CPPUNIT_ASSERT(a.read_rx_owner(0) == stream_owner::this_host);
        CPPUNIT_ASSERT(b.read_rx_owner(0) == stream_owner::another_host);
        CPPUNIT_ASSERT_EQUAL(1500u,
                             b.client().read32(regs::rx_reg(0, regs::rx::lease_ms)));
        const std::string refused = error_of<stream_owned_error>(
            [&] { b.claim_rx(0, random_owner_token(), 5000, false); });
        CPPUNIT_ASSERT_EQUAL("device at " + d.dev.control_address().to_string() +
                                 ": RX stream 0 is owned by another host; wait for its "
                                 "lease (1.5 s) to lapse or add take_over=1",
                             refused);
        // A START of another host's stream names the owner too, not a START error.
        CPPUNIT_ASSERT(contains(error_of<stream_owned_error>([&] { b.start_rx(0); }),
                                "is owned by another host"));
        b.claim_rx(0, random_owner_token(), 5000, true);
        CPPUNIT_ASSERT(b.read_rx_owner(0) == stream_owner::this_host);
        CPPUNIT_ASSERT(a.read_rx_owner(0) == stream_owner::another_host);
        try {
            a.release_rx(0);
            CPPUNIT_FAIL("released another host's stream");
        } catch (const axioe::error& e) {
            CPPUNIT_ASSERT(e.code() == axioe::status::not_owner);
        }
        b.release_rx(0);
        CPPUNIT_ASSERT(a.read_rx_owner(0) == stream_owner::none);
        CPPUNIT_ASSERT(!d.owned());
    }

    void test_controller_renew_keeps_the_lease()
    {
        shared_device d;
        device_controller a(d.dev.control_address()), b(d.dev.control_address());
        a.claim_rx(0, random_owner_token(), regs::lease::min_ms * 2, false);
        for (int i = 0; i < 10; i++) { // 500 ms: 2.5 leases
            std::this_thread::sleep_for(50ms);
            CPPUNIT_ASSERT(a.renew(0) == stream_owner::this_host);
        }
        // Silent now: the lease lapses, whoever looks.
        std::this_thread::sleep_for(300ms);
        CPPUNIT_ASSERT(b.read_rx_owner(0) == stream_owner::none);
        CPPUNIT_ASSERT(a.renew(0) == stream_owner::none);
    }

    void test_controller_refuses_bad_claims()
    {
        shared_device d;
        device_controller a(d.dev.control_address());
        CPPUNIT_ASSERT_THROW(a.claim_rx(0, 0, 5000, false), std::invalid_argument);
        CPPUNIT_ASSERT(contains(
            error_of<std::invalid_argument>([&] { a.claim_rx(0, 1, 99, false); }),
            "expected 100 .. 600000 ms"));
        CPPUNIT_ASSERT_THROW(a.claim_rx(0, 1, 600001, false), std::invalid_argument);
        CPPUNIT_ASSERT(a.read_rx_owner(0) == stream_owner::none);
        const uint64_t t1 = random_owner_token(), t2 = random_owner_token();
        CPPUNIT_ASSERT(t1 != 0 && t2 != 0 && t1 != t2);
    }

    void test_second_host_told_who_owns_the_stream()
    {
        shared_device d;
        auto a = d.host();
        a->start();
        CPPUNIT_ASSERT(d.owned());
        // Another host: it opens (nothing it reads is the owner's), but cannot start.
        auto b = d.host();
        const std::string refused = error_of<stream_owned_error>([&] { b->start(); });
        CPPUNIT_ASSERT_MESSAGE(refused,
                               contains(refused,
                                        ": RX stream 0 is owned by another host; wait "
                                        "for its lease (5 s) to lapse or add "
                                        "take_over=1"));
        CPPUNIT_ASSERT(!b->running());
        // The owner's stream never noticed.
        CPPUNIT_ASSERT(items_within(*a, 100ms) > 0);
        a->stop();
    }

    void test_take_over_host_streams_previous_host_stops_quietly()
    {
        shared_device d;
        auto a = d.host();
        a->start();
        CPPUNIT_ASSERT(items_within(*a, 50ms) > 0);
        auto c = d.host("take_over=1");
        c->start();
        CPPUNIT_ASSERT(items_within(*c, 100ms) > 0);
        // A learns it lost the stream when it stops: no exception, nothing released.
        CPPUNIT_ASSERT_NO_THROW(a->stop());
        CPPUNIT_ASSERT(d.owned());
        CPPUNIT_ASSERT(items_within(*c, 50ms) > 0);
        c->stop();
        CPPUNIT_ASSERT(!d.owned());
    }

    void test_stop_releases_restart_claims_again()
    {
        shared_device d;
        auto a = d.host();
        a->start();
        const auto first = d.dev.registers().owner_of(0);
        CPPUNIT_ASSERT(first.owned);
        a->stop();
        CPPUNIT_ASSERT(!d.owned());
        a->start();
        CPPUNIT_ASSERT(d.owned());
        CPPUNIT_ASSERT(d.dev.registers().owner_of(0).client == first.client);
        CPPUNIT_ASSERT(items_within(*a, 50ms) > 0);
        a.reset(); // destruction stops, and releases
        CPPUNIT_ASSERT(!d.owned());
    }

    void test_unowned_run_refused_unless_take_over()
    {
        // A run that a host without ownership left going: claiming it would make it
        // this host's, so the host refuses it, clearly, unless told to take over.
        shared_device d;
        axioe::client old_host(d.dev.control_address());
        auto rx = [](uint32_t reg) { return regs::rx_reg(0, reg); };
        old_host.write32(rx(regs::rx::dest_ipv4), 0x7F000001);
        old_host.write32(rx(regs::rx::dest_udp_port), 9); // discard
        old_host.write32(rx(regs::rx::dest_qpn), 0x123);
        old_host.write64(rx(regs::rx::ring_bytes_lo), 65536);
        old_host.write32(rx(regs::rx::rate_num), 1000);
        old_host.write32(rx(regs::rx::command), regs::command::start);
        auto a = d.host();
        const std::string refused = error_of<std::runtime_error>([&] { a->start(); });
        CPPUNIT_ASSERT_MESSAGE(refused,
                               contains(refused,
                                        ": RX stream 0 is running for a host that does "
                                        "not claim its streams; stop it there, or add "
                                        "take_over=1 to stop it from here"));
        CPPUNIT_ASSERT(!a->running());
        CPPUNIT_ASSERT(!d.owned());
        CPPUNIT_ASSERT(old_host.read32(rx(regs::rx::status)) & regs::status::running);
        auto c = d.host("take_over=1");
        c->start();
        CPPUNIT_ASSERT(items_within(*c, 100ms) > 0);
        c->stop();
    }

    void test_lease_and_take_over_args()
    {
        shared_device d;
        const std::string low =
            error_of<std::invalid_argument>([&] { d.host("lease=0.05"); });
        CPPUNIT_ASSERT_MESSAGE(
            low, contains(low, "lease=0.05 is invalid: expected seconds 0.1..600"));
        CPPUNIT_ASSERT(contains(
            error_of<std::invalid_argument>([&] { d.host("lease=601"); }), "lease=601"));
        CPPUNIT_ASSERT(contains(
            error_of<std::invalid_argument>([&] { d.host("lease=x"); }), "lease"));
        CPPUNIT_ASSERT(
            contains(error_of<std::invalid_argument>([&] { d.host("take_over=yes"); }),
                     "take_over"));
        auto a = d.host("lease=0.25");
        a->start();
        CPPUNIT_ASSERT_EQUAL(250u, d.dev.registers().owner_of(0).lease_ms);
        a->stop();
    }

    void test_heartbeat_keeps_the_lease_for_long_runs()
    {
        // A run much longer than its lease goes on as long as the host lives: its
        // heartbeat renews the lease whatever the consumer does (a consumer that pauses
        // for a few leases does not lose the stream).
        shared_device d;
        auto a = d.host("lease=0.2");
        a->start();
        CPPUNIT_ASSERT(items_within(*a, 1000ms) > 900000); // 5 leases at 1 MS/s
        CPPUNIT_ASSERT(d.owned());
        std::this_thread::sleep_for(600ms); // 3 leases without asking for an item
        CPPUNIT_ASSERT(d.owned());
        axioe::client look(d.dev.control_address());
        CPPUNIT_ASSERT(look.read32(regs::rx_reg(0, regs::rx::status)) &
                       regs::status::running);
        CPPUNIT_ASSERT(items_within(*a, 100ms) > 0);
        a->stop();
        CPPUNIT_ASSERT(!d.owned()); // released
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_stream_ownership);
