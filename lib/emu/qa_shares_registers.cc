/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The registers of shares (docs/register-map.md, "Shares"): the layout and its limits,
// RX_SHARE_READY and START's error 13, DST_SHARE, and the shares' owners: a share
// claimed by another host than the stream's, its destinations its own, a share that
// becomes free stopping the stream.

#include "qa_shares.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <functional>

using namespace qa_shares;
using namespace std::chrono_literals;

namespace {

axioe::status status_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

uint32_t error_code(uint32_t status)
{
    return (status & regs::status::error_mask) >> regs::status::error_shift;
}

void claim(axioe::client& c, uint32_t at, uint64_t token, bool take_over = false)
{
    const uint32_t w[3] = { regs::low_word(token),
                            regs::high_word(token),
                            regs::owner_command::take_over };
    c.write(at, w, take_over ? 3 : 2);
}

uint32_t share_reg(unsigned h, uint32_t off) { return regs::rx_share_reg(0, h, off); }
uint32_t dst(unsigned d, uint32_t off) { return regs::rx_dest_reg(0, d, off); }

const std::vector<host_destination> two = {
    { 0, 0, 0x111, 0xA0A0, 0 },
    { 1, 4, 0x444, 0xB1B1, 0 },
};

// A stream that runs long enough for the test to act on it.
constexpr uint64_t long_burst = 200ull * rate;

} // namespace

