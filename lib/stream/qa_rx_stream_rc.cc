/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rx_stream on RC, end to end without GNU Radio: embedded emulator -> UDP -> soft NIC
// (RC QP, ACK/NAKs back to the emulator) -> ring. Under injected loss the ramp arrives
// bit-exact when the retransmit window suffices, and what is resent as zeros when it
// does not is exactly what the device counts.

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct consumed {
    uint64_t items = 0;
    uint64_t not_ramp = 0;      //!< items that are not the ramp's value
    uint64_t not_ramp_zero = 0; //!< of those, items that are zeros
    bool end_of_stream = false;
};

consumed consume(rx_stream& s)
{
    consumed r;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!r.end_of_stream && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        const auto* p = static_cast<const uint8_t*>(c.data);
        for (size_t i = 0; i < c.items; i++) {
            uint8_t expect[4];
            ramp_item(sample_format::sc16, c.first_item + i, expect);
            if (std::memcmp(expect, p + 4 * i, 4) == 0)
                continue;
            static const uint8_t zeros[4] = {};
            r.not_ramp++;
            r.not_ramp_zero += std::memcmp(zeros, p + 4 * i, 4) == 0;
        }
        r.items += c.items;
        s.release(c.items);
        r.end_of_stream = c.end_of_stream;
    }
    return r;
}

std::string describe(const std::map<std::string, uint64_t>& c)
{
    std::string out;
    for (const char* key : { "device.samples_emitted",
                             "device.packets_dropped",
                             "device.naks_received",
                             "device.retransmits",
                             "device.zero_substituted",
                             "nic.naks_sent",
                             "nic.duplicate",
                             "host.delivered",
                             "host.lost_gap" })
        out += std::string(key) + "=" + std::to_string(c.at(key)) + " ";
    return out;
}

} // namespace

class qa_rx_stream_rc : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rx_stream_rc);
    CPPUNIT_TEST(test_window_suffices_ramp_bit_exact);
    CPPUNIT_TEST(test_window_too_small_zeros_counted_exactly);
    CPPUNIT_TEST(test_rc_arguments);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_window_suffices_ramp_bit_exact()
    {
        const uint64_t items = 4000000; // 0.4 s at 10 MS/s, ~3900 messages of 4 KiB
        rx_stream s(
            "type=emu,signal=ramp,hugepages=off,transport=rc,loss=0.01,fault_seed=7",
            "sc16",
            10e6,
            items);
        s.start();
        const consumed r = consume(s);
        s.stop(); // the device's counters are final once it stopped
        const auto c = s.read_counters();
        const std::string why = describe(c);
        CPPUNIT_ASSERT(r.end_of_stream);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), r.not_ramp);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), s.counts().lost());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, c.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, c.at("host.delivered"));
        // The run really lost packets and really recovered them.
        CPPUNIT_ASSERT_MESSAGE(why, c.at("device.packets_dropped") > 0);
        CPPUNIT_ASSERT_MESSAGE(why, c.at("device.naks_received") > 0);
        CPPUNIT_ASSERT_MESSAGE(
            why, c.at("device.retransmits") >= c.at("device.packets_dropped"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), c.at("device.zero_substituted"));
    }

    void test_window_too_small_zeros_counted_exactly()
    {
        // 8 KiB: two packets of 4 KiB (loopback's MTU), less than a NAK's round trip.
        const uint64_t items = 4000000;
        rx_stream s("type=emu,signal=ramp,hugepages=off,transport=rc,retx_window=8192,"
                    "loss=0.01,fault_seed=7",
                    "sc16",
                    10e6,
                    items);
        s.start();
        const consumed r = consume(s);
        s.stop();
        const auto c = s.read_counters();
        const rx_stream::accounting a = s.counts();
        const std::string why = describe(c);
        CPPUNIT_ASSERT(r.end_of_stream);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        const uint64_t zeros = c.at("device.zero_substituted");
        CPPUNIT_ASSERT_MESSAGE(why, r.not_ramp > 0);
        // Every item that is not the ramp is zeros the device says it substituted:
        // nothing else went wrong. (The device may count more: zeros resent after an
        // ACK came later than the retransmit timeout reach a host that has the samples
        // already and drops them as duplicates; docs/roce-wire.md.)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, r.not_ramp, r.not_ramp_zero);
        CPPUNIT_ASSERT_MESSAGE(why, r.not_ramp <= zeros);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, c.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, items, a.delivered + a.lost());
        // Host-side, substitutions are either not known yet (counted delivered) or, with
        // the metadata channel, exactly the lost samples.
        CPPUNIT_ASSERT_MESSAGE(why, a.lost() == 0 || a.lost() == zeros);
    }

    void test_rc_arguments()
    {
        auto message = [](const char* args) {
            try {
                rx_stream s(args, "sc16", 1e6, 0);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        CPPUNIT_ASSERT(message("type=emu,transport=xx").find("rc") != std::string::npos);
        CPPUNIT_ASSERT(message("type=emu,retx_window=4096").find("transport=rc") !=
                       std::string::npos);
        CPPUNIT_ASSERT(message("type=emu,transport=rc,retx_window=99999999999")
                           .find("retx_window") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(std::string(),
                             message("type=emu,transport=rc,retx_window=65536"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rx_stream_rc);
