/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's controller: the identity it reads, and the descriptor it programs,
// register by register, as the emulator unpacks it.

#include "../emu/emulator.h"
#include "device_controller.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <memory>

using namespace gr::rdma;

class qa_device_controller : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device_controller);
    CPPUNIT_TEST(test_identify_reads_the_identity_block);
    CPPUNIT_TEST(test_descriptor_arrives_register_by_register);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_identify_reads_the_identity_block()
    {
        emu::emulator dev(emu::emulator_config{});
        device_controller c(dev.control_address());
        const device_info info = c.identify();
        CPPUNIT_ASSERT_EQUAL(regs::magic_value, info.magic);
        CPPUNIT_ASSERT_EQUAL(regs::map_version, info.version);
        CPPUNIT_ASSERT_EQUAL(1u, info.num_links);
        CPPUNIT_ASSERT_EQUAL(1u, info.num_rx_streams);
        CPPUNIT_ASSERT_EQUAL(uint64_t(emu::emulator_config{}.serial), info.serial);
        CPPUNIT_ASSERT_EQUAL(256u, info.max_burst_words);
        CPPUNIT_ASSERT(info.has(regs::cap::loss_injection));
    }

    void test_descriptor_arrives_register_by_register()
    {
        // Every field of the host's descriptor reaches the emulator's (which unpacks
        // with the same field list: a field the host forgot to send would read its
        // reset value here).
        const auto dev = std::make_unique<emu::emulator>(emu::emulator_config{});
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
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_controller);