class qa_shares_registers : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_shares_registers);
    CPPUNIT_TEST(test_layout_limits);
    CPPUNIT_TEST(test_ready_and_error_13);
    CPPUNIT_TEST(test_destinations_outside_the_shares_and_weights);
    CPPUNIT_TEST(test_share_owned_by_another_host);
    CPPUNIT_TEST(test_release_of_a_share_stops_the_stream);
    CPPUNIT_TEST(test_take_over_and_lease_of_a_share_stop_the_stream);
    CPPUNIT_TEST(test_stream_freed_keeps_an_owned_share);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_layout_limits()
    {
        bench b;
        CPPUNIT_ASSERT(b.axi.read32(regs::id_capabilities) & regs::cap::shares);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(b.rx(regs::rx::shares)));
        CPPUNIT_ASSERT_EQUAL(16u, b.axi.read32(b.rx(regs::rx::share_block)));
        for (uint32_t bad : { 0u, 9u })
            CPPUNIT_ASSERT(status_of([&] {
                               b.axi.write32(b.rx(regs::rx::shares), bad);
                           }) == axioe::status::slverr);
        for (uint32_t bad : { 0u, 65537u })
            CPPUNIT_ASSERT(status_of([&] {
                               b.axi.write32(b.rx(regs::rx::share_block), bad);
                           }) == axioe::status::slverr);
        b.layout(8, 65536);
        CPPUNIT_ASSERT_EQUAL(8u, b.axi.read32(b.rx(regs::rx::shares)));
        CPPUNIT_ASSERT_EQUAL(65536u, b.axi.read32(b.rx(regs::rx::share_block)));
        // DST_SHARE: d / (8 / H), all ones beyond H * D.
        for (unsigned d = 0; d < 8; d++)
            CPPUNIT_ASSERT_EQUAL(d, b.axi.read32(dst(d, regs::dst::share)));
        b.layout(3, 16);
        const uint32_t of3[8] = { 0, 0, 1, 1, 2, 2, 0xFFFFFFFF, 0xFFFFFFFF };
        for (unsigned d = 0; d < 8; d++)
            CPPUNIT_ASSERT_EQUAL(of3[d], b.axi.read32(dst(d, regs::dst::share)));
        CPPUNIT_ASSERT(status_of([&] { b.axi.write32(dst(1, regs::dst::share), 0); }) ==
                       axioe::status::slverr);
        // Share 0 has no owner registers; every share has its counters.
        CPPUNIT_ASSERT(status_of([&] {
                           b.axi.read32(share_reg(0, regs::share::owner));
                       }) == axioe::status::decerr);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             b.axi.read64(share_reg(0, regs::share::samples_emitted_lo)));
        CPPUNIT_ASSERT_EQUAL(5000u, b.axi.read32(share_reg(7, regs::share::lease_ms)));
        // Latched: no layout change while the stream runs.
        share_host host(two, 2, 16);
        b.layout(2, 16);
        b.program_stream(long_burst);
        b.program_destination(b.axi, host, 0, 1);
        b.program_destination(b.axi, host, 1, 1);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, b.start());
        CPPUNIT_ASSERT(status_of([&] { b.axi.write32(b.rx(regs::rx::shares), 1); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT(status_of([&] {
                           b.axi.write32(b.rx(regs::rx::share_block), 4);
                       }) == axioe::status::slverr);
        b.axi.write32(b.rx(regs::rx::command), regs::command::stop);
        b.layout(1, 4);
    }

    void test_ready_and_error_13()
    {
        bench b;
        share_host host(two, 2, 16);
        b.program_stream(long_burst);
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(b.rx(regs::rx::share_ready)));
        b.program_destination(b.axi, host, 0, 1);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(b.rx(regs::rx::share_ready)));
        b.layout(2, 16);
        // Share 1 has no destination: START refused with 13, nothing sent.
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(b.rx(regs::rx::share_ready)));
        const uint32_t st = b.start();
        CPPUNIT_ASSERT_EQUAL(regs::status::error, st & ~regs::status::error_mask);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::share_not_ready, error_code(st));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.axi.read64(b.rx(regs::rx::packets_sent_lo)));
        // Programmed (QPN last), weight 0, link declared down: ready only as it may be.
        b.program_destination(b.axi, host, 1, 1);
        CPPUNIT_ASSERT_EQUAL(3u, b.axi.read32(b.rx(regs::rx::share_ready)));
        b.axi.write32(dst(4, regs::dst::weight), 0);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(b.rx(regs::rx::share_ready)));
        CPPUNIT_ASSERT_EQUAL(regs::error_code::share_not_ready, error_code(b.start()));
        b.axi.write32(dst(4, regs::dst::weight), 1);
        b.axi.write32(regs::link_reg(0, regs::link::control), regs::link_control::down);
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(b.rx(regs::rx::share_ready)));
        b.axi.write32(regs::link_reg(0, regs::link::control), regs::link_control::up);
        CPPUNIT_ASSERT_EQUAL(3u, b.axi.read32(b.rx(regs::rx::share_ready)));
        // Bits at and above RX_SHARES read 0.
        b.layout(1, 16);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(b.rx(regs::rx::share_ready)));
        b.layout(2, 16);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, b.start());
        b.axi.write32(b.rx(regs::rx::command), regs::command::stop);
    }

    void test_destinations_outside_the_shares_and_weights()
    {
        bench b;
        share_host host({ { 0, 0, 0x111, 1, 0 },
                          { 1, 2, 0x222, 2, 0 },
                          { 2, 4, 0x333, 3, 0 },
                          { 2, 6, 0x666, 6, 0 } },
                        3,
                        16);
        b.program_stream(long_burst);
        b.layout(3, 16);
        for (size_t k = 0; k < 3; k++)
            b.program_destination(b.axi, host, k, 1);
        CPPUNIT_ASSERT_EQUAL(7u, b.axi.read32(b.rx(regs::rx::share_ready)));
        // Destination 6 belongs to no share when H = 3 (D = 2): refused, 14.
        b.program_destination(b.axi, host, 3, 1);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_destinations, error_code(b.start()));
        b.axi.write32(dst(6, regs::dst::qpn), 0);
        // A share's weights beyond one period: 14; RC with shares: 14.
        b.axi.write32(dst(2, regs::dst::weight), 1025);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_destinations, error_code(b.start()));
        b.axi.write32(dst(2, regs::dst::weight), 1024);
        b.axi.write32(b.rx(regs::rx::transport), regs::transport_type::rc);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_destinations, error_code(b.start()));
        b.axi.write32(b.rx(regs::rx::transport), regs::transport_type::uc);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, b.start());
        // While running, a weight write that would leave share 1 without a weight is
        // refused; one that keeps every share streaming opens an epoch.
        CPPUNIT_ASSERT(status_of([&] { b.axi.write32(dst(2, regs::dst::weight), 0); }) ==
                       axioe::status::slverr);
        b.axi.write32(dst(2, regs::dst::weight), 2);
        b.axi.write32(b.rx(regs::rx::command), regs::command::stop);
    }

    void test_share_owned_by_another_host()
    {
        bench b;
        axioe::client& a = b.axi; // the stream's host
        axioe::client share1(b.dev.control_address()), stranger(b.dev.control_address());
        share_host host(two, 2, 16);
        claim(a, b.rx(regs::rx::owner_token_lo), 0xA);
        b.layout(2, 16);
        b.program_stream(long_burst);
        b.program_destination(a, host, 0, 1);
        // Share 1 is claimable while another client owns the stream; share 2 is not
        // one of its shares; share 0 has no owner registers.
        claim(share1, share_reg(1, regs::share::token_lo), 0xB);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine,
                             share1.read32(share_reg(1, regs::share::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other,
                             a.read32(share_reg(1, regs::share::owner)));
        CPPUNIT_ASSERT(status_of([&] {
                           claim(stranger, share_reg(2, regs::share::token_lo), 0xC);
                       }) == axioe::status::slverr);
        CPPUNIT_ASSERT(status_of([&] {
                           claim(stranger, share_reg(0, regs::share::token_lo), 0xC);
                       }) == axioe::status::decerr);
        CPPUNIT_ASSERT(status_of([&] {
                           claim(stranger, share_reg(1, regs::share::token_lo), 0xC);
                       }) == axioe::status::not_owner);
        // The layout cannot change under the share's host, even by the stream's owner.
        CPPUNIT_ASSERT(status_of([&] { a.write32(b.rx(regs::rx::shares), 1); }) ==
                       axioe::status::slverr);
        // Share 1's destinations are its owner's: NOT_OWNER for the stream's owner and
        // a stranger, writes and owner-only reads; DST_SHARE and the counters anyone's.
        for (axioe::client* c : { &a, &stranger }) {
            CPPUNIT_ASSERT(status_of([&] { c->write32(dst(4, regs::dst::qpn), 1); }) ==
                           axioe::status::not_owner);
            CPPUNIT_ASSERT(status_of([&] { c->read32(dst(4, regs::dst::rkey)); }) ==
                           axioe::status::not_owner);
            CPPUNIT_ASSERT_EQUAL(1u, c->read32(dst(4, regs::dst::share)));
            CPPUNIT_ASSERT_EQUAL(
                uint64_t(0), c->read64(share_reg(1, regs::share::samples_emitted_lo)));
        }
        b.program_destination(share1, host, 1, 1);
        CPPUNIT_ASSERT_EQUAL(host.dests[1].rkey, share1.read32(dst(4, regs::dst::rkey)));
        // The share's owner has nothing on the stream's block, nor a stranger on the
        // share's lease; it may write LINK_CONTROL (it owns a share), a stranger not.
        CPPUNIT_ASSERT(status_of([&] {
                           share1.write32(b.rx(regs::rx::command), regs::command::start);
                       }) == axioe::status::not_owner);
        CPPUNIT_ASSERT(status_of([&] {
                           stranger.write32(share_reg(1, regs::share::lease_ms), 1000);
                       }) == axioe::status::not_owner);
        share1.write32(share_reg(1, regs::share::lease_ms), 1000);
        CPPUNIT_ASSERT_EQUAL(1000u, a.read32(share_reg(1, regs::share::lease_ms)));
        share1.write32(regs::link_reg(0, regs::link::control), regs::link_control::up);
        CPPUNIT_ASSERT(status_of([&] {
                           stranger.write32(regs::link_reg(0, regs::link::control),
                                            regs::link_control::up);
                       }) == axioe::status::not_owner);
        CPPUNIT_ASSERT_EQUAL(3u, stranger.read32(b.rx(regs::rx::share_ready)));
        CPPUNIT_ASSERT_EQUAL(regs::status::running, b.start());
        // While it runs, the share's owner changes its own weight (an epoch).
        share1.write32(dst(4, regs::dst::weight), 2);
        CPPUNIT_ASSERT(status_of([&] { a.write32(dst(4, regs::dst::weight), 3); }) ==
                       axioe::status::not_owner);
        a.write32(b.rx(regs::rx::command), regs::command::stop);
    }

    void test_release_of_a_share_stops_the_stream()
    {
        bench b;
        axioe::client share1(b.dev.control_address());
        share_host host(two, 2, 16);
        const uint32_t token = share_reg(1, regs::share::token_lo);
        running_with_share(b, share1, host, token);
        share1.write32(share_reg(1, regs::share::owner), regs::owner_command::release);
        CPPUNIT_ASSERT_EQUAL(
            0u, b.axi.read32(b.rx(regs::rx::status)) & regs::status::running);
        // RX_STOP_CAUSE names the share and how its host left, for every other host.
        namespace sc = regs::stop_cause;
        CPPUNIT_ASSERT_EQUAL(sc::make(sc::share_left, 1, sc::how::released),
                             share1.read32(b.rx(regs::rx::stop_cause)));
        CPPUNIT_ASSERT_EQUAL(sc::make(sc::share_left, 1, sc::how::released),
                             b.axi.read32(b.rx(regs::rx::stop_cause)));
        // Its destinations are back at reset (the stream's to program again), and the
        // layout may change again.
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(dst(4, regs::dst::qpn)));
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(dst(4, regs::dst::rkey)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned,
                             b.axi.read32(share_reg(1, regs::share::owner)));
        // What it emitted stays readable, and adds up to the stream's.
        const uint64_t total = b.axi.read64(b.rx(regs::rx::samples_emitted_lo));
        CPPUNIT_ASSERT(total > 0);
        CPPUNIT_ASSERT_EQUAL(
            total,
            b.axi.read64(share_reg(0, regs::share::samples_emitted_lo)) +
                b.axi.read64(share_reg(1, regs::share::samples_emitted_lo)));
        CPPUNIT_ASSERT_EQUAL(regs::error_code::share_not_ready, error_code(b.start()));
        b.layout(1, 16);
    }

    void test_take_over_and_lease_of_a_share_stop_the_stream()
    {
        bench b;
        axioe::client share1(b.dev.control_address()), other(b.dev.control_address());
        share_host host(two, 2, 16);
        const uint32_t token = share_reg(1, regs::share::token_lo);
        running_with_share(b, share1, host, token);
        claim(other, token, 0xD, true); // take-over: the previous host's ring is left
        CPPUNIT_ASSERT_EQUAL(
            0u, b.axi.read32(b.rx(regs::rx::status)) & regs::status::running);
        namespace sc = regs::stop_cause;
        CPPUNIT_ASSERT_EQUAL(sc::make(sc::share_left, 1, sc::how::taken_over),
                             b.axi.read32(b.rx(regs::rx::stop_cause)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine,
                             other.read32(share_reg(1, regs::share::owner)));
        CPPUNIT_ASSERT_EQUAL(0u, other.read32(dst(4, regs::dst::qpn)));
        other.write32(share_reg(1, regs::share::owner), regs::owner_command::release);

        // A share owner that falls silent beyond its lease frees the share, which
        // stops the stream, though the stream's owner keeps talking.
        running_with_share(b, share1, host, token);
        share1.write32(share_reg(1, regs::share::lease_ms), 100);
        uint32_t status = regs::status::running;
        const auto until = std::chrono::steady_clock::now() + 2s;
        while ((status & regs::status::running) &&
               std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(10ms);
            status = b.axi.read32(b.rx(regs::rx::status));
        }
        CPPUNIT_ASSERT_EQUAL(0u, status & regs::status::running);
        CPPUNIT_ASSERT_EQUAL(sc::make(sc::share_left, 1, sc::how::lapsed),
                             b.axi.read32(b.rx(regs::rx::stop_cause)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned,
                             b.axi.read32(share_reg(1, regs::share::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine,
                             b.axi.read32(b.rx(regs::rx::owner)));
    }

    void test_stream_freed_keeps_an_owned_share()
    {
        bench b;
        axioe::client share1(b.dev.control_address());
        share_host host(two, 2, 16);
        running_with_share(b, share1, host, share_reg(1, regs::share::token_lo));
        b.axi.write32(b.rx(regs::rx::owner), regs::owner_command::release);
        // The stream's descriptor and share 0's destination are back at reset; share
        // 1 keeps its owner, its destination, and the layout it was claimed under.
        CPPUNIT_ASSERT_EQUAL(
            0u, b.axi.read32(b.rx(regs::rx::status)) & regs::status::running);
        CPPUNIT_ASSERT_EQUAL(0u, b.axi.read32(b.rx(regs::rx::dest_qpn)));
        CPPUNIT_ASSERT_EQUAL(2u, b.axi.read32(b.rx(regs::rx::shares)));
        CPPUNIT_ASSERT_EQUAL(host.dests[1].qpn, share1.read32(dst(4, regs::dst::qpn)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine,
                             share1.read32(share_reg(1, regs::share::owner)));
        // Once the share too is released, nobody holds the stream or a share of it:
        // the layout is back at its reset value, and may be written again.
        share1.write32(share_reg(1, regs::share::owner), regs::owner_command::release);
        CPPUNIT_ASSERT_EQUAL(1u, b.axi.read32(b.rx(regs::rx::shares)));
        CPPUNIT_ASSERT_EQUAL(16u, b.axi.read32(b.rx(regs::rx::share_block)));
        b.layout(2, 5);
        // While the stream is owned, a share's release leaves the layout alone.
        claim(b.axi, b.rx(regs::rx::owner_token_lo), 0xA);
        claim(share1, share_reg(1, regs::share::token_lo), 0xB);
        share1.write32(share_reg(1, regs::share::owner), regs::owner_command::release);
        CPPUNIT_ASSERT_EQUAL(2u, b.axi.read32(b.rx(regs::rx::shares)));
        CPPUNIT_ASSERT_EQUAL(5u, b.axi.read32(b.rx(regs::rx::share_block)));
    }

private:
    // The stream owned by b.axi over two shares, share 1 claimed and programmed by
    // \p share1 at \p token, running.
    void running_with_share(bench& b,
                            axioe::client& share1,
                            const share_host& host,
                            uint32_t token)
    {
        claim(b.axi, b.rx(regs::rx::owner_token_lo), 0xA);
        if (b.axi.read32(b.rx(regs::rx::shares)) != 2)
            b.layout(2, 16);
        b.program_stream(long_burst);
        b.program_destination(b.axi, host, 0, 1);
        claim(share1, token, 0xB);
        b.program_destination(share1, host, 1, 1);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, b.start());
        std::this_thread::sleep_for(20ms); // some messages of each share go out
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_shares_registers);
