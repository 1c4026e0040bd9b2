/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The field packing both sides use (descriptors, counters, identity, links, epochs)
// against the register table, the burst planning that keeps 64-bit values whole, and
// the address decoding (qa_register_table checks the table against the docs).

#include "link_fields.h"
#include "register_fields.h"
#include "register_table.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace gr::rdma;
using regs::block;

namespace {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class qa_register_fields : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_register_fields);
    CPPUNIT_TEST(test_fields_cover_their_registers);
    CPPUNIT_TEST(test_descriptor_defaults_are_the_reset_values);
    CPPUNIT_TEST(test_descriptor_packs_and_unpacks);
    CPPUNIT_TEST(test_counters_unpack);
    CPPUNIT_TEST(test_identity_and_link_unpack);
    CPPUNIT_TEST(test_bursts_never_cut_a_64_bit_value);
    CPPUNIT_TEST(test_decode);
    CPPUNIT_TEST(test_decode_map_1_5);
    CPPUNIT_TEST(test_link_structs);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_fields_cover_their_registers()
    {
        // Every register of a struct's range has exactly one field: none forgotten.
        auto fields_at = [](const auto& set, const regs::register_info& r) {
            int n = 0;
            for (const auto& f : set)
                n += f.reg == &r;
            return n;
        };
        for (const regs::register_info& r : regs::register_table) {
            // RX_FIRST_MESSAGE (map 1.3) is written on its own, only to a device with
            // the burst queue: map 1.1's descriptor is the rest.
            const bool descriptor =
                r.where == block::rx && r.has(regs::flag::latched) && r.capability == 0;
            // RX_SHARE_READY (map 1.5) and RX_STOP_CAUSE (1.6) are read apart: a device
            // without shares, or a 1.5 device, answers DECERR there.
            const bool counter = r.where == block::rx && r.mode == regs::access::ro &&
                                 r.offset >= regs::rx::packets_sent_lo &&
                                 !(r.capability & (regs::cap::shares | regs::cap::stop_cause));
            const bool identity =
                r.where == block::identity && r.mode == regs::access::ro;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                r.name, descriptor ? 1 : 0, fields_at(regs::rx_descriptor_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                r.name, counter ? 1 : 0, fields_at(regs::rx_counter_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                r.name, identity ? 1 : 0, fields_at(regs::identity_fields, r));
            // Map 1.5's link registers are read apart: a 1.4 device answers DECERR.
            const bool link_control =
                r.where == block::link && (r.capability & regs::cap::multi_link);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         r.where == block::link && !link_control ? 1 : 0,
                                         fields_at(regs::link_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                r.name, link_control ? 1 : 0, fields_at(regs::link_control_fields, r));
            // A destination: what the host writes, and what it reads back.
            // DST_SHARE is read apart too (the counters' burst must not reach it), and
            // DST_PATH_NS written apart (host feedback, with CAP_RATE_CONTROL).
            const bool dest =
                r.where == block::rx_destination &&
                !(r.capability & (regs::cap::shares | regs::cap::rate_control));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         dest && r.mode == regs::access::rw ? 1 : 0,
                                         fields_at(regs::destination_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         dest && r.mode == regs::access::ro ? 1 : 0,
                                         fields_at(regs::destination_counter_fields, r));
            const bool emu_link = r.where == block::emu_link;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         emu_link && r.mode == regs::access::rw ? 1 : 0,
                                         fields_at(regs::emu_link_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         emu_link && r.mode == regs::access::ro ? 1 : 0,
                                         fields_at(regs::emu_link_counter_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                r.name, r.where == block::rf ? 1 : 0, fields_at(regs::rf_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         r.where == block::scene ? 1 : 0,
                                         fields_at(regs::scene_fields, r));
            // The TX counters: map 1.3's, and those of CAP_TX_BURSTS apart (a 1.3
            // device answers DECERR there).
            const bool tx_counter = r.where == block::tx && r.mode == regs::access::ro &&
                                    r.offset >= regs::tx::samples_played_lo;
            const bool burst_counter =
                tx_counter && (r.capability & regs::cap::tx_bursts);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         tx_counter && !burst_counter ? 1 : 0,
                                         fields_at(regs::tx_counter_fields, r));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r.name,
                                         burst_counter ? 1 : 0,
                                         fields_at(regs::tx_burst_counter_fields, r));
        }
        // The scene's defaults are its reset values, as the descriptor's are.
        for (const auto& f : regs::scene_fields) {
            uint32_t w[2] = {};
            CPPUNIT_ASSERT(
                regs::scene_fields.read_word(regs::scene_values{}, f.reg->offset, w[0]));
            if (f.reg->bits == 64)
                CPPUNIT_ASSERT(regs::scene_fields.read_word(
                    regs::scene_values{}, f.reg->offset + 4, w[1]));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(
                f.reg->name, f.reg->reset_value, regs::join_words(w[0], w[1]));
        }
        const auto desc = regs::span_of(regs::rx_descriptor_fields);
        CPPUNIT_ASSERT_EQUAL(regs::rx::dest_ipv4, desc.first);
        CPPUNIT_ASSERT_EQUAL(regs::rx::dest_mac_lo + 4, desc.second);
    }

    void test_descriptor_defaults_are_the_reset_values()
    {
        // A default rx_descriptor is what a device holds after reset, register by
        // register: the host's and the emulator's defaults come from the same place.
        constexpr uint32_t first = regs::rx::dest_ipv4;
        constexpr size_t count = (regs::rx::dest_mac_lo + 4 - first) / 4;
        uint32_t w[count];
        std::memset(w, 0xA5, sizeof(w));
        regs::rx_descriptor_fields.pack(regs::rx_descriptor{}, first, w, count);
        for (const auto& f : regs::rx_descriptor_fields) {
            const size_t i = (f.reg->offset - first) / 4;
            CPPUNIT_ASSERT_EQUAL_MESSAGE(f.reg->name, uint32_t(f.reg->reset_value), w[i]);
            if (f.reg->bits == 64)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    f.reg->name, uint32_t(f.reg->reset_value >> 32), w[i + 1]);
        }
        CPPUNIT_ASSERT_EQUAL(0xA5A5A5A5u, w[(regs::rx::source_qpn - first) / 4]);
    }

    void test_descriptor_packs_and_unpacks()
    {
        regs::rx_descriptor d;
        d.destination = regs::detail::make_address(0xC0A80102, 4791);
        d.dest_qpn = 0x123456;
        d.start_psn = 0xABCDEF;
        d.rkey = 0x11223344;
        d.va = 0x00007F0012345000ull;
        d.ring_bytes = 0x100000000ull;
        d.payload_bytes = 4096;
        d.path_mtu = 2048;
        d.notify_interval = 7;
        d.rate_num = 61440000;
        d.rate_den = 3;
        d.format = sample_format::fc32;
        d.link_mask = 3;
        d.transport = regs::transport_type::rc;
        d.start_time_ns = 0x1122334455667788ull;
        d.num_samples = 0x99;
        d.retx_window_bytes = 65536;
        d.dest_mac = { 0x02, 0x00, 0x5E, 0x10, 0x20, 0x30 };
        constexpr uint32_t first = regs::rx::dest_ipv4;
        constexpr size_t count = (regs::rx::dest_mac_lo + 4 - first) / 4;
        uint32_t w[count] = {};
        regs::rx_descriptor_fields.pack(d, first, w, count);
        auto at = [&w](uint32_t reg) { return w[(reg - first) / 4]; };
        CPPUNIT_ASSERT_EQUAL(0xC0A80102u, at(regs::rx::dest_ipv4));
        CPPUNIT_ASSERT_EQUAL(4791u, at(regs::rx::dest_udp_port));
        // 64-bit values low word first; the MAC high part first (register-map.md's
        // examples, "Word order").
        CPPUNIT_ASSERT_EQUAL(0x12345000u, at(regs::rx::va_lo));
        CPPUNIT_ASSERT_EQUAL(0x00007F00u, at(regs::rx::va_hi));
        CPPUNIT_ASSERT_EQUAL(0u, at(regs::rx::ring_bytes_lo));
        CPPUNIT_ASSERT_EQUAL(1u, at(regs::rx::ring_bytes_hi));
        CPPUNIT_ASSERT_EQUAL(0x55667788u, at(regs::rx::start_time_lo));
        CPPUNIT_ASSERT_EQUAL(0x11223344u, at(regs::rx::start_time_hi));
        CPPUNIT_ASSERT_EQUAL(0x0200u, at(regs::rx::dest_mac_hi));
        CPPUNIT_ASSERT_EQUAL(0x5E102030u, at(regs::rx::dest_mac_lo));
        CPPUNIT_ASSERT_EQUAL(regs::format::fc32, at(regs::rx::format));
        CPPUNIT_ASSERT_EQUAL(3u, at(regs::rx::rate_den));

        regs::rx_descriptor back;
        regs::rx_descriptor_fields.unpack(w, first, count, back);
        CPPUNIT_ASSERT(back.destination == d.destination);
        CPPUNIT_ASSERT_EQUAL(d.dest_qpn, back.dest_qpn);
        CPPUNIT_ASSERT_EQUAL(d.start_psn, back.start_psn);
        CPPUNIT_ASSERT_EQUAL(d.rkey, back.rkey);
        CPPUNIT_ASSERT_EQUAL(d.va, back.va);
        CPPUNIT_ASSERT_EQUAL(d.ring_bytes, back.ring_bytes);
        CPPUNIT_ASSERT_EQUAL(d.payload_bytes, back.payload_bytes);
        CPPUNIT_ASSERT_EQUAL(d.path_mtu, back.path_mtu);
        CPPUNIT_ASSERT_EQUAL(d.notify_interval, back.notify_interval);
        CPPUNIT_ASSERT_EQUAL(d.rate_num, back.rate_num);
        CPPUNIT_ASSERT_EQUAL(d.rate_den, back.rate_den);
        CPPUNIT_ASSERT(back.format == d.format);
        CPPUNIT_ASSERT_EQUAL(d.link_mask, back.link_mask);
        CPPUNIT_ASSERT_EQUAL(d.transport, back.transport);
        CPPUNIT_ASSERT_EQUAL(d.start_time_ns, back.start_time_ns);
        CPPUNIT_ASSERT_EQUAL(d.num_samples, back.num_samples);
        CPPUNIT_ASSERT_EQUAL(d.retx_window_bytes, back.retx_window_bytes);
        CPPUNIT_ASSERT(back.dest_mac == d.dest_mac);

        // One word at a time (how a device answers reads) agrees with the burst.
        for (uint32_t reg = first; reg < first + 4 * count; reg += 4) {
            uint32_t v = 0;
            if (reg == regs::rx::source_qpn) {
                CPPUNIT_ASSERT(!regs::rx_descriptor_fields.read_word(d, reg, v));
                continue;
            }
            CPPUNIT_ASSERT(regs::rx_descriptor_fields.read_word(d, reg, v));
            CPPUNIT_ASSERT_EQUAL(at(reg), v);
        }
        // A range that cuts a 64-bit value in two is a programming error.
        CPPUNIT_ASSERT_THROW(regs::rx_descriptor_fields.pack(d, regs::rx::va_hi, w, 2),
                             std::logic_error);
    }

    void test_counters_unpack()
    {
        constexpr uint32_t first = regs::rx::packets_sent_lo;
        constexpr size_t count = (regs::rx::messages_delayed_hi + 4 - first) / 4;
        uint32_t w[count];
        for (size_t i = 0; i < count; i++)
            w[i] = 0x100 + uint32_t(i);
        regs::rx_counters c;
        regs::rx_counter_fields.unpack(w, first, count, c);
        auto word = [&w](uint32_t reg) { return uint64_t(w[(reg - first) / 4]); };
        CPPUNIT_ASSERT_EQUAL(word(regs::rx::packets_sent_lo) |
                                 word(regs::rx::packets_sent_hi) << 32,
                             c.packets_sent);
        CPPUNIT_ASSERT_EQUAL(word(regs::rx::messages_delayed_lo) |
                                 word(regs::rx::messages_delayed_hi) << 32,
                             c.messages_delayed);
        CPPUNIT_ASSERT_EQUAL(word(regs::rx::zero_substituted_lo) |
                                 word(regs::rx::zero_substituted_hi) << 32,
                             c.zero_substituted);
        // The NAK and retransmit counters are 32-bit registers.
        CPPUNIT_ASSERT_EQUAL(word(regs::rx::naks_received), c.naks_received);
        CPPUNIT_ASSERT_EQUAL(word(regs::rx::retransmits), c.retransmits);
        c.retransmits = 0x500000007ull; // wraps in its register
        uint32_t v = 0;
        CPPUNIT_ASSERT(regs::rx_counter_fields.read_word(c, regs::rx::retransmits, v));
        CPPUNIT_ASSERT_EQUAL(7u, v);
    }

    void test_identity_and_link_unpack()
    {
        uint32_t id[12] = {
            regs::magic_value, regs::map_version, 0x1FF, 1,     4, 0, 4096, 3,
            0x89ABCDEF,        0x01234567,        16,    0xFFFF
        };
        regs::identity_values v;
        regs::identity_fields.unpack(id, 0, 12, v);
        CPPUNIT_ASSERT_EQUAL(0x0123456789ABCDEFull,
                             static_cast<unsigned long long>(v.serial));
        CPPUNIT_ASSERT_EQUAL(16u, v.max_burst_words);
        CPPUNIT_ASSERT_EQUAL(4u, v.num_rx_streams);

        const uint32_t link[14] = { 0x0A000001, 0x0200, 0x5E102030, 0xC000, 9000, 1, 1,
                                    4791,       5,      0,          700,    0,    2, 0 };
        regs::link_values l;
        regs::link_fields.unpack(link, 0, 14, l);
        const std::array<uint8_t, 6> mac = { 0x02, 0x00, 0x5E, 0x10, 0x20, 0x30 };
        CPPUNIT_ASSERT(mac == l.mac);
        CPPUNIT_ASSERT_EQUAL(uint16_t(4791), l.roce_port);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), l.tx_packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(700), l.tx_bytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), l.rx_packets);
    }

    void test_bursts_never_cut_a_64_bit_value()
    {
        using regs::plan_bursts;
        // The counters in bursts of at most 3 words: every 64-bit counter whole.
        const auto c = plan_bursts(block::rx,
                                   regs::rx::packets_sent_lo,
                                   regs::rx::messages_delayed_hi + 4,
                                   3,
                                   false);
        uint32_t next = regs::rx::packets_sent_lo;
        for (const regs::burst& b : c) {
            CPPUNIT_ASSERT_EQUAL(next, b.offset);
            CPPUNIT_ASSERT(b.words >= 1 && b.words <= 3);
            const regs::register_info* last =
                regs::covering(block::rx, b.offset + 4 * (b.words - 1));
            CPPUNIT_ASSERT_EQUAL(b.offset + 4 * b.words, last->end());
            next = b.offset + 4 * b.words;
        }
        CPPUNIT_ASSERT_EQUAL(regs::rx::messages_delayed_hi + 4, next);
        // The descriptor around the read-only RX_SOURCE_QPN: two bursts, or more.
        const auto d = plan_bursts(
            block::rx, regs::rx::dest_ipv4, regs::rx::dest_mac_lo + 4, 256, true);
        CPPUNIT_ASSERT_EQUAL(size_t(2), d.size());
        CPPUNIT_ASSERT_EQUAL(regs::rx::dest_ipv4, d[0].offset);
        CPPUNIT_ASSERT_EQUAL((regs::rx::source_qpn - regs::rx::dest_ipv4) / 4,
                             d[0].words);
        CPPUNIT_ASSERT_EQUAL(regs::rx::start_time_lo, d[1].offset);
        CPPUNIT_ASSERT_EQUAL((regs::rx::dest_mac_lo + 4 - regs::rx::start_time_lo) / 4,
                             d[1].words);
        const auto d16 = plan_bursts(
            block::rx, regs::rx::dest_ipv4, regs::rx::dest_mac_lo + 4, 16, true);
        CPPUNIT_ASSERT_EQUAL(size_t(3), d16.size());
        // 0x08..0x44 is 16 words: RX_TRANSPORT goes alone, after RX_LINK_MASK.
        CPPUNIT_ASSERT_EQUAL(16u, d16[0].words);
        CPPUNIT_ASSERT_EQUAL(regs::rx::transport, d16[1].offset);
        // The fault table may be cut between its 32-bit registers.
        const auto t = plan_bursts(block::emulator,
                                   regs::emu::fault_table,
                                   regs::emu::fault_table + 96,
                                   16,
                                   true);
        CPPUNIT_ASSERT_EQUAL(size_t(2), t.size());
        CPPUNIT_ASSERT_EQUAL(16u, t[0].words);
        CPPUNIT_ASSERT_EQUAL(8u, t[1].words);
        // A device that cannot take 2 words cannot give a 64-bit value at one instant.
        try {
            plan_bursts(block::clock, 0, 8, 1, false);
            CPPUNIT_FAIL("a 64-bit register split over bursts");
        } catch (const regs::burst_limit_error& e) {
            CPPUNIT_ASSERT(contains(e.what(), "CLOCK_TIME_NS"));
            CPPUNIT_ASSERT(contains(e.what(), "at most 1 word"));
        }
        CPPUNIT_ASSERT_THROW(
            plan_bursts(block::rx, regs::rx::va_hi, regs::rx::rkey + 16, 8, true),
            std::invalid_argument);
    }

    void test_decode()
    {
        const uint32_t all =
            regs::cap::ownership | regs::cap::metadata | regs::cap::emulator;
        auto reg_at = [](uint32_t address, uint32_t caps, unsigned streams) {
            const regs::decoded_address d = regs::decode(address, caps, 1, streams);
            return d.reg ? std::string(d.reg->name) : std::string("-");
        };
        CPPUNIT_ASSERT_EQUAL(std::string("RX_DEST_QPN"), reg_at(0x2010, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0x2110, all, 1)); // stream 1
        CPPUNIT_ASSERT_EQUAL(std::string("RX_DEST_QPN"), reg_at(0x2110, all, 2));
        CPPUNIT_ASSERT_EQUAL(1u, regs::decode(0x2110, all, 1, 2).index);
        CPPUNIT_ASSERT_EQUAL(std::string("RX_OWNER"), reg_at(0x2078, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0x2078, 0, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("RX_VA"), reg_at(0x2020, 0, 1)); // high word
        CPPUNIT_ASSERT_EQUAL(std::string("LINK_RX_PACKETS"), reg_at(0x1034, 0, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0x1038, 0, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("CLOCK_TIME_NS"), reg_at(0x0104, 0, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0x0800, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("EMU_FAULT_LOG"), reg_at(0xF0A4, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("EMU_FAULT_TABLE"), reg_at(0xF0A0, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0xF02C, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0xF000, regs::cap::metadata, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("MD_SOURCE_UDP_PORT"), reg_at(0x5020, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), reg_at(0x5024, all, 1));

        // Map 1.3: each block behind its capability, RF channels as many as reported.
        const uint32_t radio =
            all | regs::cap::rf | regs::cap::time_set | regs::cap::command_queue;
        auto radio_at = [](uint32_t address, uint32_t caps, unsigned channels) {
            const regs::decoded_address d = regs::decode(address, caps, 1, 2, channels);
            return d.reg ? std::string(d.reg->name) : std::string("-");
        };
        CPPUNIT_ASSERT_EQUAL(std::string("RF_GAIN"), radio_at(0x6124, radio, 2));
        CPPUNIT_ASSERT_EQUAL(1u, regs::decode(0x6124, radio, 1, 2, 2).index);
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x6124, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x6024, all, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("RF_FREQ"), radio_at(0x6004, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x6054, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("CLOCK_LAST_PPS"), radio_at(0x011C, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x011C, all, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("CMD_PUSH"), radio_at(0x4014, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x4024, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x4100, radio, 1)); // burst queue
        const uint32_t queued = radio | regs::cap::burst_queue;
        CPPUNIT_ASSERT_EQUAL(std::string("BQ_PUSH"), radio_at(0x4138, queued, 1));
        CPPUNIT_ASSERT_EQUAL(1u, regs::decode(0x4138, queued, 1, 2, 1).index);
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x4140, queued, 1)); // stream 2
        CPPUNIT_ASSERT_EQUAL(std::string("RX_FIRST_MESSAGE"),
                             radio_at(0x20DC, queued, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0x20DC, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("EMU_SCENE_AMPLITUDE_7"),
                             radio_at(0xE088, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"),
                             radio_at(0xE088, radio & ~regs::cap::emulator, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), radio_at(0xE00C, radio, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("ID_NUM_RF_CHANNELS"), radio_at(0x0030, 0, 1));

        // Map 1.4: the TX burst queue of TX stream t at 0x4200 + 0x20 t, where the RX
        // queues of streams 8.. would be; the counters 0xE0..0xF4 behind CAP_TX_BURSTS.
        const uint32_t tx = queued | regs::cap::tx;
        const uint32_t bursts = tx | regs::cap::tx_bursts;
        auto tx_at = [](uint32_t address, uint32_t caps, unsigned rx, unsigned txs) {
            const regs::decoded_address d = regs::decode(address, caps, 1, rx, 0, txs);
            return d.reg ? std::string(d.reg->name) : std::string("-");
        };
        CPPUNIT_ASSERT_EQUAL(std::string("TBQ_PUSH"), tx_at(0x4218, bursts, 8, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("TBQ_STATUS"), tx_at(0x423C, bursts, 8, 2));
        CPPUNIT_ASSERT_EQUAL(1u, regs::decode(0x423C, bursts, 1, 8, 0, 2).index);
        CPPUNIT_ASSERT_EQUAL(std::string("-"), tx_at(0x423C, bursts, 8, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), tx_at(0x4218, tx, 8, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("TBQ_RESERVED"), tx_at(0x4214, bursts, 8, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("BQ_PUSH"), tx_at(0x4118, bursts, 8, 1));
        // Without TX streams the RX queues of streams 8.. are there.
        CPPUNIT_ASSERT_EQUAL(std::string("BQ_PUSH"), tx_at(0x4218, queued, 9, 0));
        CPPUNIT_ASSERT_EQUAL(std::string("TX_TIME_ERRORS"), tx_at(0x30F4, bursts, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("TX_DROPPED_SAMPLES"),
                             tx_at(0x30E4, bursts, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), tx_at(0x30E0, tx, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), tx_at(0x30F8, bursts, 1, 1));
    }

    void test_decode_map_1_5()
    {
        // Destination d of stream s is instance 8 s + d at 0x7000 + 0x200 s + 0x40 d;
        // the epochs of stream s at 0xB000 + 0x100 s; emulated link n at 0xE400 + 0x40 n.
        const uint32_t ml = regs::cap::multi_link | regs::cap::emulator;
        auto at = [](uint32_t address, uint32_t caps, unsigned links, unsigned rx) {
            const regs::decoded_address d = regs::decode(address, caps, links, rx);
            return d.reg ? std::string(d.reg->name) : std::string("-");
        };
        CPPUNIT_ASSERT_EQUAL(std::string("DST_QPN"), at(0x7248, ml, 1, 2));
        CPPUNIT_ASSERT_EQUAL(9u, regs::decode(0x7248, ml, 1, 2).index); // s 1, d 1
        CPPUNIT_ASSERT_EQUAL(0x08u, regs::decode(0x7248, ml, 1, 2).offset);
        CPPUNIT_ASSERT_EQUAL(std::string("DST_STATE"), at(0x73F8, ml, 1, 2)); // s 1, d 7
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x7400, ml, 1, 2));         // stream 2
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x702C, ml, 1, 1));         // a hole
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x7008, regs::cap::emulator, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("EPOCH_WEIGHTS_3"), at(0xB18C, ml, 1, 2));
        CPPUNIT_ASSERT_EQUAL(1u, regs::decode(0xB18C, ml, 1, 2).index);
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0xB090, ml, 1, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("EMU_LINK_FRAMES_PASSED"), at(0xE47C, ml, 2, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0xE47C, ml, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"),
                             at(0xE400, regs::cap::multi_link, 1, 1)); // no emulator
        CPPUNIT_ASSERT_EQUAL(std::string("LINK_CAPACITY"), at(0x1144, ml, 2, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x1038, regs::cap::emulator, 1, 1));
        CPPUNIT_ASSERT_EQUAL(0x7248u, regs::rx_dest_reg(1, 1, regs::dst::qpn));
        CPPUNIT_ASSERT_EQUAL(0xB18Cu,
                             regs::epoch_entry_reg(1, 3, regs::epoch::weights + 12));
        // Several hosts: share h of stream s is instance 8 s + h at 0x9000 + 0x100 s +
        // 0x20 h; share 0 has no owner registers; nothing without CAP_SHARES.
        const uint32_t sh = ml | regs::cap::shares;
        CPPUNIT_ASSERT_EQUAL(std::string("SHARE_OWNER"), at(0x9128, sh, 1, 2));
        CPPUNIT_ASSERT_EQUAL(9u, regs::decode(0x9128, sh, 1, 2).index); // s 1, h 1
        CPPUNIT_ASSERT_EQUAL(0x9128u, regs::rx_share_reg(1, 1, regs::share::owner));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x9008, sh, 1, 2)); // share 0's owner
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x9000, sh, 1, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("SHARE_SAMPLES_EMITTED"), at(0x9010, sh, 1, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("SHARE_START_TIME"), at(0x90FC, sh, 1, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x9200, sh, 1, 2)); // stream 2
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x9128, ml, 1, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("RX_SHARES"), at(0x20E0, sh, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("RX_SHARE_READY"), at(0x21E8, sh, 1, 2));
        CPPUNIT_ASSERT_EQUAL(std::string("-"), at(0x20E0, ml, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("DST_SHARE"), at(0x702C, sh, 1, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("unknown error"),
                             std::string(regs::describe_error(15)));
        CPPUNIT_ASSERT(
            std::string(regs::describe_error(regs::error_code::share_not_ready))
                .find("RX_SHARE_READY") != std::string::npos);
    }

    void test_link_structs()
    {
        // A default destination and emulated link are what a device holds after reset.
        auto reset_of = [](const auto& set, const auto& values) {
            for (const auto& f : set) {
                uint32_t w[2] = {};
                CPPUNIT_ASSERT(set.read_word(values, f.reg->offset, w[0]));
                if (f.reg->bits == 64)
                    CPPUNIT_ASSERT(set.read_word(values, f.reg->offset + 4, w[1]));
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    f.reg->name, f.reg->reset_value, regs::join_words(w[0], w[1]));
            }
        };
        reset_of(regs::destination_fields, regs::destination_values{});
        reset_of(regs::emu_link_fields, regs::emu_link_values{});
        reset_of(regs::link_control_fields, regs::link_control_values{});
        // An epoch entry's words, and back: weights of 2i in the low half of word i.
        regs::epoch_values e;
        e.first = 0x0000000500000010ull;
        e.number = 7;
        e.cause = regs::epoch::cause_code::host_down;
        e.link = 1;
        e.weights = { 3, 0, 1, 0, 0, 0, 0, 65535 };
        uint32_t w[regs::epoch::entry_words] = {};
        e.to_words(w);
        CPPUNIT_ASSERT_EQUAL(0x10u, w[0]);
        CPPUNIT_ASSERT_EQUAL(5u, w[1]);
        CPPUNIT_ASSERT_EQUAL(0x0102u, w[3]);
        CPPUNIT_ASSERT_EQUAL(3u, w[4]);
        CPPUNIT_ASSERT_EQUAL(0xFFFF0000u, w[7]);
        const regs::epoch_values back = regs::epoch_values::from_words(w);
        CPPUNIT_ASSERT_EQUAL(e.first, back.first);
        CPPUNIT_ASSERT_EQUAL(e.number, back.number);
        CPPUNIT_ASSERT_EQUAL(e.cause, back.cause);
        CPPUNIT_ASSERT_EQUAL(e.link, back.link);
        CPPUNIT_ASSERT(e.weights == back.weights);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_register_fields);
