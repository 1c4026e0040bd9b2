/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's controller against devices that take short AXIoE bursts
// (ID_MAX_BURST_WORDS): it splits what may be split, never what must happen at one
// instant, and says so when a device cannot serve it. And the descriptor it programs,
// register by register, as the emulator unpacks it.

#include "../device/device_controller.h"
#include "../emu/emulator.h"
#include "qa_errors.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

using namespace gr::rdma;
using namespace gr::rdma::qa_errors;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<emu::emulator> device_taking(size_t words)
{
    emu::emulator_config c;
    c.max_burst_words = words;
    return std::make_unique<emu::emulator>(c);
}

std::string remote(const emu::emulator& dev, const std::string& more = "")
{
    return "type=remote,addr=" + dev.control_address().to_string() +
           ",signal=ramp,hugepages=off" + (more.empty() ? "" : "," + more);
}

struct ramp_result {
    uint64_t items = 0;
    uint64_t mismatches = 0;
    bool end_of_stream = false;
};

// Consume a finite burst, checking every item against the ramp.
ramp_result consume_ramp(rx_stream& s)
{
    ramp_result r;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!r.end_of_stream && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        const auto* p = static_cast<const uint8_t*>(c.data);
        for (size_t i = 0; i < c.items; i++) {
            uint8_t expect[4];
            ramp_item(sample_format::sc16, c.first_item + i, expect);
            r.mismatches += std::memcmp(expect, p + 4 * i, 4) != 0;
        }
        r.items += c.items;
        s.release(c.items);
        r.end_of_stream = c.end_of_stream;
    }
    return r;
}

} // namespace

