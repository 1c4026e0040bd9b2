/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's register file against the register table, register by register:
// every listed register exists and reads its reset value, every other address answers
// DECERR, read-only ones refuse writes, writable ones keep what is written, owner-only
// ones are refused to strangers. And the map-1.2 behaviours: the link counters, a
// START_TIME in the past, CAP_LOSS_INJECTION, ID_MAX_BURST_WORDS; and map 1.4's TX
// burst queue block (its pushes end to end: lib/e2e/qa_tx_bursts.cc).

#include "../axioe/axioe_client.h"
#include "../regs/register_table.h"
#include "../util/udp_socket.h"
#include "device_clock.h"
#include "emulator.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;
using regs::block;

namespace {

// The status \p f answers with (okay if it does not throw).
template <typename F>
axioe::status status_of(F&& f)
{
    try {
        f();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

// How many instances of block \p b the emulator of the tests has (1 link, 2 streams, an
// RF channel per stream).
unsigned instances(block b)
{
    if (b == block::rx_destination || b == block::rx_dest_rc)
        return 2 * regs::rx_dest_per_stream;
    if (b == block::rx_share)
        return 2 * regs::max_shares;
    return b == block::rx || b == block::emulator || b == block::rf ||
                   b == block::burst_queue || b == block::rx_epoch
               ? 2
               : 1; // and one TX stream, one link
}

// Whether the device whose ID_CAPABILITIES reads \p caps has register \p r.
bool present(const regs::register_info& r, uint32_t caps) { return r.exists_with(caps); }

// Share 0's owner registers: none (share 0 is the stream owner's).
bool share0_owner(block b, unsigned i, uint32_t offset)
{
    return b == block::rx_share && i % regs::max_shares == 0 &&
           offset < regs::share::owner_end;
}

const block every_block[] = {
    block::identity,       block::clock,          block::link,     block::rx,
    block::metadata,       block::emulator,       block::rf,       block::command_queue,
    block::scene,          block::burst_queue,    block::tx,       block::tx_emulator,
    block::tx_burst_queue, block::rx_destination, block::rx_epoch, block::emu_link,
    block::ctrl,           block::rx_share,       block::rx_dest_rc
};

emu::emulator_config two_streams()
{
    emu::emulator_config c;
    c.rx_streams = 2;
    return c;
}

// Program stream 0 of \p axi for a short UC burst to \p sink.
void program(axioe::client& axi, const socket_address& sink, uint64_t samples)
{
    auto reg = [](uint32_t r) { return regs::rx_reg(0, r); };
    axi.write32(reg(regs::rx::dest_ipv4), sink.ip());
    axi.write32(reg(regs::rx::dest_udp_port), sink.port());
    axi.write32(reg(regs::rx::dest_qpn), 0x123);
    axi.write64(reg(regs::rx::ring_bytes_lo), 64 * 1024);
    axi.write32(reg(regs::rx::rate_num), 1000000);
    axi.write64(reg(regs::rx::num_samples_lo), samples);
}

uint32_t error_code(uint32_t status)
{
    return (status & regs::status::error_mask) >> regs::status::error_shift;
}

} // namespace

class qa_register_file : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_register_file);
    CPPUNIT_TEST(test_every_register_reads_its_reset_value);
    CPPUNIT_TEST(test_addresses_not_in_the_table_answer_decerr);
    CPPUNIT_TEST(test_read_only_refuse_writes_writable_keep_them);
    CPPUNIT_TEST(test_owner_only_registers_refused_to_strangers);
    CPPUNIT_TEST(test_identity_reports_capabilities_and_burst_limit);
    CPPUNIT_TEST(test_bursts_beyond_the_limit_are_bad_requests);
    CPPUNIT_TEST(test_link_counters_count_the_stream);
    CPPUNIT_TEST(test_start_time_in_the_past_is_refused);
    CPPUNIT_TEST(test_tx_burst_queue_block);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_every_register_reads_its_reset_value()
    {
        emu::emulator dev(two_streams());
        axioe::client axi(dev.control_address());
        const uint32_t caps = axi.read32(regs::id_capabilities);
        for (const regs::register_info& r : regs::register_table)
            for (unsigned i = 0; present(r, caps) && i < instances(r.where); i++) {
                if (share0_owner(r.where, i, r.offset))
                    continue;
                const uint32_t at = regs::address_of(r.where, i, r.offset);
                std::vector<uint32_t> w(r.words());
                const bool fifo =
                    r.offset == regs::emu::fault_log && r.where == block::emulator;
                axi.read(at, w.data(), w.size(), fifo);
                if (r.reset != regs::reset_kind::value)
                    continue;
                for (uint32_t k = 0; k < r.repeat; k++) {
                    const uint32_t lo = w[k * r.bits / 32];
                    const uint64_t v =
                        r.bits == 64 ? regs::join_words(lo, w[k * 2 + 1]) : lo;
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(std::string(r.name) + " of instance " +
                                                     std::to_string(i),
                                                 r.reset_value,
                                                 v);
                }
            }
    }

