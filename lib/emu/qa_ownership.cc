/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream ownership on the emulator (docs/register-map.md, "Ownership"), RX streams;
// TX streams in qa_ownership_tx.cc, the bench in qa_ownership_bench.h.

#include "qa_ownership_bench.h"
#include <cppunit/TestFixture.h>

using namespace qa_ownership_bench;

class qa_ownership : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ownership);
    CPPUNIT_TEST(test_capability_and_reset_state);
    CPPUNIT_TEST(test_claim_free_stream);
    CPPUNIT_TEST(test_foreign_client_refused_stream_runs_on);
    CPPUNIT_TEST(test_foreign_reads_of_secrets_refused_status_readable);
    CPPUNIT_TEST(test_metadata_block_belongs_to_owners);
    CPPUNIT_TEST(test_lease_lapse_stops_and_frees_without_traffic);
    CPPUNIT_TEST(test_requests_renew_the_lease);
    CPPUNIT_TEST(test_take_over_stops_the_previous_run);
    CPPUNIT_TEST(test_release);
    CPPUNIT_TEST(test_token_never_readable_and_proves_ownership);
    CPPUNIT_TEST(test_malformed_claims_refused);
    CPPUNIT_TEST(test_unowned_stream_behaves_as_before);
    CPPUNIT_TEST(test_start_while_running_reads_busy);
    CPPUNIT_TEST(test_stop_cause_says_why_each_run_ended);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_capability_and_reset_state()
    {
        ownership_bench b;
        auto a = b.client();
        CPPUNIT_ASSERT(a->read32(regs::id_capabilities) & regs::cap::ownership);
        CPPUNIT_ASSERT_EQUAL(regs::map_version, a->read32(regs::id_version));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms, a->read32(rx(regs::rx::lease_ms)));
    }

    void test_claim_free_stream()
    {
        ownership_bench b;
        auto a = b.client(), other = b.client();
        b.claim(*a, 0x1122334455667788ull);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine, a->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other,
                             other->read32(rx(regs::rx::owner)));
        const auto info = b.dev.registers().owner_of(0);
        CPPUNIT_ASSERT(info.owned);
        CPPUNIT_ASSERT(info.client == ownership_bench::seen(*a));
        // Claiming again (any token: its address already grants it everything) is fine.
        b.claim(*a, 0x99);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine, a->read32(rx(regs::rx::owner)));
    }

    void test_foreign_client_refused_stream_runs_on()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        b.claim(*a, 42);
        b.program(*a);
        b.start(*a);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        ASSERT_STATUS(not_owner,
                      stranger->write32(rx(regs::rx::command), regs::command::stop));
        ASSERT_STATUS(not_owner,
                      stranger->write32(rx(regs::rx::command), regs::command::start));
        ASSERT_STATUS(not_owner, stranger->write32(rx(regs::rx::lease_ms), 1000));
        ASSERT_STATUS(not_owner, ownership_bench::release(*stranger));
        ASSERT_STATUS(not_owner, b.claim(*stranger, 43));
        ASSERT_STATUS(not_owner,
                      stranger->write32(regs::emu_reg(0, regs::emu::signal), 1));
        ASSERT_STATUS(not_owner,
                      stranger->read32(regs::emu_reg(0, regs::emu::fault_log_level)));
        const uint32_t status = stranger->read32(rx(regs::rx::status));
        CPPUNIT_ASSERT(status & regs::status::running);
        CPPUNIT_ASSERT_EQUAL(0u, status & regs::status::error_mask);
        // Still streaming, and still the owner's to stop.
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        a->write32(rx(regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT(b.silent());
    }

    void test_foreign_reads_of_secrets_refused_status_readable()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        b.claim(*a, 42);
        b.program(*a);
        // While the stream is stopped too: the descriptor is the owner's.
        for (uint32_t reg = regs::rx::dest_ipv4; reg <= regs::rx::dest_mac_lo; reg += 4) {
            if (reg == regs::rx::source_qpn)
                continue;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                std::to_string(reg),
                name(axioe::status::not_owner),
                name(code_of([&] { stranger->read32(rx(reg)); })));
            CPPUNIT_ASSERT_NO_THROW(a->read32(rx(reg)));
        }
        CPPUNIT_ASSERT_EQUAL(0xABCDu, a->read32(rx(regs::rx::rkey)));
        // A burst with one secret in it answers nothing.
        uint32_t w[3];
        ASSERT_STATUS(not_owner, stranger->read(rx(regs::rx::status), w, 3));
        b.start(*a);
        // What tools need to say what is going on stays readable by anyone.
        CPPUNIT_ASSERT(stranger->read32(rx(regs::rx::status)) & regs::status::running);
        CPPUNIT_ASSERT_NO_THROW(stranger->read64(rx(regs::rx::packets_sent_lo)));
        CPPUNIT_ASSERT_NO_THROW(stranger->read64(rx(regs::rx::samples_dropped_lo)));
        CPPUNIT_ASSERT_EQUAL(emu::rx_source_qpn(0),
                             stranger->read32(rx(regs::rx::source_qpn)));
        CPPUNIT_ASSERT_NO_THROW(stranger->read32(rx(regs::rx::fifo_us)));
        CPPUNIT_ASSERT_EQUAL(0u, stranger->read32(rx(regs::rx::command)));
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms,
                             stranger->read32(rx(regs::rx::lease_ms)));
        CPPUNIT_ASSERT_NO_THROW(stranger->read64(regs::clock_time_ns_lo));
        stranger->write32(regs::scratch, 7); // device-wide, no owner
        CPPUNIT_ASSERT_EQUAL(7u, a->read32(regs::scratch));
    }

    void test_metadata_block_belongs_to_owners()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        const uint32_t port = regs::metadata_reg(regs::metadata::dest_udp_port);
        stranger->write32(port, 1000); // nobody owns anything: open to all
        b.claim(*a, 42);
        ASSERT_STATUS(not_owner, stranger->write32(port, 2000));
        CPPUNIT_ASSERT_EQUAL(1000u, stranger->read32(port)); // reads stay open
        a->write32(port, 3000);
        CPPUNIT_ASSERT_EQUAL(3000u, a->read32(port));
    }

    void test_lease_lapse_stops_and_frees_without_traffic()
    {
        ownership_bench b;
        auto a = b.client();
        b.claim(*a, 42);
        a->write32(rx(regs::rx::lease_ms), regs::lease::min_ms * 2); // 200 ms
        CPPUNIT_ASSERT_EQUAL(200u, a->read32(rx(regs::rx::lease_ms)));
        b.program(*a);
        b.start(*a);
        const auto started = std::chrono::steady_clock::now();
        // The host dies: nobody talks to the device from now on. It must end the run
        // by itself, once the lease has lapsed and not before.
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        while (b.dev.registers().owner_of(0).owned &&
               std::chrono::steady_clock::now() - started < 2s)
            std::this_thread::sleep_for(1ms);
        const auto lapsed = std::chrono::steady_clock::now() - started;
        CPPUNIT_ASSERT(!b.dev.registers().owner_of(0).owned);
        CPPUNIT_ASSERT(lapsed >= 190ms);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(lapsed / 1ms) + " ms", lapsed < 600ms);
        CPPUNIT_ASSERT(b.silent());
        // Free: a new host takes it, and the lease is back at its reset value.
        auto next = b.client();
        CPPUNIT_ASSERT_EQUAL(0u,
                             next->read32(rx(regs::rx::status)) & regs::status::running);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned,
                             next->read32(rx(regs::rx::owner)));
        namespace sc = regs::stop_cause; // the next host learns why, from anywhere
        CPPUNIT_ASSERT_EQUAL(sc::make(sc::owner_left, 0, sc::how::lapsed),
                             next->read32(rx(regs::rx::stop_cause)));
        b.claim(*next, 43);
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms,
                             next->read32(rx(regs::rx::lease_ms)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(rx(regs::rx::rkey))); // the dead host's
        b.program(*next);
        b.start(*next);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        // The old owner, back from the dead, is a stranger now.
        ASSERT_STATUS(not_owner, a->write32(rx(regs::rx::command), regs::command::stop));
    }

    void test_requests_renew_the_lease()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        b.claim(*a, 42);
        a->write32(rx(regs::rx::lease_ms), 200);
        b.program(*a);
        b.start(*a);
        // Any request of the owner renews, reads of any register included; a stranger's
        // requests do not.
        for (int i = 0; i < 12; i++) {
            std::this_thread::sleep_for(50ms);
            a->read32(regs::scratch);
            stranger->read32(rx(regs::rx::status));
        }
        CPPUNIT_ASSERT(b.dev.registers().owner_of(0).owned);
        CPPUNIT_ASSERT(a->read32(rx(regs::rx::status)) & regs::status::running);
        // Now only the stranger talks: the lease lapses.
        const auto deadline = std::chrono::steady_clock::now() + 2s;
        while (stranger->read32(rx(regs::rx::owner)) != regs::owner_state::unowned &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(20ms);
        CPPUNIT_ASSERT_EQUAL(
            0u, stranger->read32(rx(regs::rx::status)) & regs::status::running);
    }

    void test_take_over_stops_the_previous_run()
    {
        ownership_bench b;
        auto a = b.client(), next = b.client();
        b.claim(*a, 42);
        b.program(*a);
        b.start(*a);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        ASSERT_STATUS(not_owner, b.claim(*next, 43));
        b.take_over(*next, 43);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine, next->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other, a->read32(rx(regs::rx::owner)));
        // The previous owner's run wrote into its ring: it is over.
        CPPUNIT_ASSERT_EQUAL(0u,
                             next->read32(rx(regs::rx::status)) & regs::status::running);
        CPPUNIT_ASSERT(b.silent());
        namespace sc = regs::stop_cause; // and its first owner can read why
        CPPUNIT_ASSERT_EQUAL(sc::make(sc::owner_left, 0, sc::how::taken_over),
                             a->read32(rx(regs::rx::stop_cause)));
        ASSERT_STATUS(not_owner, b.start(*a));
        ASSERT_STATUS(not_owner, a->read32(rx(regs::rx::rkey)));
        // Nor does the new owner learn the old one's keys: the descriptor was reset.
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(rx(regs::rx::rkey)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(rx(regs::rx::dest_qpn)));
        CPPUNIT_ASSERT_EQUAL(0u, next->read32(rx(regs::rx::start_psn)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), next->read64(rx(regs::rx::va_lo)));
        CPPUNIT_ASSERT_EQUAL(1024u, next->read32(rx(regs::rx::payload_bytes)));
        // The new owner programs and starts its own run.
        b.program(*next);
        b.start(*next);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
    }

    void test_release()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        b.claim(*a, 42);
        a->write32(rx(regs::rx::lease_ms), 1000);
        b.program(*a);
        b.start(*a);
        ASSERT_STATUS(not_owner, ownership_bench::release(*stranger));
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        ownership_bench::release(*a);
        CPPUNIT_ASSERT(!b.dev.registers().owner_of(0).owned);
        CPPUNIT_ASSERT_EQUAL(0u, a->read32(rx(regs::rx::status)) & regs::status::running);
        CPPUNIT_ASSERT(b.silent());
        namespace sc = regs::stop_cause;
        const uint32_t released = sc::make(sc::owner_left, 0, sc::how::released);
        CPPUNIT_ASSERT_EQUAL(released, stranger->read32(rx(regs::rx::stop_cause)));
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms,
                             stranger->read32(rx(regs::rx::lease_ms)));
        CPPUNIT_ASSERT_EQUAL(0u, stranger->read32(rx(regs::rx::rkey)));
        // Releasing a free stream changes nothing, whoever asks.
        ownership_bench::release(*stranger);
        ownership_bench::release(*a);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(released, a->read32(rx(regs::rx::stop_cause))); // a run ends once
    }

    void test_token_never_readable_and_proves_ownership()
    {
        ownership_bench b;
        auto a = b.client(), stranger = b.client();
        const uint64_t token = 0x8765432112345678ull;
        b.claim(*a, token);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a->read64(rx(regs::rx::owner_token_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), stranger->read64(rx(regs::rx::owner_token_lo)));
        // The owner, with a new socket (a new source port), proves itself by its token.
        ASSERT_STATUS(not_owner, b.claim(*stranger, token + 1));
        auto reborn = b.client();
        b.claim(*reborn, token);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::mine,
                             reborn->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::other, a->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT(b.dev.registers().owner_of(0).client ==
                       ownership_bench::seen(*reborn));
    }

    void test_malformed_claims_refused()
    {
        ownership_bench b;
        auto a = b.client();
        const uint32_t lo = rx(regs::rx::owner_token_lo);
        ASSERT_STATUS(slverr, a->write64(lo, 0)); // a token is never 0
        ASSERT_STATUS(slverr, a->write32(lo, 5)); // half a token
        ASSERT_STATUS(slverr, a->write32(rx(regs::rx::owner_token_hi), 5));
        const uint32_t fixed2[2] = { 5, 6 };
        ASSERT_STATUS(slverr, a->write(lo, fixed2, 2, true));
        const uint32_t three[3] = { 5, 6, regs::owner_command::release };
        ASSERT_STATUS(slverr, a->write(lo, three, 3));
        const uint32_t with_lease[4] = { 5, 6, regs::owner_command::take_over, 1000 };
        ASSERT_STATUS(slverr, a->write(lo, with_lease, 4));
        ASSERT_STATUS(slverr,
                      a->write32(rx(regs::rx::owner), regs::owner_command::take_over));
        ASSERT_STATUS(slverr, a->write32(rx(regs::rx::owner), 0));
        ASSERT_STATUS(slverr, a->write32(rx(regs::rx::lease_ms), 1000)); // claim first
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(rx(regs::rx::owner)));
        b.claim(*a, 1);
        ASSERT_STATUS(slverr,
                      a->write32(rx(regs::rx::lease_ms), regs::lease::min_ms - 1));
        ASSERT_STATUS(slverr,
                      a->write32(rx(regs::rx::lease_ms), regs::lease::max_ms + 1));
        a->write32(rx(regs::rx::lease_ms), regs::lease::max_ms);
        a->write32(rx(regs::rx::lease_ms), regs::lease::min_ms);
        CPPUNIT_ASSERT_EQUAL(regs::lease::min_ms, a->read32(rx(regs::rx::lease_ms)));
    }

    void test_unowned_stream_behaves_as_before()
    {
        // A host that knows nothing of ownership: any client may configure, start and
        // stop a stream nobody claimed, and START does not claim it.
        ownership_bench b;
        auto a = b.client(), other = b.client();
        b.program(*a);
        b.start(*a);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(rx(regs::rx::owner)));
        CPPUNIT_ASSERT_EQUAL(0xABCDu, other->read32(rx(regs::rx::rkey)));
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        other->write32(rx(regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT(b.silent());
    }

    void test_start_while_running_reads_busy()
    {
        ownership_bench b;
        auto a = b.client();
        b.program(*a);
        b.start(*a);
        ASSERT_STATUS(slverr, b.start(*a));
        const uint32_t status = a->read32(rx(regs::rx::status));
        CPPUNIT_ASSERT(status & regs::status::running); // the run goes on
        CPPUNIT_ASSERT(status & regs::status::error);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::busy,
                             (status & regs::status::error_mask) >>
                                 regs::status::error_shift);
        CPPUNIT_ASSERT(b.packets_within(100ms) > 0);
        // A START that succeeds clears it.
        a->write32(rx(regs::rx::command), regs::command::stop);
        b.start(*a);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, a->read32(rx(regs::rx::status)));
    }

    void test_stop_cause_says_why_each_run_ended()
    {
        // docs/register-map.md, "Why a run ended": causes 0, 1 and 2 and what leaves
        // the register alone (3 and 4: the take-over, lapse and release tests here and
        // in qa_shares_registers; 5: qa_hostile_wire's fatal NAK).
        namespace sc = regs::stop_cause;
        ownership_bench b;
        auto a = b.client(), other = b.client();
        CPPUNIT_ASSERT(a->read32(regs::id_capabilities) & regs::cap::stop_cause);
        CPPUNIT_ASSERT_EQUAL(sc::none, a->read32(rx(regs::rx::stop_cause))); // reset
        // A STOP of a stream that does not run ends no run.
        a->write32(rx(regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(sc::none, a->read32(rx(regs::rx::stop_cause)));
        b.program(*a);
        b.start(*a);
        CPPUNIT_ASSERT_EQUAL(sc::none, other->read32(rx(regs::rx::stop_cause))); // runs
        other->write32(rx(regs::rx::command), regs::command::stop); // a free stream's
        CPPUNIT_ASSERT_EQUAL(sc::command, a->read32(rx(regs::rx::stop_cause)));
        // A refused START (payload 0: error 2) leaves it; so does another STOP.
        a->write32(rx(regs::rx::payload_bytes), 0);
        ASSERT_STATUS(slverr, b.start(*a));
        a->write32(rx(regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(sc::command, a->read32(rx(regs::rx::stop_cause)));
        // A finite burst of 4 messages, sent completely: DONE, cause 1. Its START
        // cleared the STOP's cause first.
        b.program(*a);
        a->write64(rx(regs::rx::num_samples_lo), 4 * 256);
        b.start(*a);
        const auto until = std::chrono::steady_clock::now() + 2s;
        while (!(a->read32(rx(regs::rx::status)) & regs::status::done) &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(1ms);
        CPPUNIT_ASSERT_EQUAL(regs::status::done, a->read32(rx(regs::rx::status)));
        CPPUNIT_ASSERT_EQUAL(sc::done, a->read32(rx(regs::rx::stop_cause)));
        // A STOP after DONE ends no run either.
        a->write32(rx(regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(sc::done, a->read32(rx(regs::rx::stop_cause)));
        // Not writable.
        ASSERT_STATUS(slverr, a->write32(rx(regs::rx::stop_cause), sc::none));
        CPPUNIT_ASSERT_EQUAL(sc::done, a->read32(rx(regs::rx::stop_cause)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ownership);
