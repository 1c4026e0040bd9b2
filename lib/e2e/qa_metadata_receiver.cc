/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host end of the metadata channel, piece by piece: the receiver against a fake
// device socket (what it accepts, what it counts and drops), the clock refiner on
// synthetic bounds, and the monitor turning records into clock, losses and reports.

#include "../device/metadata_receiver.h"
#include "../emu/emulator.h"
#include "../regs/register_map.h"
#include "../stream/metadata_monitor.h"
#include "../stream/stream_clock.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

using u128 = unsigned __int128;

// A device as far as the channel goes: a socket on the link address sending records.
struct fake_device {
    udp_socket socket;
    uint32_t sequence = 0;

    explicit fake_device(const char* ip = "127.0.0.1") : socket(socket_address::parse(ip))
    {
    }

    void send(const socket_address& to, meta::record r, bool keep_sequence = false)
    {
        if (!keep_sequence)
            r.sequence = sequence++;
        uint8_t b[meta::packet_bytes];
        meta::encode(r, b);
        socket.send_to(b, sizeof(b), to);
    }
    void send_bytes(const socket_address& to, std::vector<uint8_t> b)
    {
        socket.send_to(b.data(), b.size(), to);
    }
};

// The device's metadata channel, receiving on loopback from \p device_ip.
std::shared_ptr<metadata_intake> intake(uint32_t device_ip)
{
    return std::make_shared<metadata_intake>(socket_address::parse("127.0.0.1:0"),
                                             device_ip);
}

meta::record make(meta::record_type t,
                  uint64_t sample,
                  uint64_t time,
                  uint32_t code = 0,
                  uint64_t value = 0,
                  uint8_t stream = 0)
{
    meta::record r;
    r.type = t;
    r.stream = stream;
    r.sample = sample;
    r.time_ns = time;
    r.code = code;
    r.value = value;
    return r;
}

// Poll until \p n records have been accepted in all (loopback delivers within ms).
std::vector<received_record> take(metadata_receiver& rx, size_t n)
{
    std::vector<received_record> out;
    for (int i = 0; i < 200 && out.size() < n; i++) {
        const size_t got = rx.poll();
        for (size_t k = 0; k < got; k++)
            out.push_back(rx.record(k));
        if (out.size() < n)
            std::this_thread::sleep_for(2ms);
    }
    return out;
}

std::vector<uint8_t> encoded(const meta::record& r)
{
    std::vector<uint8_t> b(meta::packet_bytes);
    meta::encode(r, b.data());
    return b;
}

} // namespace