    void test_addresses_not_in_the_table_answer_decerr()
    {
        emu::emulator dev(two_streams());
        axioe::client axi(dev.control_address());
        const uint32_t caps = axi.read32(regs::id_capabilities);
        for (block b : every_block) {
            // Every word of every instance, and of the first instance the device lacks.
            for (unsigned i = 0; i <= instances(b); i++) {
                if (i == 1 && regs::layout_of(b).stride == 0)
                    break;
                for (uint32_t off = 0; off < regs::layout_of(b).bytes; off += 4) {
                    const uint32_t at = regs::address_of(b, i, off);
                    const regs::register_info* r = regs::covering(b, off);
                    const bool listed = i < instances(b) && r && present(*r, caps) &&
                                        !share0_owner(b, i, off);
                    const bool fifo = b == block::emulator && off == regs::emu::fault_log;
                    const axioe::status st = status_of([&] {
                        uint32_t v;
                        axi.read(at, &v, 1, fifo);
                    });
                    CPPUNIT_ASSERT_MESSAGE(std::to_string(at),
                                           (st == axioe::status::decerr) == !listed);
                }
            }
        }
        // The reserved blocks are holes too, and the burst queue of a stream it lacks.
        for (uint32_t at :
             { regs::tx_reg(1, 0), regs::bq_reg(2, 0), 0x0800u, 0xFFFFFFFCu })
            CPPUNIT_ASSERT(status_of([&] { axi.read32(at); }) == axioe::status::decerr);
    }

