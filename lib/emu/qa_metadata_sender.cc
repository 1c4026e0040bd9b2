/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's metadata channel seen from the network: program the metadata block
// through AXIoE like a host would, catch the records on a plain UDP socket and check
// each against docs/metadata.md.

#include "../axioe/axioe_client.h"
#include "../meta/metadata_packet.h"
#include "../regs/register_map.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include "metadata_sender.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;
namespace md = regs::metadata;

namespace {

using u128 = unsigned __int128;

struct received {
    meta::record r;
    socket_address from;
};

class metadata_bench
{
public:
    explicit metadata_bench(unsigned streams = 1)
        : dev(config(streams)),
          axi(dev.control_address()),
          samples(socket_address::parse("127.0.0.1:0")),
          meta_in(socket_address::parse("127.0.0.1:0"))
    {
    }

    static emu::emulator_config config(unsigned streams)
    {
        emu::emulator_config c;
        c.rx_streams = streams;
        return c;
    }

    // Point the metadata block at meta_in, in one burst as a host does.
    void program_metadata(uint32_t interval_us, uint32_t control)
    {
        const uint32_t w[4] = { meta_in.local_address().ip(),
                                meta_in.local_address().port(),
                                interval_us,
                                control };
        axi.write(regs::metadata_reg(md::dest_ipv4), w, 4);
    }

    // A finite sc16 burst to a socket nobody reads: only the metadata matters here.
    void start_burst(unsigned stream, uint32_t rate, uint64_t num_samples)
    {
        auto reg = [stream](uint32_t r) { return regs::rx_reg(stream, r); };
        axi.write32(reg(regs::rx::dest_ipv4), samples.local_address().ip());
        axi.write32(reg(regs::rx::dest_udp_port), samples.local_address().port());
        axi.write32(reg(regs::rx::dest_qpn), 0x123);
        axi.write64(reg(regs::rx::va_lo), 0x7f0000000000ull);
        axi.write64(reg(regs::rx::ring_bytes_lo), 1u << 20);
        axi.write32(reg(regs::rx::payload_bytes), 1024);
        axi.write32(reg(regs::rx::path_mtu), 1024);
        axi.write32(reg(regs::rx::rate_num), rate);
        axi.write32(reg(regs::rx::rate_den), 1);
        axi.write32(reg(regs::rx::format), regs::format::sc16);
        axi.write64(reg(regs::rx::num_samples_lo), num_samples);
        axi.write32(reg(regs::rx::command), regs::command::start);
    }

    // Records until \p done says so or \p patience runs out.
    template <typename Pred>
    std::vector<received> receive(Pred done, std::chrono::milliseconds patience)
    {
        std::vector<received> out;
        const auto deadline = std::chrono::steady_clock::now() + patience;
        uint8_t buf[256];
        while (std::chrono::steady_clock::now() < deadline &&
               !(out.size() && done(out))) {
            datagram d;
            d.data = buf;
            d.capacity = sizeof(buf);
            if (!meta_in.receive(d, 20ms))
                continue;
            received x;
            CPPUNIT_ASSERT_EQUAL(meta::packet_bytes, d.length);
            CPPUNIT_ASSERT(meta::parse(buf, d.length, x.r) == meta::parse_status::ok);
            x.from = d.peer;
            out.push_back(x);
        }
        return out;
    }

    emu::emulator dev;
    axioe::client axi;
    udp_socket samples;
    udp_socket meta_in;
};

bool ended(const std::vector<received>& v, size_t streams = 1)
{
    size_t n = 0;
    for (const auto& x : v)
        n += x.r.type == meta::record_type::stream_end;
    return n == streams;
}

uint64_t time_of(uint64_t t0, uint64_t sample, uint32_t rate)
{
    return t0 + static_cast<uint64_t>(u128(sample) * 1000000000u / rate);
}

axioe::status code_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

} // namespace