class qa_device_controller : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device_controller);
    CPPUNIT_TEST(test_identify_adopts_the_device_burst_limit);
    CPPUNIT_TEST(test_stream_is_bit_exact_with_16_word_bursts);
    CPPUNIT_TEST(test_too_short_a_limit_is_named);
    CPPUNIT_TEST(test_descriptor_arrives_register_by_register);
    CPPUNIT_TEST(test_rate_is_read_back);
    CPPUNIT_TEST(test_scene_is_written_whole);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_identify_adopts_the_device_burst_limit()
    {
        const auto dev16 = device_taking(16);
        device_controller c(dev16->control_address());
        CPPUNIT_ASSERT_EQUAL(size_t(axioe::max_burst_words),
                             c.client().max_burst_words());
        const device_info info = c.identify();
        CPPUNIT_ASSERT_EQUAL(16u, info.max_burst_words);
        CPPUNIT_ASSERT_EQUAL(size_t(16), c.client().max_burst_words());
        CPPUNIT_ASSERT_EQUAL(regs::magic_value, info.magic);
        CPPUNIT_ASSERT_EQUAL(1u, info.num_rx_streams);
        CPPUNIT_ASSERT(info.has(regs::cap::loss_injection));
        // A host that asked for less keeps its own limit.
        axioe::client_options eight;
        eight.max_burst_words = 8;
        device_controller c8(dev16->control_address(), eight);
        c8.identify();
        CPPUNIT_ASSERT_EQUAL(size_t(8), c8.client().max_burst_words());
        const auto dev256 = device_taking(256);
        device_controller c256(dev256->control_address());
        CPPUNIT_ASSERT_EQUAL(256u, c256.identify().max_burst_words);
    }

    void test_stream_is_bit_exact_with_16_word_bursts()
    {
        // The descriptor (22 words), the counters (22 words), the identity (11 words)
        // and the fault log go in bursts of 16 or fewer; 64-bit values, the claim and
        // the metadata block in one burst each.
        const auto dev = device_taking(16);
        rx_stream probe(remote(*dev), "sc16", 5e6, 0);
        const uint64_t items = 2 * probe.ring_items() + 4321; // wraps twice
        rx_stream s(remote(*dev, "loss=0"), "sc16", 5e6, items);
        s.start();
        const ramp_result r = consume_ramp(s);
        CPPUNIT_ASSERT(r.end_of_stream);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost());
        CPPUNIT_ASSERT_EQUAL(items, a.delivered);
        const auto counters = s.read_counters();
        CPPUNIT_ASSERT_EQUAL(items, counters.at("device.samples_emitted"));
        CPPUNIT_ASSERT(counters.at("metadata.packets") > 0); // its 4-word burst went
        s.stop();
    }

    void test_too_short_a_limit_is_named()
    {
        // 1 word: no 64-bit value can be read at one instant.
        const auto dev1 = device_taking(1);
        device_controller c1(dev1->control_address());
        const std::string one = error_of<std::runtime_error>([&] { c1.identify(); });
        CPPUNIT_ASSERT_MESSAGE(one,
                               contains(one,
                                        "takes at most 1 word(s) per AXIoE "
                                        "burst (ID_MAX_BURST_WORDS)"));
        // 2 words: a claim goes, a take-over claim (3 words) does not.
        const auto dev2 = device_taking(2);
        device_controller c2(dev2->control_address());
        c2.identify();
        c2.claim_rx(0, random_owner_token(), 5000, false);
        const std::string three = error_of<axioe::burst_limit_error>(
            [&] { c2.claim_rx(0, random_owner_token(), 5000, true); });
        CPPUNIT_ASSERT_MESSAGE(three, contains(three, "(3 words)"));
        CPPUNIT_ASSERT_MESSAGE(three, contains(three, "at most 2 words per burst"));
        // 3 words: the metadata block's 4-word burst cannot go, and the stream says
        // why; without metadata it streams.
        const auto dev3 = device_taking(3);
        const std::string md = error_of<std::exception>([&] {
            rx_stream s(remote(*dev3), "sc16", 1e6, 10000);
            s.start();
        });
        CPPUNIT_ASSERT_MESSAGE(md, contains(md, "ID_MAX_BURST_WORDS"));
        CPPUNIT_ASSERT_MESSAGE(md, contains(md, "(4 words)"));
        rx_stream s(remote(*dev3, "metadata=0"), "sc16", 1e6, 10000);
        s.start();
        const ramp_result r = consume_ramp(s);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10000), r.items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        s.stop();
    }

    void test_descriptor_arrives_register_by_register()
    {
        // Every field of the host's descriptor reaches the emulator's, through bursts of
        // at most 3 words (the emulator unpacks with the same field list: a field the
        // host forgot to send would read its reset value here).
        const auto dev = device_taking(3);
        device_controller c(dev->control_address());
        c.identify();
        rx_setup s;
        s.destination = socket_address::parse("192.0.2.7:4791");
        s.dest_qpn = 0x12345;
        s.start_psn = 0xABCDE;
        s.rkey = 0xCAFE;
        s.va = 0x00007F0012345000ull;
        s.ring_bytes = 0x300000000ull;
        s.payload_bytes = 2048;
        s.path_mtu = 2048;
        s.notify_interval = 5;
        s.rate_num = 61440000;
        s.rate_den = 3;
        s.format = sample_format::fc32;
        s.link_mask = 1;
        s.transport = regs::transport_type::rc;
        s.start_time_ns = 0x1122334455667788ull;
        s.num_samples = 1234567;
        s.retx_window_bytes = 65536;
        s.dest_mac = { 0x02, 0x00, 0x5E, 0x10, 0x20, 0x30 };
        c.configure_rx(0, s);
        const emu::rx_descriptor d = dev->registers().rx_descriptor_of(0);
        CPPUNIT_ASSERT(d.destination == s.destination);
        CPPUNIT_ASSERT_EQUAL(s.dest_qpn, d.dest_qpn);
        CPPUNIT_ASSERT_EQUAL(s.start_psn, d.start_psn);
        CPPUNIT_ASSERT_EQUAL(s.rkey, d.rkey);
        CPPUNIT_ASSERT_EQUAL(s.va, d.va);
        CPPUNIT_ASSERT_EQUAL(s.ring_bytes, d.ring_bytes);
        CPPUNIT_ASSERT_EQUAL(s.payload_bytes, d.payload_bytes);
        CPPUNIT_ASSERT_EQUAL(s.path_mtu, d.path_mtu);
        CPPUNIT_ASSERT_EQUAL(s.notify_interval, d.notify_interval);
        CPPUNIT_ASSERT_EQUAL(s.rate_num, d.rate_num);
        CPPUNIT_ASSERT_EQUAL(s.rate_den, d.rate_den);
        CPPUNIT_ASSERT(d.format == s.format && d.signal.format == s.format);
        CPPUNIT_ASSERT_EQUAL(s.link_mask, d.link_mask);
        CPPUNIT_ASSERT_EQUAL(s.transport, d.transport);
        CPPUNIT_ASSERT_EQUAL(s.start_time_ns, d.start_time_ns);
        CPPUNIT_ASSERT_EQUAL(s.num_samples, d.num_samples);
        CPPUNIT_ASSERT_EQUAL(s.retx_window_bytes, d.retx_window_bytes);
        CPPUNIT_ASSERT(d.dest_mac == s.dest_mac);
        // The signal and the impairments likewise.
        test_signal_config sig;
        sig.kind = test_signal_kind::tone;
        sig.freq_hz = -12345;
        sig.amplitude = 0.25f;
        sig.seed = 99;
        c.configure_signal(0, sig);
        emulated_impairments im;
        im.seed = 7;
        im.loss_ppm = 100;
        im.loss_burst = 3;
        im.duplicate_ppm = 200;
        im.corrupt_ppm = 300;
        im.delay_ppm = 400;
        im.delay_messages = 5;
        im.faults = { { 3, regs::fault::drop }, { 1ull << 33, regs::fault::bad_va } };
        c.configure_impairments(0, im);
        const emu::rx_descriptor e = dev->registers().rx_descriptor_of(0);
        CPPUNIT_ASSERT(e.signal.kind == sig.kind);
        CPPUNIT_ASSERT_EQUAL(sig.freq_hz, e.signal.freq_hz);
        CPPUNIT_ASSERT_EQUAL(sig.amplitude, e.signal.amplitude);
        CPPUNIT_ASSERT_EQUAL(sig.seed, e.signal.seed);
        CPPUNIT_ASSERT_EQUAL(im.seed, e.impairments.seed);
        CPPUNIT_ASSERT_EQUAL(im.loss_ppm, e.impairments.loss_ppm);
        CPPUNIT_ASSERT_EQUAL(im.loss_burst, e.impairments.loss_burst);
        CPPUNIT_ASSERT_EQUAL(im.duplicate_ppm, e.impairments.duplicate_ppm);
        CPPUNIT_ASSERT_EQUAL(im.corrupt_ppm, e.impairments.corrupt_ppm);
        CPPUNIT_ASSERT_EQUAL(im.delay_ppm, e.impairments.delay_ppm);
        CPPUNIT_ASSERT_EQUAL(im.delay_messages, e.impairments.delay_messages);
        CPPUNIT_ASSERT_EQUAL(2u, e.impairments.table_size);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1) << 33, e.impairments.table[1].message);
        CPPUNIT_ASSERT_EQUAL(regs::fault::bad_va, e.impairments.table[1].kind);
    }

    void test_rate_is_read_back()
    {
        // A device with a master clock makes another rate than asked (docs/radio.md,
        // "Sample rate"): configure_rx() returns the one it will use.
        emu::emulator_config config;
        config.master_clock_hz = 30720000;
        emu::emulator dev(config);
        device_controller c(dev.control_address());
        c.identify();
        rx_setup s;
        s.rate_num = 1000000;
        s.rate_den = 1;
        const rational r = c.configure_rx(0, s); // 30.72 MHz / 31
        CPPUNIT_ASSERT_EQUAL(30720000u, r.num);
        CPPUNIT_ASSERT_EQUAL(31u, r.den);
        s.rate_num = 30720000;
        s.rate_den = 4;
        const rational exact = c.configure_rx(0, s);
        CPPUNIT_ASSERT_EQUAL(30720000u, exact.num);
        CPPUNIT_ASSERT_EQUAL(4u, exact.den);
        // Without a master clock, what was asked.
        emu::emulator plain(emu::emulator_config{});
        device_controller p(plain.control_address());
        p.identify();
        s.rate_num = 1000003;
        s.rate_den = 7;
        const rational asked = p.configure_rx(0, s);
        CPPUNIT_ASSERT_EQUAL(1000003u, asked.num);
        CPPUNIT_ASSERT_EQUAL(7u, asked.den);
    }

    void test_scene_is_written_whole()
    {
        // scene= and scene_noise= as device args give them: every tone register is
        // written, so a tone the device had before does not leak into the run.
        emu::emulator dev(emu::emulator_config{});
        axioe::client axi(dev.control_address());
        axi.write32(regs::scene::tones, 8);
        axi.write64(regs::scene_tone_reg(5, regs::scene::tone_freq_lo), 123456);
        device_controller c(dev.control_address());
        c.identify();
        const test_signal_config sig = parse_test_signal_args(
            "signal=scene,scene=101e6:0.5:99.9995e6:0.125,scene_noise=0.01",
            sample_format::fc32,
            1e6);
        CPPUNIT_ASSERT(sig.scene_given);
        c.configure_signal(0, sig);
        auto level = [&axi](uint32_t at) {
            const uint32_t bits = axi.read32(at);
            float f;
            std::memcpy(&f, &bits, 4);
            return f;
        };
        CPPUNIT_ASSERT_EQUAL(2u, axi.read32(regs::scene::tones));
        CPPUNIT_ASSERT_EQUAL(0.01f, level(regs::scene::noise));
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(101000000000ull),
            axi.read64(regs::scene_tone_reg(0, regs::scene::tone_freq_lo)));
        CPPUNIT_ASSERT_EQUAL(0.5f,
                             level(regs::scene_tone_reg(0, regs::scene::tone_amplitude)));
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(99999500000ull),
            axi.read64(regs::scene_tone_reg(1, regs::scene::tone_freq_lo)));
        CPPUNIT_ASSERT_EQUAL(0.125f,
                             level(regs::scene_tone_reg(1, regs::scene::tone_amplitude)));
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(0), axi.read64(regs::scene_tone_reg(5, regs::scene::tone_freq_lo)));
        CPPUNIT_ASSERT_EQUAL(regs::signal_scene,
                             axi.read32(regs::emu_reg(0, regs::emu::signal)));
        // Without scene= or scene_noise= the device keeps its own scene.
        axi.write32(regs::scene::tones, 3);
        c.configure_signal(
            0, parse_test_signal_args("signal=scene", sample_format::fc32, 1e6));
        CPPUNIT_ASSERT_EQUAL(3u, axi.read32(regs::scene::tones));
        // Bad scenes are named.
        for (const char* bad :
             { "scene=1e6", "scene=1e6:-1", "scene=1e6:0.5:", "scene=" }) {
            const std::string message = error_of<std::invalid_argument>([&] {
                parse_test_signal_args(
                    std::string("signal=scene,") + bad, sample_format::fc32, 1e6);
            });
            CPPUNIT_ASSERT_MESSAGE(message,
                                   contains(message, std::string(bad) + " is invalid"));
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_controller);