    void test_read_only_refuse_writes_writable_keep_them()
    {
        emu::emulator dev(two_streams());
        axioe::client axi(dev.control_address());
        const uint32_t caps = axi.read32(regs::id_capabilities);
        for (const regs::register_info& r : regs::register_table) {
            if (!present(r, caps))
                continue;
            const uint32_t at =
                regs::address_of(r.where, 1 % instances(r.where), r.offset);
            if (r.mode == regs::access::ro) {
                uint32_t before = 0;
                axi.read(at, &before, 1, true);
                CPPUNIT_ASSERT_MESSAGE(r.name, status_of([&] {
                                                   axi.write32(at, before + 1);
                                               }) == axioe::status::slverr);
                continue;
            }
            // Commands and the ownership registers have their own tests (qa_emulator,
            // qa_ownership), and so do the RF channels, which clip and round what is
            // written (qa_radio).
            if (r.mode == regs::access::wo || r.where == block::rx_share ||
                (r.where == block::rx && r.offset >= regs::rx::owner &&
                 r.offset < regs::rx::shares) ||
                (r.where == block::tx &&
                 (r.offset == regs::tx::owner || r.offset == regs::tx::lease_ms)) ||
                r.where == block::rf)
                continue;
            // 1 is valid everywhere (a signal, a probability, a table size, a port);
            // RX_RATE_LIMIT exists for the device's two streams only, TX_RATE_LIMIT
            // for its one TX stream (qa_emu_controller).
            uint32_t words = r.words();
            if (r.where == block::ctrl && r.offset == regs::ctrl::rate_limit)
                words = 2;
            if (r.where == block::ctrl && r.offset == regs::ctrl::tx_rate_limit)
                words = 1;
            for (uint32_t k = 0; k < words; k++) {
                axi.write32(at + 4 * k, 1);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name, 1u, axi.read32(at + 4 * k));
            }
        }
    }

    void test_owner_only_registers_refused_to_strangers()
    {
        emu::emulator dev(two_streams());
        axioe::client owner(dev.control_address()), stranger(dev.control_address());
        const uint32_t token[2] = { 0x1234, 0x5678 };
        owner.write(regs::rx_reg(1, regs::rx::owner_token_lo), token, 2);
        for (const regs::register_info& r : regs::register_table) {
            if (r.where != block::rx && r.where != block::emulator)
                continue;
            const uint32_t at = regs::address_of(r.where, 1, r.offset);
            const bool fifo =
                r.where == block::emulator && r.offset == regs::emu::fault_log;
            uint32_t v;
            const axioe::status st = status_of([&] { stranger.read(at, &v, 1, fifo); });
            CPPUNIT_ASSERT_MESSAGE(r.name,
                                   (st == axioe::status::not_owner) ==
                                       r.has(regs::flag::owner_only));
            CPPUNIT_ASSERT_MESSAGE(r.name, status_of([&] {
                                               owner.read(at, &v, 1, fifo);
                                           }) == axioe::status::okay);
            // Stream 0 is nobody's: everyone reads everything.
            CPPUNIT_ASSERT_MESSAGE(
                r.name,
                status_of([&] {
                    stranger.read(regs::address_of(r.where, 0, r.offset), &v, 1, fifo);
                }) == axioe::status::okay);
        }
    }

    void test_identity_reports_capabilities_and_burst_limit()
    {
        emu::emulator_config config;
        config.max_burst_words = 16;
        emu::emulator dev(config);
        axioe::client axi(dev.control_address());
        const uint32_t caps = axi.read32(regs::id_capabilities);
        // It injects loss on request, so it says so.
        CPPUNIT_ASSERT(caps & regs::cap::loss_injection);
        CPPUNIT_ASSERT(caps & regs::cap::emulator);
        CPPUNIT_ASSERT_EQUAL(16u, axi.read32(regs::id_max_burst_words));
        // ID_FORMATS: sc16 (bit 0), fc32 (bit 1), sc8 (bit 2); bits 31..3 read 0.
        CPPUNIT_ASSERT_EQUAL(0x7u, axi.read32(regs::id_formats));
        emu::emulator plain(emu::emulator_config{});
        axioe::client axi256(plain.control_address());
        CPPUNIT_ASSERT_EQUAL(uint32_t(axioe::max_burst_words),
                             axi256.read32(regs::id_max_burst_words));
        config.max_burst_words = 0;
        CPPUNIT_ASSERT_THROW(emu::emulator bad(config), std::invalid_argument);
        config.max_burst_words = 257;
        CPPUNIT_ASSERT_THROW(emu::emulator bad(config), std::invalid_argument);
    }

    void test_bursts_beyond_the_limit_are_bad_requests()
    {
        emu::emulator_config config;
        config.max_burst_words = 16;
        emu::emulator dev(config);
        axioe::client axi(dev.control_address()); // does not know the limit
        std::vector<uint32_t> w(17, 0);
        CPPUNIT_ASSERT(status_of([&] { axi.read(regs::rx_reg(0, 0), w.data(), 16); }) ==
                       axioe::status::okay);
        CPPUNIT_ASSERT(status_of([&] { axi.read(regs::rx_reg(0, 0), w.data(), 17); }) ==
                       axioe::status::bad_request);
        // A refused write executes nothing.
        w.assign(17, 7);
        CPPUNIT_ASSERT(status_of([&] {
                           axi.write(regs::rx_reg(0, regs::rx::dest_ipv4), w.data(), 17);
                       }) == axioe::status::bad_request);
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(regs::rx_reg(0, regs::rx::dest_ipv4)));
    }

    void test_link_counters_count_the_stream()
    {
        emu::emulator dev(emu::emulator_config{});
        axioe::client axi(dev.control_address());
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        host.request_receive_buffer(4u << 20);
        program(axi, host.local_address(), 20 * 256); // 20 messages of 1 KiB
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        uint64_t bytes = 0;
        size_t packets = 0;
        std::vector<uint8_t> buf(9000);
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (packets < 20 && std::chrono::steady_clock::now() < deadline) {
            datagram d;
            d.data = buf.data();
            d.capacity = buf.size();
            if (!host.receive(d, 20ms))
                continue;
            packets++;
            bytes += d.length + 28; // UDP payload + UDP and IPv4 headers
        }
        CPPUNIT_ASSERT_EQUAL(size_t(20), packets);
        // The engine counts a batch once the wire took it, which may be after the host
        // received its last packet: wait for the count, not past it.
        for (int i = 0;
             i < 100 && axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo)) < 20;
             i++)
            std::this_thread::sleep_for(10ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(20),
                             axi.read64(regs::rx_reg(0, regs::rx::packets_sent_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(20),
                             axi.read64(regs::link_reg(0, regs::link::tx_packets_lo)));
        CPPUNIT_ASSERT_EQUAL(bytes,
                             axi.read64(regs::link_reg(0, regs::link::tx_bytes_lo)));
        // Counted since reset, not per run: a second run adds to them.
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        std::this_thread::sleep_for(100ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(40),
                             axi.read64(regs::link_reg(0, regs::link::tx_packets_lo)));

        // Received: what comes back to the link's RoCE port, malformed or not, as the
        // device takes it in (the emulator reads the port while an RC stream runs).
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             axi.read64(regs::link_reg(0, regs::link::rx_packets_lo)));
        axi.write32(regs::rx_reg(0, regs::rx::transport), regs::transport_type::rc);
        axi.write64(regs::rx_reg(0, regs::rx::num_samples_lo), 0);
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
        const uint8_t junk[12] = { 1, 2, 3 };
        for (int i = 0; i < 3; i++)
            host.send_to(junk, sizeof(junk), dev.link_address());
        uint64_t received = 0;
        for (int i = 0; i < 100 && received < 3; i++) {
            std::this_thread::sleep_for(10ms);
            received = axi.read64(regs::link_reg(0, regs::link::rx_packets_lo));
        }
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), received);
        CPPUNIT_ASSERT(dev.acks().malformed() >= 3);
    }

    void test_start_time_in_the_past_is_refused()
    {
        emu::emulator dev(emu::emulator_config{});
        axioe::client axi(dev.control_address());
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        program(axi, host.local_address(), 0);
        const uint32_t start_time = regs::rx_reg(0, regs::rx::start_time_lo);
        const uint32_t status = regs::rx_reg(0, regs::rx::status);
        const uint32_t command = regs::rx_reg(0, regs::rx::command);
        // One second ago: refused with error 10, nothing sent.
        const uint64_t past = axi.read64(regs::clock_time_ns_lo) - 1000000000;
        axi.write64(start_time, past);
        CPPUNIT_ASSERT(status_of([&] { axi.write32(command, regs::command::start); }) ==
                       axioe::status::slverr);
        uint32_t st = axi.read32(status);
        CPPUNIT_ASSERT_EQUAL(0u, st & regs::status::running);
        CPPUNIT_ASSERT(st & regs::status::error);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::start_time_passed, error_code(st));
        CPPUNIT_ASSERT_EQUAL(past, axi.read64(start_time)); // as written: no run
        std::vector<uint8_t> buf(9000);
        datagram d;
        d.data = buf.data();
        d.capacity = buf.size();
        CPPUNIT_ASSERT(!host.receive(d, 50ms));
        // A bad descriptor is reported first (the order of docs/register-map.md).
        axi.write64(regs::rx_reg(0, regs::rx::ring_bytes_lo), 1000);
        CPPUNIT_ASSERT(status_of([&] { axi.write32(command, regs::command::start); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_ring, error_code(axi.read32(status)));
        axi.write64(regs::rx_reg(0, regs::rx::ring_bytes_lo), 64 * 1024);
        // 0 starts now, and a START that succeeds clears the error.
        axi.write64(start_time, 0);
        axi.write32(command, regs::command::start);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, axi.read32(status));
        // While it runs, busy comes before the time.
        CPPUNIT_ASSERT(status_of([&] { axi.write32(command, regs::command::start); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::busy, error_code(axi.read32(status)));
        axi.write32(command, regs::command::stop);
        // A time ahead still starts, and nothing leaves before it.
        const uint64_t ahead = axi.read64(regs::clock_time_ns_lo) + 200000000;
        axi.write64(start_time, ahead);
        axi.write32(command, regs::command::start);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, axi.read32(status));
        CPPUNIT_ASSERT_EQUAL(ahead, axi.read64(start_time));
        axi.write32(command, regs::command::stop);
        // Paced by its host (emu_pace=consumer, a test mode): a slower device, whose
        // timeline may lag the clock; a time the clock passed starts it at once.
        const auto pacing = pacing_registry::find(dev.control_address(), false, 0);
        CPPUNIT_ASSERT(pacing);
        pacing->gate = 1u << 30;
        pacing->on = true;
        axi.write64(start_time, axi.read64(regs::clock_time_ns_lo) - 1000000000);
        axi.write32(command, regs::command::start);
        CPPUNIT_ASSERT_EQUAL(regs::status::running, axi.read32(status));
        CPPUNIT_ASSERT(host.receive(d, 1000ms)); // and sends
        axi.write32(command, regs::command::stop);
        pacing->on = false;
    }

    void test_tx_burst_queue_block()
    {
        emu::emulator dev(emu::emulator_config{});
        axioe::client owner(dev.control_address()), stranger(dev.control_address());
        const uint32_t caps = owner.read32(regs::id_capabilities);
        CPPUNIT_ASSERT(caps & regs::cap::tx_bursts);
        CPPUNIT_ASSERT_EQUAL(regs::map_version, owner.read32(regs::id_version));
        CPPUNIT_ASSERT_EQUAL(0x00010006u, regs::map_version);
        auto tbq = [](uint32_t reg) { return regs::tbq_reg(0, reg); };
        // Reset: nothing queued, CAPACITY 16, no error; the staging registers 0.
        CPPUNIT_ASSERT_EQUAL(regs::tbq::emulator_capacity << 8,
                             owner.read32(tbq(regs::tbq::status)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), owner.read64(tbq(regs::tbq::time_lo)));
        // The staging registers keep what is written; a push leaves them so.
        const uint32_t entry[7] = { 0x11, 0x22, 0x33, 0x44, 0, 0, regs::tbq::op::start };
        CPPUNIT_ASSERT(status_of([&] { owner.write(tbq(0), entry, 7); }) ==
                       axioe::status::slverr); // the stream does not run queued
        CPPUNIT_ASSERT_EQUAL(regs::tbq::error::not_running,
                             regs::tbq::last_error(owner.read32(tbq(regs::tbq::status))));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0x0000002200000011ull),
                             owner.read64(tbq(regs::tbq::time_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0x0000004400000033ull),
                             owner.read64(tbq(regs::tbq::item_lo)));
        CPPUNIT_ASSERT_EQUAL(0u, regs::tbq::queued(owner.read32(tbq(regs::tbq::status))));
        // Neither an unknown operation nor a write to TBQ_STATUS.
        CPPUNIT_ASSERT(status_of([&] { owner.write32(tbq(regs::tbq::push), 0); }) ==
                       axioe::status::slverr);
        CPPUNIT_ASSERT(status_of([&] { owner.write32(tbq(regs::tbq::status), 0); }) ==
                       axioe::status::slverr);
        // CLEAR of an empty queue: fine, ERROR stays.
        owner.write32(tbq(regs::tbq::push), regs::tbq::op::clear);
        CPPUNIT_ASSERT_EQUAL(regs::tbq::error::not_running,
                             regs::tbq::last_error(owner.read32(tbq(regs::tbq::status))));
        // Owned: the staging registers are the owner's, reads included; TBQ_STATUS is
        // anyone's; a stranger's push is NOT_OWNER and says so in ERROR.
        const uint32_t token[2] = { 0xAB, 0xCD };
        owner.write(regs::tx_reg(0, regs::tx::owner_token_lo), token, 2);
        for (uint32_t reg :
             { regs::tbq::time_lo, regs::tbq::item_lo, regs::tbq::reserved_lo })
            CPPUNIT_ASSERT(status_of([&] { stranger.read32(tbq(reg)); }) ==
                           axioe::status::not_owner);
        CPPUNIT_ASSERT(status_of([&] { stranger.read32(tbq(regs::tbq::status)); }) ==
                       axioe::status::okay);
        CPPUNIT_ASSERT(status_of([&] { stranger.write(tbq(0), entry, 7); }) ==
                       axioe::status::not_owner);
        CPPUNIT_ASSERT_EQUAL(regs::tbq::error::not_owner,
                             regs::tbq::last_error(owner.read32(tbq(regs::tbq::status))));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0x0000002200000011ull),
                             owner.read64(tbq(regs::tbq::time_lo)));
        // Freed: back to the reset values, for the next owner.
        owner.write32(regs::tx_reg(0, regs::tx::owner), regs::owner_command::release);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), stranger.read64(tbq(regs::tbq::time_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), stranger.read64(tbq(regs::tbq::item_lo)));
        CPPUNIT_ASSERT_EQUAL(regs::tbq::emulator_capacity << 8,
                             stranger.read32(tbq(regs::tbq::status)));
        // The map 1.4 counters exist and read 0 before any run.
        for (uint32_t reg : { regs::tx::dropped_samples_lo, regs::tx::idle_ticks_lo })
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), owner.read64(regs::tx_reg(0, reg)));
        for (uint32_t reg : { regs::tx::bursts_done, regs::tx::time_errors })
            CPPUNIT_ASSERT_EQUAL(0u, owner.read32(regs::tx_reg(0, reg)));
        // With more than 8 RX streams the emulator has no TX stream, nor the capability.
        emu::emulator_config many;
        many.rx_streams = 9;
        emu::emulator rx_only(many);
        axioe::client r(rx_only.control_address());
        CPPUNIT_ASSERT_EQUAL(0u, r.read32(regs::id_capabilities) & regs::cap::tx_bursts);
        CPPUNIT_ASSERT_EQUAL(std::string("BQ_PUSH"),
                             std::string(regs::decode(regs::tbq_reg(0, regs::tbq::push),
                                                      r.read32(regs::id_capabilities),
                                                      1,
                                                      9,
                                                      9,
                                                      0)
                                             .reg->name));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_register_file);
