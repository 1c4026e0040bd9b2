/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream ownership from the host's side: device_controller's claim, release and
// renewal, and rx_stream and tx_stream hosts sharing one emulator (type=remote), each
// with its own AXIoE client, so each its own owner identity.

#include "../device/device_controller.h"
#include "../emu/emulator.h"
#include "qa_errors.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace gr::rdma;
using namespace gr::rdma::qa_errors;
using namespace std::chrono_literals;

namespace {

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

// A producer that keeps up: the ramp into all free space for \p window, in place.
// Returns the items committed; stops early when the run ended (error()).
uint64_t transmit_for(tx_stream& s, std::chrono::milliseconds window)
{
    uint64_t items = 0;
    const auto end = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < end && s.error().empty()) {
        const tx_stream::space sp = s.wait_space(1, 10ms);
        if (sp.items == 0)
            continue;
        ramp_fill(
            sample_format::sc16, sp.first_item, sp.items, static_cast<uint8_t*>(sp.data));
        s.commit(sp.items);
        items += sp.items;
    }
    return items;
}

// Whether \p s reported an event of kind \p k (the reports are popped).
bool reported(tx_stream& s, tx_event::kind k)
{
    bool found = false;
    tx_event e;
    while (s.poll_event(e))
        found = found || e.type == k;
    return found;
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
    //! A transmitting host of its own, as host() for receive.
    std::unique_ptr<tx_stream> tx_host(const std::string& more = "")
    {
        const std::string name = "name=host" + std::to_string(++hosts);
        return std::make_unique<tx_stream>(
            "type=remote,addr=" + dev.control_address().to_string() +
                ",hugepages=off,latency=0.05," + name + (more.empty() ? "" : "," + more),
            "sc16",
            1e6);
    }
    unsigned hosts = 0;
    bool owned() const { return dev.registers().owner_of(0).owned; }
    bool tx_owned() const { return dev.registers().tx_owner_of(0).owned; }
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
    CPPUNIT_TEST(test_whole_stream_host_and_a_left_layout);
    CPPUNIT_TEST(test_tx_controller_claim_take_over_release);
    CPPUNIT_TEST(test_tx_second_host_told_who_owns_the_stream);
    CPPUNIT_TEST(test_tx_take_over_ends_the_previous_hosts_run_clearly);
    CPPUNIT_TEST(test_tx_stop_releases_restart_claims_again);
    CPPUNIT_TEST(test_tx_unowned_run_refused_unless_take_over);
    CPPUNIT_TEST(test_tx_lapsed_lease_frees_the_stream);
    CPPUNIT_TEST(test_tx_watch_keeps_the_lease_while_the_producer_pauses);
    CPPUNIT_TEST(test_tx_lease_and_take_over_args);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_whole_stream_host_and_a_left_layout()
    {
        // A layout of two shares left on a stream nobody owns (docs/register-map.md,
        // "Shares"): a host of the whole stream sets it back to one share and streams.
        shared_device d;
        axioe::client other(d.dev.control_address());
        const uint32_t layout = regs::rx_reg(0, regs::rx::shares);
        other.write32(layout, 2);
        auto whole = d.host();
        whole->start();
        CPPUNIT_ASSERT_EQUAL(1u, other.read32(layout));
        CPPUNIT_ASSERT(items_within(*whole, 100ms) > 0); // it streams
        whole->stop();
        CPPUNIT_ASSERT(whole->error().empty());
        // Another host holds share 1 of that layout: the whole stream's host is told
        // which, and how to take part instead.
        other.write32(layout, 2);
        device_controller holder(d.dev.control_address());
        holder.claim_share(0, 1, 0x5EED, 5000, false);
        auto late = d.host();
        try {
            late->start();
            CPPUNIT_FAIL("a whole-stream host started a stream split into held shares");
        } catch (const std::runtime_error& e) {
            const std::string what = e.what();
            CPPUNIT_ASSERT_MESSAGE(what,
                                   what.find("split into 2 shares") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(what, what.find("share=0/2") != std::string::npos);
        }
        CPPUNIT_ASSERT(!d.owned()); // the refused host gave the stream back
        CPPUNIT_ASSERT_EQUAL(2u, other.read32(layout));
    }

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
        // The refused host says why, and has no books: the device's counters are the
        // owner's run's, never the refused host's (once: "emitted 11807744 != delivered
        // 0 + lost 0").
        CPPUNIT_ASSERT_MESSAGE(b->error(), contains(b->error(), "did not start"));
        CPPUNIT_ASSERT(contains(b->error(), "owned by another host"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b->read_counters().at("device.counters_known"));
        CPPUNIT_ASSERT(contains(b->device_note(), "did not start"));
        // The owner's stream never noticed.
        CPPUNIT_ASSERT(items_within(*a, 100ms) > 0);
        CPPUNIT_ASSERT(a->error().empty());
        a->stop();
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), a->read_counters().at("device.counters_known"));
    }

    void test_take_over_host_streams_previous_host_stops_quietly()
    {
        shared_device d;
        auto a = d.host();
        a->start();
        CPPUNIT_ASSERT(items_within(*a, 50ms) > 0);
        auto c = d.host("take_over=1");
        const auto taken = std::chrono::steady_clock::now();
        c->start();
        CPPUNIT_ASSERT(items_within(*c, 100ms) > 0);
        // A is told while it runs (once it ran on, silent, for its whole burst): its
        // heartbeat reads the owner, every device_timeout/2 (250 ms). The deadline is
        // generous for a busy machine; the bound is the heartbeat's.
        while (a->error().empty() && std::chrono::steady_clock::now() < taken + 5s)
            items_within(*a, 10ms);
        CPPUNIT_ASSERT_MESSAGE(a->error(), contains(a->error(), "another host's now"));
        // Its stop(): no exception, nothing released, and never the new owner's
        // counters taken for its own books.
        CPPUNIT_ASSERT_NO_THROW(a->stop());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a->read_counters().at("device.counters_known"));
        CPPUNIT_ASSERT(contains(a->device_note(), "another host"));
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

    // ---- TX streams: tx_stream claims its TX stream as rx_stream its RX stream.

    void test_tx_controller_claim_take_over_release()
    {
        shared_device d;
        device_controller a(d.dev.control_address()), b(d.dev.control_address());
        CPPUNIT_ASSERT(a.read_tx_owner(0) == stream_owner::none);
        a.claim_tx(0, random_owner_token(), 1500, false);
        CPPUNIT_ASSERT(a.read_tx_owner(0) == stream_owner::this_host);
        CPPUNIT_ASSERT(b.read_tx_owner(0) == stream_owner::another_host);
        // The RX stream of the same index is another stream: still free.
        CPPUNIT_ASSERT(b.read_rx_owner(0) == stream_owner::none);
        const std::string refused = error_of<stream_owned_error>(
            [&] { b.claim_tx(0, random_owner_token(), 5000, false); });
        CPPUNIT_ASSERT_EQUAL("device at " + d.dev.control_address().to_string() +
                                 ": TX stream 0 is owned by another host; wait for its "
                                 "lease (1.5 s) to lapse or add take_over=1",
                             refused);
        CPPUNIT_ASSERT_EQUAL(refused,
                             error_of<stream_owned_error>([&] { b.start_tx(0); }));
        b.claim_tx(0, random_owner_token(), 5000, true);
        CPPUNIT_ASSERT(b.read_tx_owner(0) == stream_owner::this_host);
        CPPUNIT_ASSERT(a.read_tx_owner(0) == stream_owner::another_host);
        try {
            a.release_tx(0);
            CPPUNIT_FAIL("released another host's stream");
        } catch (const axioe::error& e) {
            CPPUNIT_ASSERT(e.code() == axioe::status::not_owner);
        }
        b.release_tx(0);
        CPPUNIT_ASSERT(a.read_tx_owner(0) == stream_owner::none);
        CPPUNIT_ASSERT(!d.tx_owned());
    }

    void test_tx_second_host_told_who_owns_the_stream()
    {
        shared_device d;
        auto a = d.tx_host();
        a->start();
        CPPUNIT_ASSERT(d.tx_owned());
        CPPUNIT_ASSERT(transmit_for(*a, 50ms) > 0);
        // Another host opens (nothing it reads is the owner's), but cannot start.
        auto b = d.tx_host();
        const std::string refused = error_of<stream_owned_error>([&] { b->start(); });
        CPPUNIT_ASSERT_MESSAGE(refused,
                               contains(refused,
                                        ": TX stream 0 is owned by another host; wait "
                                        "for its lease (5 s) to lapse or add "
                                        "take_over=1"));
        CPPUNIT_ASSERT(!b->running());
        // The owner's stream never noticed: the device goes on fetching its samples.
        const uint64_t before = a->fetched();
        transmit_for(*a, 100ms);
        CPPUNIT_ASSERT(a->fetched() > before);
        CPPUNIT_ASSERT_EQUAL(std::string(), a->error());
        a->stop();
        CPPUNIT_ASSERT(!d.tx_owned());
        const tx_stream::accounting c = a->counts();
        CPPUNIT_ASSERT(c.final && c.identity_holds());
        // Released: now the other host may.
        b->start();
        CPPUNIT_ASSERT(transmit_for(*b, 50ms) > 0);
        b->stop();
    }

    void test_tx_take_over_ends_the_previous_hosts_run_clearly()
    {
        shared_device d;
        auto a = d.tx_host();
        a->start();
        CPPUNIT_ASSERT(transmit_for(*a, 50ms) > 0);
        auto c = d.tx_host("take_over=1");
        c->start();
        const uint64_t fetched = c->fetched();
        transmit_for(*c, 100ms);
        CPPUNIT_ASSERT(c->fetched() > fetched);
        // A's run is over; its producer learns it (within a reading of its watch) from
        // an error saying why, and a report.
        transmit_for(*a, 500ms);
        CPPUNIT_ASSERT_MESSAGE(a->error(),
                               contains(a->error(),
                                        "TX stream 0 no longer runs on the device at " +
                                            d.dev.control_address().to_string() +
                                            " (stopped by another host, its lease "
                                            "lapsed, or the device restarted)"));
        CPPUNIT_ASSERT(reported(*a, tx_event::kind::stream_stopped));
        CPPUNIT_ASSERT_EQUAL(0u, unsigned(a->wait_space(1, 10ms).items));
        // Stopping it is quiet and releases nothing: the stream is C's.
        CPPUNIT_ASSERT_NO_THROW(a->stop());
        CPPUNIT_ASSERT(d.tx_owned());
        CPPUNIT_ASSERT(!a->counts().final); // its counters are C's now
        const uint64_t later = c->fetched();
        transmit_for(*c, 100ms);
        CPPUNIT_ASSERT(c->fetched() > later);
        CPPUNIT_ASSERT_EQUAL(std::string(), c->error());
        c->stop();
        CPPUNIT_ASSERT(!d.tx_owned());
    }

    void test_tx_stop_releases_restart_claims_again()
    {
        shared_device d;
        auto a = d.tx_host();
        a->start();
        const auto first = d.dev.registers().tx_owner_of(0);
        CPPUNIT_ASSERT(first.owned);
        transmit_for(*a, 20ms);
        a->stop();
        CPPUNIT_ASSERT(!d.tx_owned());
        a->start();
        CPPUNIT_ASSERT(d.tx_owned());
        CPPUNIT_ASSERT(d.dev.registers().tx_owner_of(0).client == first.client);
        CPPUNIT_ASSERT(transmit_for(*a, 50ms) > 0);
        CPPUNIT_ASSERT(a->fetched() > 0);
        a.reset(); // destruction stops, and releases
        CPPUNIT_ASSERT(!d.tx_owned());
    }

    void test_tx_unowned_run_refused_unless_take_over()
    {
        // A run that a host without ownership left going: claiming it would make it
        // this host's, so the host refuses it, clearly, unless told to take over.
        shared_device d;
        axioe::client old_host(d.dev.control_address());
        auto tx = [](uint32_t reg) { return regs::tx_reg(0, reg); };
        old_host.write32(tx(regs::tx::host_ipv4), 0x7F000001);
        old_host.write32(tx(regs::tx::host_udp_port), 9); // discard
        old_host.write32(tx(regs::tx::host_qpn), 0x123);
        old_host.write64(tx(regs::tx::ring_bytes_lo), 65536);
        old_host.write64(tx(regs::tx::ctrl_va_lo), 0x7f0000000000ull);
        old_host.write32(tx(regs::tx::rate_num), 1000);
        old_host.write32(tx(regs::tx::command), regs::command::start);
        CPPUNIT_ASSERT(old_host.read32(tx(regs::tx::status)) & regs::status::running);
        auto a = d.tx_host();
        const std::string refused = error_of<std::runtime_error>([&] { a->start(); });
        CPPUNIT_ASSERT_MESSAGE(refused,
                               contains(refused,
                                        ": TX stream 0 is running for a host that does "
                                        "not claim its streams; stop it there, or add "
                                        "take_over=1 to stop it from here"));
        CPPUNIT_ASSERT(!a->running());
        CPPUNIT_ASSERT(!d.tx_owned());
        CPPUNIT_ASSERT(old_host.read32(tx(regs::tx::status)) & regs::status::running);
        auto c = d.tx_host("take_over=1");
        c->start();
        transmit_for(*c, 100ms);
        CPPUNIT_ASSERT(c->fetched() > 0);
        c->stop();
        CPPUNIT_ASSERT(c->counts().identity_holds());
    }

    void test_tx_lapsed_lease_frees_the_stream()
    {
        // A host that claimed the TX stream and died (its controller silent from now
        // on): the next host is told to wait; once the lease lapsed, it transmits.
        shared_device d;
        device_controller dead(d.dev.control_address());
        dead.claim_tx(0, random_owner_token(), 300, false);
        const auto claimed = std::chrono::steady_clock::now();
        auto b = d.tx_host();
        const std::string refused = error_of<stream_owned_error>([&] { b->start(); });
        CPPUNIT_ASSERT_MESSAGE(refused,
                               contains(refused,
                                        ": TX stream 0 is owned by another host; wait "
                                        "for its lease (0.3 s) to lapse or add "
                                        "take_over=1"));
        while (d.tx_owned() && std::chrono::steady_clock::now() - claimed < 3s)
            std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT(!d.tx_owned());
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - claimed >= 290ms);
        b->start();
        CPPUNIT_ASSERT(d.tx_owned());
        transmit_for(*b, 100ms);
        CPPUNIT_ASSERT(b->fetched() > 0);
        b->stop();
        CPPUNIT_ASSERT(b->counts().identity_holds());
        CPPUNIT_ASSERT(dead.read_tx_owner(0) == stream_owner::none);
    }

    void test_tx_watch_keeps_the_lease_while_the_producer_pauses()
    {
        // The watch thread's readings renew the lease, whatever the producer does: a
        // producer that pauses for three leases keeps its stream (which underflows).
        shared_device d;
        auto a = d.tx_host("lease=0.2");
        a->start();
        CPPUNIT_ASSERT_EQUAL(200u, d.dev.registers().tx_owner_of(0).lease_ms);
        CPPUNIT_ASSERT(transmit_for(*a, 300ms) > 0);
        std::this_thread::sleep_for(600ms);
        CPPUNIT_ASSERT(d.tx_owned());
        axioe::client look(d.dev.control_address());
        CPPUNIT_ASSERT(look.read32(regs::tx_reg(0, regs::tx::status)) &
                       regs::status::running);
        const uint64_t before = a->fetched();
        transmit_for(*a, 100ms);
        CPPUNIT_ASSERT(a->fetched() > before);
        CPPUNIT_ASSERT_EQUAL(std::string(), a->error());
        a->stop();
        CPPUNIT_ASSERT(!d.tx_owned());
        const tx_stream::accounting c = a->counts();
        CPPUNIT_ASSERT(c.identity_holds());
        CPPUNIT_ASSERT(c.underflow > 0); // the pause
    }

    void test_tx_lease_and_take_over_args()
    {
        shared_device d;
        const std::string low =
            error_of<std::invalid_argument>([&] { d.tx_host("lease=0.05"); });
        CPPUNIT_ASSERT_MESSAGE(
            low, contains(low, "lease=0.05 is invalid: expected seconds 0.1..600"));
        CPPUNIT_ASSERT(
            contains(error_of<std::invalid_argument>([&] { d.tx_host("take_over=yes"); }),
                     "take_over"));
        auto a = d.tx_host("lease=0.25");
        a->start();
        CPPUNIT_ASSERT_EQUAL(250u, d.dev.registers().tx_owner_of(0).lease_ms);
        a->stop();
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_stream_ownership);