class qa_metadata_receiver : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_receiver);
    CPPUNIT_TEST(test_accepts_records_with_arrival_time);
    CPPUNIT_TEST(test_drops_and_counts_what_is_not_a_record);
    CPPUNIT_TEST(test_counts_lost_and_duplicates);
    CPPUNIT_TEST(test_more_than_one_batch_waiting);
    CPPUNIT_TEST(test_refiner_bounds);
    CPPUNIT_TEST(test_refiner_drift_and_implausible);
    CPPUNIT_TEST(test_refiner_total_correction_is_bounded);
    CPPUNIT_TEST(test_monitor_configures_the_device);
    CPPUNIT_TEST(test_intake_sorts_records_by_stream);
    CPPUNIT_TEST(test_intake_tx_records_go_to_attached_streams_only);
    CPPUNIT_TEST(test_monitor_uses_records_of_its_run);
    CPPUNIT_TEST(test_only_the_devices_port_and_no_uc_substitution);
    CPPUNIT_TEST(test_uc_overflow_makes_a_gap_of_what_looks_landed);
    CPPUNIT_TEST(test_a_forged_sequence_jump_is_no_loss);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_accepts_records_with_arrival_time()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        CPPUNIT_ASSERT(rx.local_address().port() != 0);
        CPPUNIT_ASSERT_EQUAL(size_t(0), rx.poll()); // nothing waits: returns at once
        fake_device dev;
        const int64_t before = host_time_ns();
        dev.send(rx.local_address(), make(meta::record_type::timestamp, 42, 4242));
        const auto got = take(rx, 1);
        const int64_t after = host_time_ns();
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT(got[0].record.type == meta::record_type::timestamp);
        CPPUNIT_ASSERT_EQUAL(uint64_t(42), got[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4242), got[0].record.time_ns);
        // The kernel's arrival time: between sending and reading.
        CPPUNIT_ASSERT(got[0].arrival_ns >= before && got[0].arrival_ns <= after);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.counts().bad);
    }

    void test_drops_and_counts_what_is_not_a_record()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev, stranger("127.0.0.2");
        const auto good = encoded(make(meta::record_type::stream_end, 7, 7));
        auto bad_magic = good, bad_version = good, bad_type = good, longer = good;
        bad_magic[0] = 'g';
        bad_version[meta::offset::version] = 2;
        bad_type[meta::offset::type] = 9;
        longer.resize(41);
        for (const auto& b : { std::vector<uint8_t>(good.begin(), good.begin() + 39),
                               bad_magic,
                               bad_version,
                               bad_type,
                               longer,
                               std::vector<uint8_t>(9000, 0x47) })
            dev.send_bytes(rx.local_address(), b);
        stranger.send_bytes(rx.local_address(), good); // right form, wrong sender
        dev.send_bytes(rx.local_address(), good);
        const auto got = take(rx, 1);
        std::this_thread::sleep_for(20ms);
        CPPUNIT_ASSERT_EQUAL(size_t(0), rx.poll());
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT(got[0].record.type == meta::record_type::stream_end);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), rx.counts().bad);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.counts().lost);
    }

    void test_counts_lost_and_duplicates()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev;
        for (uint32_t s : { 10u, 11u, 14u, 12u, 12u, 11u, 15u }) {
            meta::record r = make(meta::record_type::timestamp, s, s);
            r.sequence = s;
            dev.send(rx.local_address(), r, true);
        }
        const auto got = take(rx, 5);
        std::this_thread::sleep_for(20ms);
        rx.poll();
        CPPUNIT_ASSERT_EQUAL(size_t(5), got.size());         // 10 11 14 12 15
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().lost); // 13
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), rx.counts().duplicates);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), rx.counts().packets);
    }

    void test_more_than_one_batch_waiting()
    {
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev;
        for (int i = 0; i < 50; i++)
            dev.send(rx.local_address(), make(meta::record_type::timestamp, i, i));
        std::this_thread::sleep_for(20ms);
        CPPUNIT_ASSERT_EQUAL(metadata_receiver::max_records, rx.poll());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.record(0).record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(18), rx.poll());
        CPPUNIT_ASSERT_EQUAL(uint64_t(32), rx.record(0).record.sample);
        // discard() drops what waits, yet still counts it.
        for (int i = 50; i < 100; i++)
            dev.send(rx.local_address(), make(meta::record_type::timestamp, i, i));
        std::this_thread::sleep_for(20ms);
        rx.discard();
        CPPUNIT_ASSERT_EQUAL(size_t(0), rx.poll());
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), rx.counts().packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), rx.counts().lost);
    }

    void test_refiner_bounds()
    {
        clock_refiner c;
        c.reset({ 1000, 500 }, 0); // offset in [500, 1500]
        clock_estimate e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), e.offset_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), e.error_ns);
        // A bound below the interval tells nothing new.
        CPPUNIT_ASSERT(c.add(10000, 10000 - 200)); // offset >= 200
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), c.estimate().offset_ns);
        // One inside raises the lower end: [1100, 1500] -> 1300 +- 200.
        CPPUNIT_ASSERT(c.add(20000, 20000 - 1100));
        e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1300), e.offset_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), e.error_ns);
        // Odd widths round the error up: [1101, 1500].
        CPPUNIT_ASSERT(c.add(30000, 30000 - 1101));
        e = c.estimate();
        CPPUNIT_ASSERT(e.offset_ns - int64_t(e.error_ns) <= 1101);
        CPPUNIT_ASSERT(e.offset_ns + int64_t(e.error_ns) >= 1500);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), e.error_ns);
        // The best bound ages out of the window, but the start interval stays.
        for (size_t i = 0; i < clock_refiner::window; i++)
            CPPUNIT_ASSERT(c.add(40000 + i, 40000 + i - 800));
        e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1150), e.offset_ns); // [800, 1500]
        CPPUNIT_ASSERT_EQUAL(uint64_t(350), e.error_ns);
        for (size_t i = 0; i < clock_refiner::window; i++)
            c.add(50000 + i, 50000 + i);
        CPPUNIT_ASSERT_EQUAL(int64_t(1000), c.estimate().offset_ns);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), c.estimate().error_ns);
    }

    void test_refiner_drift_and_implausible()
    {
        clock_refiner c;
        c.reset({ 0, 1000 }, 0); // [-1000, 1000] at host time 0
        // 10 s later a clock may have drifted 1 ms (100 ppm). The device proves itself
        // 300 ns past the upper end: the interval moves up.
        const int64_t later = 10000000000;
        CPPUNIT_ASSERT_EQUAL(int64_t(1000000), c.drift_allowance(later));
        CPPUNIT_ASSERT(c.add(later + 1300, later));
        clock_estimate e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(1300), e.offset_ns); // [1300, 1300]
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), e.error_ns);
        CPPUNIT_ASSERT_EQUAL(int64_t(300), c.shift_ns());
        // Once the bound ages out, the (moved) start interval is what is known.
        for (size_t i = 0; i < clock_refiner::window; i++)
            c.add(later + 9000, later + 9000 + 5000);
        e = c.estimate();
        CPPUNIT_ASSERT_EQUAL(int64_t(300), e.offset_ns); // [-700, 1300]
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), e.error_ns);
        // More than the drift allowance in all, since start: rejected, nothing changes.
        CPPUNIT_ASSERT(!c.add(later + 1000 + 1000001, later));
        CPPUNIT_ASSERT_EQUAL(int64_t(300), c.estimate().offset_ns);
        CPPUNIT_ASSERT(c.add(later + 1000 + 1000000, later));
        CPPUNIT_ASSERT_EQUAL(int64_t(1000000), c.shift_ns());
    }

    void test_refiner_total_correction_is_bounded()
    {
        // Forged timestamps, each 0.9 ms ahead of the last, 300 of them in 0.3 s: the
        // total correction stays within what a clock can drift in that time (30 us),
        // not 300 x 0.9 ms. Each claim beyond is rejected.
        clock_refiner c;
        c.reset({ 0, 50000 }, 0); // AXIoE: within 50 us
        unsigned rejected = 0;
        for (int i = 1; i <= 300; i++) {
            const int64_t arrival = i * 1000000;
            rejected += c.add(arrival + 50000 + i * 900000, arrival) ? 0 : 1;
        }
        CPPUNIT_ASSERT_EQUAL(300u, rejected);
        CPPUNIT_ASSERT(c.shift_ns() <= c.drift_allowance(300000000));
        CPPUNIT_ASSERT_EQUAL(int64_t(30000), c.drift_allowance(300000000));
        const clock_estimate e = c.estimate();
        CPPUNIT_ASSERT(e.offset_ns + int64_t(e.error_ns) <= 50000 + 30000);
    }

    void test_monitor_configures_the_device()
    {
        emu::emulator dev(emu::emulator_config{});
        axioe::client axi(dev.control_address());
        metadata_monitor m(intake(dev.link_address().ip()), 0);
        m.configure(axi, 25000);
        uint32_t w[4];
        axi.read(regs::metadata_reg(0), w, 4);
        CPPUNIT_ASSERT_EQUAL(0x7F000001u, w[0]);
        CPPUNIT_ASSERT_EQUAL(uint32_t(m.local_address().port()), w[1]);
        CPPUNIT_ASSERT_EQUAL(25000u, w[2]);
        CPPUNIT_ASSERT_EQUAL(regs::metadata::control_bits::enable, w[3]);
    }

    void test_intake_sorts_records_by_stream()
    {
        // One destination for the whole device: each stream reads only its own
        // records, in order, whichever stream drained the socket; a full inbox loses
        // its oldest, counted.
        auto in = intake(0x7F000001);
        fake_device dev;
        const auto to = in->local_address();
        for (uint64_t k = 0; k < 6; k++)
            dev.send(to,
                     make(meta::record_type::timestamp,
                          k,
                          1000 + k,
                          0,
                          0,
                          static_cast<uint8_t>(k % 3)));
        dev.send(to, make(meta::record_type::timestamp, 99, 1099, 0, 0, 200)); // no such
        std::this_thread::sleep_for(50ms);
        received_record out[8];
        CPPUNIT_ASSERT_EQUAL(size_t(2), in->poll(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), out[1].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll(1, out, 8)); // taken once
        CPPUNIT_ASSERT_EQUAL(size_t(1), in->poll(0, out, 1)); // one at a time
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(1), in->poll(0, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(2), in->poll(2, out, 8));
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll(200, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), in->counts().packets);

        const size_t extra = 5;
        for (uint64_t k = 0; k < metadata_intake::inbox_records + extra; k++) {
            dev.send(to, make(meta::record_type::timestamp, k, 1000 + k, 0, 0, 2));
            if (k % 64 == 63) { // the socket's buffer is smaller than the inbox
                std::this_thread::sleep_for(20ms);
                in->poll(0, out, 0);
            }
        }
        std::this_thread::sleep_for(50ms);
        size_t got = 0;
        uint64_t first = UINT64_MAX;
        size_t n;
        while ((n = in->poll(2, out, 8)) > 0) {
            first = std::min(first, out[0].record.sample);
            got += n;
        }
        CPPUNIT_ASSERT_EQUAL(metadata_intake::inbox_records, got);
        CPPUNIT_ASSERT_EQUAL(uint64_t(extra), first); // the oldest went
        CPPUNIT_ASSERT_EQUAL(uint64_t(extra), in->overflowed(2));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), in->overflowed(0));
    }

    void test_intake_tx_records_go_to_attached_streams_only()
    {
        // Stream byte 0x80 + t: TX stream t's inbox, apart from RX stream t's, while a
        // TX stream of this process has it; else (and for a stream beyond the map's)
        // counted and dropped.
        auto in = intake(0x7F000001);
        fake_device dev;
        const auto to = in->local_address();
        auto tx_record = [](unsigned t, uint64_t sample) {
            return make(meta::record_type::event,
                        sample,
                        5000 + sample,
                        meta::event_code::tx_underflow,
                        1,
                        meta::tx_stream_byte(t));
        };
        dev.send(to, tx_record(1, 1)); // nobody has TX stream 1 yet
        std::this_thread::sleep_for(30ms);
        received_record out[8];
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll_tx(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), in->unclaimed());
        in->attach_tx(1);
        dev.send(to, tx_record(1, 2));
        dev.send(to, make(meta::record_type::timestamp, 3, 5003, 0, 0, 1)); // RX 1
        dev.send(to, tx_record(0, 4));  // TX 0: not attached
        dev.send(to, tx_record(20, 5)); // beyond the register map's TX streams
        dev.send(to, tx_record(1, 6));
        std::this_thread::sleep_for(50ms);
        CPPUNIT_ASSERT_EQUAL(size_t(2), in->poll_tx(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), out[1].record.sample);
        CPPUNIT_ASSERT_EQUAL(meta::tx_stream_byte(1), out[1].record.stream);
        CPPUNIT_ASSERT_EQUAL(size_t(1), in->poll(1, out, 8)); // RX 1 kept its own
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), out[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll_tx(0, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), in->unclaimed());
        // Bounded as the RX inboxes: the oldest go, counted.
        for (uint64_t k = 0; k < metadata_intake::inbox_records + 3; k++) {
            dev.send(to, tx_record(1, 100 + k));
            if (k % 64 == 63) {
                std::this_thread::sleep_for(20ms);
                in->poll(0, out, 0);
            }
        }
        std::this_thread::sleep_for(50ms);
        size_t got = 0, n;
        uint64_t first = UINT64_MAX;
        while ((n = in->poll_tx(1, out, 8)) > 0) {
            first = std::min(first, out[0].record.sample);
            got += n;
        }
        CPPUNIT_ASSERT_EQUAL(metadata_intake::inbox_records, got);
        CPPUNIT_ASSERT_EQUAL(uint64_t(103), first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), in->tx_overflowed(1));
        // Detached: nobody's again.
        in->detach_tx(1);
        dev.send(to, tx_record(1, 7));
        std::this_thread::sleep_for(30ms);
        CPPUNIT_ASSERT_EQUAL(size_t(0), in->poll_tx(1, out, 8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), in->unclaimed());
    }

    void test_monitor_uses_records_of_its_run()
    {
        std::vector<uint8_t> ring(2 * 64 * 4);
        loss_tracker tracker({ ring.data(), 64, 8, 0 }, sample_format::sc16);
        // RC: the only transport on which a device substitutes zeros.
        metadata_monitor m(intake(0x7F000001), 1, true);
        fake_device dev;
        const rational rate{ 1000000, 1 }; // 1 MS/s: sample k at t0 + 1000 k ns
        const int64_t now = host_time_ns();
        const uint64_t t0 = static_cast<uint64_t>(now) - 1000000000; // a second ago
        m.start(rate, t0, 20000000, { 0, 5000000 }, now); // AXIoE said: within 5 ms
        stream_clock clock(rate, t0, 0, 5000000, 20000000);
        const auto to = m.local_address();
        auto at = [t0](uint64_t k) { return t0 + 1000 * k; };
        dev.send(to, make(meta::record_type::stream_start, 0, t0, 0, 0, 1));
        dev.send(to,
                 make(meta::record_type::stream_start, 0, t0 + 1, 0, 0, 1)); // mismatch
        dev.send(
            to,
            make(meta::record_type::stream_start, 0, t0 + 1, 0, 0, 0)); // other stream
        dev.send(to,
                 make(meta::record_type::timestamp,
                      900000,
                      at(900000) + 7000,
                      0,
                      0,
                      1)); // off the timeline
        dev.send(to,
                 make(meta::record_type::timestamp,
                      5000000,
                      at(5000000),
                      0,
                      0,
                      1)); // from the future
        dev.send(to,
                 make(meta::record_type::event,
                      1000,
                      at(1000),
                      meta::event_code::fault_injected,
                      5,
                      1));
        dev.send(to, make(meta::record_type::event, 2000, at(2000), 77, 9, 1));
        dev.send(to,
                 make(meta::record_type::event,
                      3000,
                      at(3000),
                      meta::event_code::device_overflow,
                      64,
                      1));
        dev.send(to,
                 make(meta::record_type::event,
                      4000,
                      at(4000),
                      meta::event_code::zero_substituted,
                      100,
                      1));
        std::this_thread::sleep_for(30ms);
        const stream_clock before = clock;
        const int64_t first_poll = host_time_ns();
        CPPUNIT_ASSERT(!m.poll(first_poll, tracker, clock)); // nothing refined the clock
        CPPUNIT_ASSERT_EQUAL(before.offset_ns(), clock.offset_ns());
        // A timestamp 400 us old when sent bounds the offset from below (> -1 ms).
        const uint64_t k = (static_cast<uint64_t>(host_time_ns()) - 400000 - t0) / 1000;
        dev.send(to, make(meta::record_type::timestamp, k, at(k), 0, 0, 1));
        std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT(
            !m.poll(first_poll + 500000, tracker, clock)); // within 1 ms: no look
        CPPUNIT_ASSERT(m.poll(first_poll + 1000000, tracker, clock));
        const clock_estimate e = m.estimate();
        CPPUNIT_ASSERT(e.offset_ns - int64_t(e.error_ns) >
                       -1000000); // tighter than AXIoE's
        CPPUNIT_ASSERT(e.offset_ns + int64_t(e.error_ns) >= 5000000); // upper end kept
        CPPUNIT_ASSERT_EQUAL(e.offset_ns, clock.offset_ns());

        std::map<std::string, uint64_t> c;
        m.read_counters(c, tracker);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), c.at("metadata.packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("metadata.t0_mismatch"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.at("metadata.rejected"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("metadata.timestamps"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), c.at("metadata.events"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), c.at("metadata.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL(static_cast<uint64_t>(e.offset_ns),
                             c.at("metadata.clock_offset_ns"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(to.port()), c.at("metadata.port"));

        // Device events become reports; zero substitution went to the tracker instead.
        std::vector<rx_event> ev;
        rx_event x;
        while (m.poll_event(x))
            ev.push_back(x);
        CPPUNIT_ASSERT_EQUAL(size_t(3), ev.size());
        CPPUNIT_ASSERT(ev[0].type == rx_event::kind::device);
        CPPUNIT_ASSERT(ev[0].cause == rx_event::reason::fault_injected);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), ev[0].device_item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), ev[0].value);
        CPPUNIT_ASSERT(ev[1].cause == rx_event::reason::device_other);
        CPPUNIT_ASSERT_EQUAL(77u, ev[1].code);
        CPPUNIT_ASSERT(ev[2].cause == rx_event::reason::device_overflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), ev[2].count);
        CPPUNIT_ASSERT_EQUAL(std::string("device"), std::string(to_string(ev[2].type)));
    }

    void test_only_the_devices_port_and_no_uc_substitution()
    {
        std::vector<uint8_t> ring(2 * 64 * 4);
        loss_tracker tracker({ ring.data(), 64, 8, 0 }, sample_format::sc16);
        metadata_monitor m(intake(0x7F000001), 0, false);
        const rational rate{ 1000000, 1 };
        const int64_t now = host_time_ns();
        const uint64_t t0 = static_cast<uint64_t>(now) - 1000000000;
        m.start(rate, t0, 20000000, { 0, 5000000 }, now);
        fake_device dev, other;
        const auto to = m.local_address();
        auto at = [t0](uint64_t k) { return t0 + 1000 * k; };
        // A UC device never sends zeros in place of samples: such a record is a
        // forgery (or a device bug) and must zero nothing.
        dev.send(to,
                 make(meta::record_type::event,
                      4000,
                      at(4000),
                      meta::event_code::zero_substituted,
                      100));
        std::this_thread::sleep_for(20ms);
        stream_clock clock(rate, t0, 0, 5000000, 20000000);
        m.poll(host_time_ns(), tracker, clock);
        std::map<std::string, uint64_t> c;
        m.read_counters(c, tracker);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("metadata.zero_substituted_ignored"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("metadata.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("metadata.events"));

        // Records are believed from the device's port only (MD_SOURCE_UDP_PORT).
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        rx.expect_port(dev.socket.local_address().port());
        other.send(rx.local_address(), make(meta::record_type::timestamp, 1, 1));
        dev.send(rx.local_address(), make(meta::record_type::timestamp, 2, 2));
        const auto got = take(rx, 1);
        std::this_thread::sleep_for(10ms);
        rx.poll();
        CPPUNIT_ASSERT_EQUAL(size_t(1), got.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), got[0].record.sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().bad);
    }

    void test_uc_overflow_makes_a_gap_of_what_looks_landed()
    {
        // UC: the device says it never sent samples 8..15 (message 1: its FIFO
        // overflowed), yet their slot holds something other than the mark (a late
        // lap of a stalled path landed there). Handed out, they are zeros and a gap.
        std::vector<uint8_t> ring(2 * 64 * 4);
        loss_tracker tracker({ ring.data(), 64, 8, 0 }, sample_format::sc16);
        tracker.reset();
        for (size_t i = 0; i < 16; i++) // messages 0 and 1 look landed
            ramp_item(sample_format::sc16, i, ring.data() + 4 * i);
        metadata_monitor m(intake(0x7F000001), 0, false);
        const rational rate{ 1000000, 1 };
        const int64_t now = host_time_ns();
        const uint64_t t0 = static_cast<uint64_t>(now) - 1000000000;
        m.start(rate, t0, 20000000, { 0, 5000000 }, now);
        fake_device dev;
        dev.send(m.local_address(),
                 make(meta::record_type::event,
                      8,
                      t0 + 8000,
                      meta::event_code::device_overflow,
                      8));
        std::this_thread::sleep_for(20ms);
        stream_clock clock(rate, t0, 0, 5000000, 20000000);
        m.poll(host_time_ns(), tracker, clock);
        tracker.on_progress(16, 16);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), tracker.deliverable(0, 16));
        tracker.commit(0, 16);
        std::vector<rx_event> gaps;
        rx_event e;
        while (tracker.poll_event(e))
            if (e.type == rx_event::kind::gap)
                gaps.push_back(e);
        CPPUNIT_ASSERT_EQUAL(size_t(1), gaps.size());
        CPPUNIT_ASSERT(gaps[0].cause == rx_event::reason::device_overflow);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), gaps[0].item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), gaps[0].count);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), tracker.counts().lost_gap);
        for (size_t i = 8; i < 16; i++) {
            uint32_t w;
            std::memcpy(&w, ring.data() + 4 * i, 4);
            CPPUNIT_ASSERT_EQUAL(0u, w);
        }
    }

    void test_a_forged_sequence_jump_is_no_loss()
    {
        // A record whose sequence number lies 2^31 - 1 ahead would count that many
        // records lost; no loss explains a jump past max_jump: a new base instead.
        metadata_receiver rx(socket_address::parse("127.0.0.1:0"), 0x7F000001);
        fake_device dev;
        meta::record r = make(meta::record_type::timestamp, 1, 1);
        r.sequence = 10;
        dev.send(rx.local_address(), r, true);
        r.sequence = 10u + 0x7FFFFFFFu;
        dev.send(rx.local_address(), r, true);
        r.sequence = 11u + 0x7FFFFFFFu + 5u; // 5 lost after the new base
        dev.send(rx.local_address(), r, true);
        take(rx, 3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), rx.counts().lost);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), rx.counts().resyncs);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_receiver);
