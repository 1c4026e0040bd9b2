/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream ownership of TX streams on the emulator: the RX block's rules, in the TX block
// (docs/register-map.md, "Ownership" and "TX stream"): owner-only descriptor and
// extension, lease, take-over, release. The bench: qa_ownership_bench.h.

#include "qa_ownership_bench.h"
#include <cppunit/TestFixture.h>

using namespace qa_ownership_bench;

class qa_ownership_tx : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ownership_tx);
    CPPUNIT_TEST(test_tx_foreign_client_refused_stream_runs_on);
    CPPUNIT_TEST(test_tx_lease_lapse_stops_and_frees);
    CPPUNIT_TEST(test_tx_take_over_and_release);
    CPPUNIT_TEST(test_tx_and_rx_streams_owned_apart);
    CPPUNIT_TEST(test_tx_malformed_claims_refused);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_tx_foreign_client_refused_stream_runs_on()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(tx(regs::tx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms, a->read32(tx(regs::tx::lease_ms)));
        b.claim(*a, 42, tx);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine, a->read32(tx(regs::tx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other,
                             stranger->read32(tx(regs::tx::owner)));
        CPPUNIT_ASSERT(b.dev.registers().tx_owner_of(0).client ==
                       ownership_bench::seen(*a));
        b.program_tx(*a);
        b.start_tx(*a);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        ASSERT_STATUS(not_owner,
                      stranger->write32(tx(regs::tx::command), regs::command::stop));
        ASSERT_STATUS(not_owner,
                      stranger->write32(tx(regs::tx::command), regs::command::start));
        ASSERT_STATUS(not_owner, stranger->write32(tx(regs::tx::lease_ms), 1000));
        ASSERT_STATUS(not_owner, stranger->write32(tx(regs::tx::min_lead_ns), 1000));
        ASSERT_STATUS(not_owner, ownership_bench::release(*stranger, tx));
        ASSERT_STATUS(not_owner, b.claim(*stranger, 43, tx));
        ASSERT_STATUS(not_owner, stranger->write32(tx_emu(regs::emu_tx::loss_ppm), 1));
        ASSERT_STATUS(not_owner, stranger->read32(tx_emu(regs::emu_tx::check)));
        // What would let a stranger read the host's ring (QPN, PSN, keys, VAs) is the
        // owner's; what tells what is going on is anyone's.
        for (uint32_t reg = regs::tx::host_ipv4; reg <= regs::tx::run; reg += 4) {
            if (reg == regs::tx::source_qpn)
                continue;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                std::to_string(reg),
                name(axioe::status::not_owner),
                name(code_of([&] { stranger->read32(tx(reg)); })));
        }
        CPPUNIT_ASSERT_EQUAL(0xDCBAu, a->read32(tx(regs::tx::rkey)));
        CPPUNIT_ASSERT_EQUAL(emu::tx_source_qpn(0),
                             stranger->read32(tx(regs::tx::source_qpn)));
        CPPUNIT_ASSERT_NO_THROW(stranger->read64(tx(regs::tx::reads_lo)));
        CPPUNIT_ASSERT_NO_THROW(stranger->read64(tx(regs::tx::samples_played_lo)));
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms,
                             stranger->read32(tx(regs::tx::lease_ms)));
        const uint32_t status = stranger->read32(tx(regs::tx::status));
        CPPUNIT_ASSERT(status & regs::status::running);
        CPPUNIT_ASSERT_EQUAL(0u, status & regs::status::error_mask);
        // Still running, and still the owner's to stop.
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        a->write32(tx(regs::tx::command), regs::command::stop);
        CPPUNIT_ASSERT(b.silent());
    }

    void test_tx_lease_lapse_stops_and_frees()
    {
        ownership_bench b;
        auto a = b.client();
        b.claim(*a, 42, tx);
        a->write32(tx(regs::tx::lease_ms), 200);
        b.program_tx(*a);
        b.start_tx(*a);
        const auto started = std::chrono::steady_clock::now();
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        // The host dies: the device ends its run once the lease lapsed, not before.
        while (b.tx_owned() && std::chrono::steady_clock::now() - started < 2s)
            std::this_thread::sleep_for(1ms);
        const auto lapsed = std::chrono::steady_clock::now() - started;
        CPPUNIT_ASSERT(!b.tx_owned());
        CPPUNIT_ASSERT(lapsed >= 190ms);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(lapsed / 1ms) + " ms", lapsed < 600ms);
        CPPUNIT_ASSERT(b.silent());
        auto next = b.client();
        CPPUNIT_ASSERT_EQUAL(0u,
                             next->read32(tx(regs::tx::status)) & regs::status::running);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned,
                             next->read32(tx(regs::tx::owner)));
        b.claim(*next, 43, tx);
        // Freed: the dead host's keys and its lease are gone.
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms,
                             next->read32(tx(regs::tx::lease_ms)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(tx(regs::tx::rkey)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(tx(regs::tx::ctrl_rkey)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), next->read64(tx(regs::tx::ctrl_va_lo)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(tx_emu(regs::emu_tx::check)));
        b.program_tx(*next);
        b.start_tx(*next);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        ASSERT_STATUS(not_owner, a->write32(tx(regs::tx::command), regs::command::stop));
        next->write32(tx(regs::tx::command), regs::command::stop);
    }

    void test_tx_take_over_and_release()
    {
        ownership_bench b;
        auto a = b.client(), next = b.client();
        b.claim(*a, 42, tx);
        b.program_tx(*a);
        b.start_tx(*a);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        ASSERT_STATUS(not_owner, b.claim(*next, 43, tx));
        b.take_over(*next, 43, tx);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine, next->read32(tx(regs::tx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other, a->read32(tx(regs::tx::owner)));
        // The previous owner's run read the previous owner's ring: it is over, and
        // the new owner does not learn that ring's keys.
        CPPUNIT_ASSERT_EQUAL(0u,
                             next->read32(tx(regs::tx::status)) & regs::status::running);
        CPPUNIT_ASSERT(b.silent());
        ASSERT_STATUS(not_owner, b.start_tx(*a));
        ASSERT_STATUS(not_owner, a->read32(tx(regs::tx::rkey)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(tx(regs::tx::rkey)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(tx(regs::tx::host_qpn)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), next->read64(tx(regs::tx::va_lo)));
        CPPUNIT_ASSERT_EQUAL(1024u, next->read32(tx(regs::tx::payload_bytes)));
        b.program_tx(*next);
        b.start_tx(*next);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        // Release: the device stops the run and frees the stream.
        ASSERT_STATUS(not_owner, ownership_bench::release(*a, tx));
        ownership_bench::release(*next, tx);
        CPPUNIT_ASSERT(!b.tx_owned());
        CPPUNIT_ASSERT_EQUAL(0u,
                             next->read32(tx(regs::tx::status)) & regs::status::running);
        CPPUNIT_ASSERT(b.silent());
        CPPUNIT_ASSERT_EQUAL(0u, a->read32(tx(regs::tx::rkey)));
        ownership_bench::release(*a, tx); // a free stream: nothing changes
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(tx(regs::tx::owner)));
    }

    void test_tx_and_rx_streams_owned_apart()
    {
        // RX stream 0 and TX stream 0 are two streams: each has its own owner.
        ownership_bench b;
        auto a = b.client(), other = b.client();
        b.claim(*a, 42); // RX
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned,
                             other->read32(tx(regs::tx::owner)));
        b.claim(*other, 43, tx);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine, a->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other, a->read32(tx(regs::tx::owner)));
        ASSERT_STATUS(not_owner, a->write32(tx(regs::tx::rkey), 1));
        ASSERT_STATUS(not_owner, other->write32(rx(regs::rx::rkey), 1));
        other->write32(tx(regs::tx::rkey), 2);
        // A's lease is renewed by A's requests only; B's TX claim survives A's release.
        ownership_bench::release(*a);
        CPPUNIT_ASSERT(b.tx_owned());
        CPPUNIT_ASSERT(!b.dev.registers().owner_of(0).owned);
        CPPUNIT_ASSERT_EQUAL(2u, other->read32(tx(regs::tx::rkey)));
    }

    void test_tx_malformed_claims_refused()
    {
        ownership_bench b;
        auto a = b.client();
        const uint32_t lo = tx(regs::tx::owner_token_lo);
        ASSERT_STATUS(slverr, a->write64(lo, 0));
        ASSERT_STATUS(slverr, a->write32(lo, 5));
        const uint32_t three[3] = { 5, 6, regs::owner_command::release };
        ASSERT_STATUS(slverr, a->write(lo, three, 3));
        ASSERT_STATUS(slverr,
                      a->write32(tx(regs::tx::owner), regs::owner_command::take_over));
        ASSERT_STATUS(slverr, a->write32(tx(regs::tx::lease_ms), 1000)); // claim first
        // A descriptor burst that runs into the ownership words is refused whole.
        uint32_t w[4] = { 1, 2, 3, 4 };
        ASSERT_STATUS(slverr, a->write(tx(regs::tx::run), w, 4));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(tx(regs::tx::owner)));
        CPPUNIT_ASSERT_EQUAL(0u, a->read32(tx(regs::tx::run)));
        b.claim(*a, 1, tx);
        ASSERT_STATUS(slverr,
                      a->write32(tx(regs::tx::lease_ms), regs::lease::min_ms - 1));
        a->write32(tx(regs::tx::lease_ms), regs::lease::min_ms);
        CPPUNIT_ASSERT_EQUAL(regs::lease::min_ms, a->read32(tx(regs::tx::lease_ms)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ownership_tx);
