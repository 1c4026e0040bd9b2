/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream ownership on the emulator (docs/register-map.md, "Ownership"): several AXIoE
// clients, each its own source port, talk to one emulator; the RoCEv2 packets of a
// running stream land on a plain UDP socket, which tells whether the stream runs: an
// RX stream's WRITEs, or a TX stream's READ requests (nobody answers them, so the
// device sends them again and again while it runs).

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

uint32_t rx(uint32_t reg) { return regs::rx_reg(0, reg); }
uint32_t tx(uint32_t reg) { return regs::tx_reg(0, reg); }
uint32_t tx_emu(uint32_t reg) { return regs::emu_tx_reg(0, reg); }

// The status a register access is answered with.
axioe::status code_of(const std::function<void()>& access)
{
    try {
        access();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

std::string name(axioe::status s) { return axioe::to_string(s); }

#define ASSERT_STATUS(want, access) \
    CPPUNIT_ASSERT_EQUAL(name(axioe::status::want), name(code_of([&] { access; })))

class ownership_bench
{
public:
    ownership_bench()
        : dev(emu::emulator_config{}), sink(socket_address::parse("127.0.0.1:0"))
    {
        sink.request_receive_buffer(4u << 20);
    }

    // A client of its own: a new source port, so another identity for the device.
    std::unique_ptr<axioe::client> client()
    {
        return std::make_unique<axioe::client>(dev.control_address());
    }
    // How the device sees \p c: its socket is bound to any address, it sends from
    // loopback.
    static socket_address seen(const axioe::client& c)
    {
        return socket_address(0x7F000001, c.local_address().port());
    }

    // The ownership registers are at the same offsets in the RX and the TX block:
    // \p block is rx or tx.
    static void claim(axioe::client& c, uint64_t token, uint32_t (*block)(uint32_t) = rx)
    {
        c.write64(block(regs::rx::owner_token_lo), token);
    }
    static void
    take_over(axioe::client& c, uint64_t token, uint32_t (*block)(uint32_t) = rx)
    {
        const uint32_t w[3] = { regs::low_word(token),
                                regs::high_word(token),
                                regs::owner_command::take_over };
        c.write(block(regs::rx::owner_token_lo), w, 3);
    }
    static void release(axioe::client& c, uint32_t (*block)(uint32_t) = rx)
    {
        c.write32(block(regs::rx::owner), regs::owner_command::release);
    }

    // A continuous sc16 stream at 1 MS/s to the sink: ~240 packets a second.
    void program(axioe::client& c)
    {
        c.write32(rx(regs::rx::dest_ipv4), sink.local_address().ip());
        c.write32(rx(regs::rx::dest_udp_port), sink.local_address().port());
        c.write32(rx(regs::rx::dest_qpn), 0x123);
        c.write32(rx(regs::rx::start_psn), 0x456);
        c.write32(rx(regs::rx::rkey), 0xABCD);
        c.write64(rx(regs::rx::va_lo), 0x7f0000000000ull);
        c.write64(rx(regs::rx::ring_bytes_lo), 65536);
        c.write32(rx(regs::rx::payload_bytes), 1024);
        c.write32(rx(regs::rx::path_mtu), 1024);
        c.write32(rx(regs::rx::rate_num), 1000000);
        c.write32(rx(regs::rx::rate_den), 1);
    }
    static void start(axioe::client& c)
    {
        c.write32(rx(regs::rx::command), regs::command::start);
    }

    // A continuous sc16 TX stream whose READ requests go to the sink; nobody answers,
    // so the device requests the control page again on every timeout.
    void program_tx(axioe::client& c)
    {
        c.write32(tx(regs::tx::host_ipv4), sink.local_address().ip());
        c.write32(tx(regs::tx::host_udp_port), sink.local_address().port());
        c.write32(tx(regs::tx::host_qpn), 0x321);
        c.write32(tx(regs::tx::start_psn), 0x654);
        c.write32(tx(regs::tx::rkey), 0xDCBA);
        c.write64(tx(regs::tx::va_lo), 0x7f0000100000ull);
        c.write64(tx(regs::tx::ring_bytes_lo), 65536);
        c.write32(tx(regs::tx::ctrl_rkey), 0x1234);
        c.write64(tx(regs::tx::ctrl_va_lo), 0x7f0000200000ull);
        c.write32(tx(regs::tx::rate_num), 1000000);
        c.write32(tx_emu(regs::emu_tx::check), 1);
    }
    static void start_tx(axioe::client& c)
    {
        c.write32(tx(regs::tx::command), regs::command::start);
    }
    bool tx_owned() const { return dev.registers().tx_owner_of(0).owned; }

    // Packets the sink receives within \p window.
    size_t packets_within(std::chrono::milliseconds window)
    {
        size_t n = 0;
        std::vector<uint8_t> buf(9000);
        const auto end = std::chrono::steady_clock::now() + window;
        while (std::chrono::steady_clock::now() < end) {
            datagram d;
            d.data = buf.data();
            d.capacity = buf.size();
            n += sink.receive(d, 5ms);
        }
        return n;
    }
    // Whether the stream has stopped: once what was in flight is drained, silence.
    bool silent()
    {
        packets_within(50ms);
        return packets_within(100ms) == 0;
    }

    emu::emulator dev;
    udp_socket sink;
};

} // namespace

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
    CPPUNIT_TEST(test_tx_foreign_client_refused_stream_runs_on);
    CPPUNIT_TEST(test_tx_lease_lapse_stops_and_frees);
    CPPUNIT_TEST(test_tx_take_over_and_release);
    CPPUNIT_TEST(test_tx_and_rx_streams_owned_apart);
    CPPUNIT_TEST(test_tx_malformed_claims_refused);
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
        CPPUNIT_ASSERT_EQUAL(regs::lease::default_ms,
                             stranger->read32(rx(regs::rx::lease_ms)));
        CPPUNIT_ASSERT_EQUAL(0u, stranger->read32(rx(regs::rx::rkey)));
        // Releasing a free stream changes nothing, whoever asks.
        ownership_bench::release(*stranger);
        ownership_bench::release(*a);
        CPPUNIT_ASSERT_EQUAL(regs::owner_state::unowned, a->read32(rx(regs::rx::owner)));
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

    // ---- TX streams: the RX block's rules, in the TX block (docs/register-map.md,
    // "TX stream"): owner-only descriptor and extension, lease, take-over, release.

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

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ownership);