class qa_metadata_sender : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_sender);
    CPPUNIT_TEST(test_register_block);
    CPPUNIT_TEST(test_source_port_is_where_records_come_from);
    CPPUNIT_TEST(test_finite_burst_records);
    CPPUNIT_TEST(test_disabled_sends_nothing_and_enable_any_time);
    CPPUNIT_TEST(test_records_carry_the_stream);
    CPPUNIT_TEST(test_events_and_rate_limit_direct);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_source_port_is_where_records_come_from()
    {
        // MD_SOURCE_UDP_PORT: the host believes records from that port only.
        metadata_bench b;
        b.program_metadata(0, md::control_bits::enable);
        b.start_burst(0, 1000000, 1000);
        const auto got =
            b.receive([](const std::vector<received>&) { return true; }, 2000ms);
        CPPUNIT_ASSERT(!got.empty());
        const uint32_t md0 = regs::metadata_reg(0);
        CPPUNIT_ASSERT_EQUAL(uint32_t(got[0].from.port()),
                             b.axi.read32(md0 + md::source_udp_port));
        CPPUNIT_ASSERT(code_of([&] { b.axi.write32(md0 + md::source_udp_port, 1); }) ==
                       axioe::status::slverr);
    }

    void test_register_block()
    {
        metadata_bench b;
        CPPUNIT_ASSERT(b.axi.read32(regs::id_capabilities) & regs::cap::metadata);
        uint32_t w[8];
        b.axi.read(regs::metadata_reg(0), w, 8);
        for (uint32_t v : w)
            CPPUNIT_ASSERT_EQUAL(0u, v); // reset: disabled, no destination, no counts
        b.program_metadata(100000, md::control_bits::enable);
        b.axi.read(regs::metadata_reg(0), w, 4);
        CPPUNIT_ASSERT_EQUAL(b.meta_in.local_address().ip(), w[0]);
        CPPUNIT_ASSERT_EQUAL(uint32_t(b.meta_in.local_address().port()), w[1]);
        CPPUNIT_ASSERT_EQUAL(100000u, w[2]);
        CPPUNIT_ASSERT_EQUAL(1u, w[3]);

        using axioe::status;
        const uint32_t md0 = regs::metadata_reg(0);
        CPPUNIT_ASSERT(code_of([&] { b.axi.write32(md0 + md::packets_sent_lo, 1); }) ==
                       status::slverr);
        CPPUNIT_ASSERT(code_of([&] { b.axi.write32(md0 + md::control, 2); }) ==
                       status::slverr);
        CPPUNIT_ASSERT(code_of([&] { b.axi.write32(md0 + md::dest_udp_port, 70000); }) ==
                       status::slverr);
        CPPUNIT_ASSERT(code_of([&] { b.axi.write32(md0 + md::source_udp_port, 1); }) ==
                       status::slverr);
        CPPUNIT_ASSERT(code_of([&] { b.axi.read32(md0 + 0x24); }) == status::decerr);
        // A burst with a refused word changes nothing, not even the words before it.
        const uint32_t burst[5] = { 0x0A000001, 9, 5, 1, 7 };
        CPPUNIT_ASSERT(code_of([&] { b.axi.write(md0, burst, 5); }) == status::slverr);
        CPPUNIT_ASSERT_EQUAL(b.meta_in.local_address().ip(),
                             b.axi.read32(md0 + md::dest_ipv4));
        CPPUNIT_ASSERT_EQUAL(100000u, b.axi.read32(md0 + md::interval_us));
        // Writable while a stream runs: the block is not latched by START.
        b.start_burst(0, 1000000, 0);
        b.axi.write32(md0 + md::interval_us, 5000);
        CPPUNIT_ASSERT_EQUAL(5000u, b.axi.read32(md0 + md::interval_us));
        b.axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::stop);
    }

    void test_finite_burst_records()
    {
        metadata_bench b;
        constexpr uint32_t rate = 1000000;
        constexpr uint64_t burst = 300000; // 0.3 s
        constexpr uint32_t interval_us = 10000;
        b.program_metadata(interval_us, md::control_bits::enable);
        b.start_burst(0, rate, burst);
        const uint64_t t0 = b.axi.read64(regs::rx_reg(0, regs::rx::start_time_lo));
        const auto v = b.receive([](const auto& x) { return ended(x); }, 5000ms);
        CPPUNIT_ASSERT(ended(v));

        // Start: sample 0 at exactly the time START fixed.
        CPPUNIT_ASSERT(v.front().r.type == meta::record_type::stream_start);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), v.front().r.sample);
        CPPUNIT_ASSERT_EQUAL(t0, v.front().r.time_ns);
        // End: the burst size, at the time its last sample was done.
        CPPUNIT_ASSERT(v.back().r.type == meta::record_type::stream_end);
        CPPUNIT_ASSERT_EQUAL(burst, v.back().r.sample);
        CPPUNIT_ASSERT_EQUAL(time_of(t0, burst, rate), v.back().r.time_ns);

        uint64_t last_sample = 0, last_time = t0, timestamps = 0;
        for (size_t i = 0; i < v.size(); i++) {
            const meta::record& r = v[i].r;
            CPPUNIT_ASSERT_EQUAL(v.front().r.sequence + uint32_t(i),
                                 r.sequence); // consecutive
            CPPUNIT_ASSERT_EQUAL(uint8_t(0), r.stream);
            CPPUNIT_ASSERT_EQUAL(b.dev.link_address().ip(),
                                 v[i].from.ip()); // from the link
            if (r.type != meta::record_type::timestamp)
                continue;
            timestamps++;
            CPPUNIT_ASSERT(r.sample > last_sample && r.sample <= burst);
            CPPUNIT_ASSERT_EQUAL(time_of(t0, r.sample, rate), r.time_ns);
            CPPUNIT_ASSERT(r.time_ns - last_time >=
                           interval_us * 1000ull); // rate-limited
            CPPUNIT_ASSERT_EQUAL(0u, r.code);
            last_sample = r.sample;
            last_time = r.time_ns;
        }
        // About one per interval: 0.3 s / 10 ms, minus what batching delays.
        CPPUNIT_ASSERT_MESSAGE(std::to_string(timestamps),
                               timestamps >= 20 && timestamps <= 30);
        CPPUNIT_ASSERT_EQUAL(uint64_t(v.size()),
                             b.axi.read64(regs::metadata_reg(md::packets_sent_lo)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0),
                             b.axi.read64(regs::metadata_reg(md::packets_dropped_lo)));
    }

    void test_disabled_sends_nothing_and_enable_any_time()
    {
        metadata_bench b;
        b.program_metadata(5000, 0);        // destination set, not enabled
        b.start_burst(0, 1000000, 1000000); // 1 s
        const auto none = b.receive([](const auto&) { return true; }, 200ms);
        CPPUNIT_ASSERT_EQUAL(size_t(0), none.size());
        // Enabled mid-run: timestamps follow, then the end; the start was not sent.
        b.axi.write32(regs::metadata_reg(md::control), md::control_bits::enable);
        const auto v = b.receive([](const auto& x) { return ended(x); }, 5000ms);
        CPPUNIT_ASSERT(ended(v));
        CPPUNIT_ASSERT(v.size() >= 2);
        CPPUNIT_ASSERT(v.front().r.type == meta::record_type::timestamp);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0),
                             v.front().r.sequence); // nothing was spent before
        CPPUNIT_ASSERT_EQUAL(uint64_t(v.size()),
                             b.axi.read64(regs::metadata_reg(md::packets_sent_lo)));
        // Without a destination nothing goes out, even when enabled.
        b.axi.write32(regs::metadata_reg(md::dest_udp_port), 0);
        for (int i = 0; i < 100 && (b.axi.read32(regs::rx_reg(0, regs::rx::status)) &
                                    regs::status::running);
             i++)
            std::this_thread::sleep_for(10ms); // the end record leaves just before DONE
        b.start_burst(0, 1000000, 20000);
        CPPUNIT_ASSERT_EQUAL(size_t(0),
                             b.receive([](const auto&) { return true; }, 200ms).size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(v.size()),
                             b.axi.read64(regs::metadata_reg(md::packets_sent_lo)));
    }

    void test_records_carry_the_stream()
    {
        metadata_bench b(2);
        b.program_metadata(20000, md::control_bits::enable);
        b.start_burst(1, 500000, 50000);
        b.start_burst(0, 1000000, 200000);
        const uint64_t t0[2] = { b.axi.read64(regs::rx_reg(0, regs::rx::start_time_lo)),
                                 b.axi.read64(regs::rx_reg(1, regs::rx::start_time_lo)) };
        const uint32_t rates[2] = { 1000000, 500000 };
        const auto v = b.receive([](const auto& x) { return ended(x, 2); }, 5000ms);
        CPPUNIT_ASSERT(ended(v, 2));
        uint64_t starts[2] = {}, ends[2] = {};
        for (size_t i = 0; i < v.size(); i++) {
            const meta::record& r = v[i].r;
            CPPUNIT_ASSERT_EQUAL(uint32_t(i), r.sequence); // one count per device
            CPPUNIT_ASSERT(r.stream < 2);
            CPPUNIT_ASSERT_EQUAL(time_of(t0[r.stream], r.sample, rates[r.stream]),
                                 r.time_ns);
            starts[r.stream] += r.type == meta::record_type::stream_start;
            if (r.type == meta::record_type::stream_end) {
                ends[r.stream]++;
                CPPUNIT_ASSERT_EQUAL(r.stream ? uint64_t(50000) : uint64_t(200000),
                                     r.sample);
            }
        }
        CPPUNIT_ASSERT(starts[0] == 1 && starts[1] == 1 && ends[0] == 1 && ends[1] == 1);
    }

    void test_events_and_rate_limit_direct()
    {
        udp_socket in(socket_address::parse("127.0.0.1:0"));
        emu::metadata_sender s(socket_address::parse("127.0.0.1:0"), 2);
        const uint32_t w[4] = {
            in.local_address().ip(), in.local_address().port(), 1000, 1
        };
        CPPUNIT_ASSERT(s.write_registers(0, w, 4, false) == axioe::status::okay);
        s.configure_stream(1, 3000000, 2); // 1.5 MS/s
        const uint64_t t0 = 1700000000123456789ull;
        s.stream_started(1, t0);
        s.progress(1, 1499); // < 1 ms after t0: too early
        s.progress(1, 1500); // exactly 1 ms: due
        s.progress(1, 2000); // within the next interval
        s.event(1, meta::event_code::zero_substituted, 7777, 512);
        s.event(1, meta::event_code::fault_injected, 1024, 5);
        s.event(5, meta::event_code::fault_injected, 0, 1); // no such stream: ignored
        s.stream_ended(1, 9000);
        const uint32_t off[4] = { 0, 0, 0, 0 };
        CPPUNIT_ASSERT(s.write_registers(md::interval_us, off, 1, false) ==
                       axioe::status::okay);
        s.progress(1, 100000); // interval 0: no timestamps

        std::vector<meta::record> got;
        uint8_t buf[64];
        datagram d;
        d.data = buf;
        d.capacity = sizeof(buf);
        while (in.receive(d, 100ms)) {
            meta::record r;
            CPPUNIT_ASSERT(meta::parse(buf, d.length, r) == meta::parse_status::ok);
            got.push_back(r);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(5), got.size());
        const meta::record_type types[5] = { meta::record_type::stream_start,
                                             meta::record_type::timestamp,
                                             meta::record_type::event,
                                             meta::record_type::event,
                                             meta::record_type::stream_end };
        for (size_t i = 0; i < got.size(); i++) {
            CPPUNIT_ASSERT(got[i].type == types[i]);
            CPPUNIT_ASSERT_EQUAL(uint32_t(i), got[i].sequence);
            CPPUNIT_ASSERT_EQUAL(uint8_t(1), got[i].stream);
        }
        auto t = [t0](uint64_t k) {
            return t0 + static_cast<uint64_t>(u128(k) * 2 * 1000000000u / 3000000);
        };
        CPPUNIT_ASSERT_EQUAL(uint64_t(1500), got[1].sample);
        CPPUNIT_ASSERT_EQUAL(t0 + 1000000, got[1].time_ns);
        CPPUNIT_ASSERT_EQUAL(meta::event_code::zero_substituted, got[2].code);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7777), got[2].sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(512), got[2].value);
        CPPUNIT_ASSERT_EQUAL(t(7777), got[2].time_ns);
        CPPUNIT_ASSERT_EQUAL(meta::event_code::fault_injected, got[3].code);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), got[3].value);
        CPPUNIT_ASSERT_EQUAL(uint64_t(9000), got[4].sample);
        CPPUNIT_ASSERT_EQUAL(t(9000), got[4].time_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), s.registers().packets_sent);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_sender);
