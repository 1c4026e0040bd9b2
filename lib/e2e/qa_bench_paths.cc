/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The benchmarks' paths (docs/performance.md), checked for correctness only (speed is
// measured in bench/, never here): the plain-UDP sample packetizer, the in-process wire
// into the soft NIC's frame queue, the null stand-in (type=null) and the latency probe.

#include "../emu/inproc_wire.h"
#include "../emu/udp_sample_builder.h"
#include "../nic/soft_nic.h"
#include "../regs/register_map.h"
#include "../stream/latency_probe.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

emu::rx_descriptor udp_descriptor(uint32_t payload, uint64_t samples)
{
    emu::rx_descriptor d;
    d.payload_bytes = payload;
    d.num_samples = samples;
    d.transport = regs::transport_type::udp;
    d.signal.format = sample_format::sc16;
    return d;
}

// Everything an rx_stream delivers over a finite burst, and whether it is the ramp
// (items inside a reported gap must be zeros instead).
struct drained {
    uint64_t items = 0;
    uint64_t mismatches = 0;
    uint64_t gap_items = 0;
};

drained drain(rx_stream& s, bool check_ramp)
{
    drained r;
    const auto give_up = std::chrono::steady_clock::now() + 30s;
    bool end = false;
    std::vector<std::pair<uint64_t, uint64_t>> gaps; // reported, [first, end)
    size_t gap = 0; // items only grow: the first gap not wholly behind
    while (!end && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        rx_event e;
        while (s.poll_event(e))
            if (e.type == rx_event::kind::gap) {
                gaps.emplace_back(e.item, e.item + e.count);
                r.gap_items += e.count;
            }
        const auto* p = static_cast<const uint8_t*>(c.data);
        for (size_t i = 0; check_ramp && i < c.items; i++) {
            const uint64_t item = c.first_item + i;
            while (gap < gaps.size() && gaps[gap].second <= item)
                gap++;
            uint8_t expect[4] = {};
            if (gap == gaps.size() || item < gaps[gap].first)
                ramp_item(sample_format::sc16, item, expect);
            r.mismatches += std::memcmp(expect, p + 4 * i, 4) != 0;
        }
        r.items += c.items;
        s.release(c.items);
        end = c.end_of_stream;
    }
    return r;
}

} // namespace

class qa_bench_paths : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_bench_paths);
    CPPUNIT_TEST(test_udp_datagram_layout);
    CPPUNIT_TEST(test_udp_last_datagram_and_fit);
    CPPUNIT_TEST(test_inproc_wire_reaches_soft_nic);
    CPPUNIT_TEST(test_inproc_wire_without_nic_loses_frames);
    CPPUNIT_TEST(test_inproc_stream_is_bit_exact);
    CPPUNIT_TEST(test_null_stand_in_delivers_everything);
    CPPUNIT_TEST(test_null_stand_in_stopped_mid_run_keeps_its_books);
    CPPUNIT_TEST(test_null_needs_its_nic);
    CPPUNIT_TEST(test_probe_buckets_and_percentiles);
    CPPUNIT_TEST(test_probe_pairs_notifications_with_items);
    CPPUNIT_TEST(test_stream_probe_counts_notifications);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_udp_datagram_layout()
    {
        emu::udp_sample_builder b(udp_descriptor(1024, 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(256), b.samples_per_message());
        CPPUNIT_ASSERT_EQUAL(size_t(1), b.packets_in(7));
        std::vector<uint8_t> slot(emu::udp_sample_builder::slot_bytes_for(1024));
        emu::outgoing_packet p;
        CPPUNIT_ASSERT_EQUAL(size_t(1),
                             b.build(0x0102030405, 0, slot.data(), slot.size(), &p));
        CPPUNIT_ASSERT(!p.roce);
        CPPUNIT_ASSERT(!p.immediate);
        CPPUNIT_ASSERT_EQUAL(size_t(8 + 1024), p.length);
        CPPUNIT_ASSERT(p.udp_payload == slot.data() + emu::wire::headroom);
        const uint8_t seq[8] = { 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0x05 }; // big-endian
        CPPUNIT_ASSERT(std::memcmp(seq, p.udp_payload, 8) == 0);
        uint8_t first[4];
        ramp_item(sample_format::sc16, 0x0102030405ull * 256, first);
        CPPUNIT_ASSERT(std::memcmp(first, p.udp_payload + 8, 4) == 0);
        // A corrupted message keeps its length; a bit of its payload flips on the wire.
        CPPUNIT_ASSERT_EQUAL(
            size_t(1),
            b.build(1, regs::fault::corrupt_payload, slot.data(), slot.size(), &p));
        CPPUNIT_ASSERT(p.flip_after_seal >= 8);
    }

    void test_udp_last_datagram_and_fit()
    {
        emu::udp_sample_builder b(udp_descriptor(1024, 1000)); // 256, 256, 256, 232
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), b.total_messages());
        std::vector<uint8_t> slot(emu::udp_sample_builder::slot_bytes_for(1024));
        emu::outgoing_packet p;
        b.build(3, 0, slot.data(), slot.size(), &p);
        CPPUNIT_ASSERT_EQUAL(size_t(8 + 232 * 4), p.length);
        CPPUNIT_ASSERT_EQUAL(size_t(0), b.packets_in(4));
        // One datagram per message: 8 KiB fits loopback, not a 1500-byte Ethernet MTU.
        CPPUNIT_ASSERT(emu::udp_sample_builder::fits(udp_descriptor(8192, 0), 65536));
        CPPUNIT_ASSERT(!emu::udp_sample_builder::fits(udp_descriptor(8192, 0), 1500));
        CPPUNIT_ASSERT(emu::udp_sample_builder::fits(udp_descriptor(1024, 0), 1500));
    }

    void test_inproc_wire_reaches_soft_nic()
    {
        // A soft NIC and a wire in this process; the wire's frames are executed by the
        // NIC's receive thread, exactly as datagrams would be (ICRC included).
        nic::soft_nic dev;
        auto pd = dev.alloc_pd();
        auto cq = dev.create_cq(16);
        std::vector<uint8_t> memory(4096, 0);
        auto mr = pd->register_memory(memory.data(),
                                      memory.size(),
                                      nic::access_local_write | nic::access_remote_write);
        auto qp = pd->create_qp(nic::qp_type::uc, *cq, 16);
        qp->to_init(nic::access_remote_write);
        qp->post_receives(0, 16);
        emu::inproc_wire link(socket_address::parse("127.0.0.1:0"));
        qp->to_rtr({ link.local_address(), 0x100 }, 7, 4096);

        std::vector<uint8_t> packet(emu::wire::headroom + 64, 0);
        uint8_t* udp = packet.data() + emu::wire::headroom;
        roce::bth bth;
        bth.opcode = roce::opcode::uc | roce::opcode::write_only_imm;
        bth.dest_qp = qp->qpn();
        bth.psn = 7;
        roce::reth reth;
        reth.va = reinterpret_cast<uintptr_t>(memory.data()) + 100;
        reth.rkey = mr->rkey();
        reth.dma_length = 8;
        const uint32_t imm = 42;
        const size_t headers = roce::write_headers(udp, bth, &reth, &imm);
        std::memcpy(udp + headers, "inproc!!", 8);
        emu::outgoing_packet p;
        p.udp_payload = udp;
        p.length = roce::finish(udp, headers, 8);
        p.immediate = true;
        CPPUNIT_ASSERT_EQUAL(size_t(1), link.send(&p, 1, dev.roce_address()));

        nic::work_completion wc;
        const auto give_up = std::chrono::steady_clock::now() + 5s;
        while (cq->poll(&wc, 1) == 0 && std::chrono::steady_clock::now() < give_up)
            cq->wait(10ms);
        CPPUNIT_ASSERT_EQUAL(uint32_t(42), wc.imm_data);
        CPPUNIT_ASSERT(wc.written_ns > 0); // the soft NIC tells when it wrote
        CPPUNIT_ASSERT(std::memcmp(memory.data() + 100, "inproc!!", 8) == 0);
        // The NIC counts a packet just after completing it: give the count a moment.
        const auto counted_by = std::chrono::steady_clock::now() + 5s;
        while (dev.read_counters().at("rx_packets") == 0 &&
               std::chrono::steady_clock::now() < counted_by)
            std::this_thread::sleep_for(1ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), dev.read_counters().at("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), link.frames_lost());
    }

    void test_inproc_wire_without_nic_loses_frames()
    {
        emu::inproc_wire link(socket_address::parse("127.0.0.1:0"));
        std::vector<uint8_t> packet(emu::wire::headroom + 64, 0);
        emu::outgoing_packet p;
        p.udp_payload = packet.data() + emu::wire::headroom;
        p.length = 40;
        p.roce = false;
        CPPUNIT_ASSERT_EQUAL(size_t(1),
                             link.send(&p, 1, socket_address::parse("127.0.0.1:9")));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), link.frames_lost());
    }

    void test_inproc_stream_is_bit_exact()
    {
        rx_stream s("type=emu,wire=inproc,signal=ramp,hugepages=off", "sc16", 20e6, 0);
        const uint64_t items = 3 * s.ring_items() + 4321;
        rx_stream burst("type=emu,wire=inproc,signal=ramp,hugepages=off,stream=1",
                        "sc16",
                        20e6,
                        items);
        burst.start();
        const drained r = drain(burst, true);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        const auto c = burst.read_counters();
        // Nothing is lost on the in-process wire: only a device starved for longer
        // than its FIFO (a busy machine) drops, and what it drops is a gap. A starved
        // emulator thread may also hand over a packet it decided to send in time only
        // after the host's deadline for it: the host has declared it lost by then, and
        // says so. So on a busy machine the host may lose a few packets more than the
        // device dropped, never fewer, and every loss is reported as a gap.
        const uint64_t dropped = c.at("device.samples_dropped");
        const uint64_t lost = c.at("host.lost");
        CPPUNIT_ASSERT_MESSAGE(std::to_string(lost) + " < " + std::to_string(dropped),
                               lost >= dropped);
        if (dropped == 0)
            CPPUNIT_ASSERT_MESSAGE("lost " + std::to_string(lost) + " on an idle wire",
                                   lost <= 4 * 1024); // at most a few late packets
        CPPUNIT_ASSERT_EQUAL(lost, r.gap_items);
        CPPUNIT_ASSERT_EQUAL(items, c.at("host.delivered") + c.at("host.lost"));
        CPPUNIT_ASSERT(c.count("host.latency.samples") ==
                       0); // the probe is off by default
    }

    void test_null_stand_in_delivers_everything()
    {
        // Correctness, not speed: a rate and a grace that a loaded machine keeps up
        // with (CI once saw the stand-in's thread starved past a 20 ms grace at 100 MS/s,
        // and its late messages counted lost, as they must be).
        const uint64_t items = 2000000;
        rx_stream s("type=null,hugepages=off,payload=2048,notify=8,latency=1,grace=0.5",
                    "sc16",
                    10e6,
                    items);
        s.start();
        const drained r = drain(s, false);
        CPPUNIT_ASSERT_EQUAL(items, r.items);
        const auto c = s.read_counters();
        CPPUNIT_ASSERT_EQUAL(items, c.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL(items, c.at("host.delivered"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("host.lost"));
        // Only the placeholder positions are written: 8 bytes per 2 KiB packet.
        const uint64_t packets = (items * 4 + 2047) / 2048;
        CPPUNIT_ASSERT_EQUAL(packets, c.at("nic.rx_packets"));
        CPPUNIT_ASSERT_EQUAL(packets * 8, c.at("nic.rx_bytes"));
    }

    void test_null_stand_in_stopped_mid_run_keeps_its_books()
    {
        // STOP reaching the stand-in before its run is done (a continuous stream, or a
        // burst whose last message the host saw before the device marked it done) left
        // RX_START_TIME reading the 0 the host wrote, which the host takes for a device
        // that restarted: the run's counters were then unknown (bench_convert_run_smoke
        // failed so now and then). The start time holds until the host writes it.
        rx_stream s("type=null,hugepages=off,payload=2048,notify=8,latency=1,grace=0.5",
                    "sc16",
                    1e6,
                    0);
        s.start();
        uint64_t received = 0;
        const auto give_up = std::chrono::steady_clock::now() + 30s;
        while (received < 100000 && std::chrono::steady_clock::now() < give_up) {
            const rx_stream::chunk c = s.recv(1u << 20, 100ms);
            received += c.items;
            s.release(c.items);
        }
        CPPUNIT_ASSERT(received >= 100000);
        s.stop();
        const auto c = s.read_counters(); // threw "the device restarted during the run"
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT(c.at("device.samples_emitted") >= received);
        CPPUNIT_ASSERT_EQUAL(c.at("device.samples_emitted"), a.delivered + a.lost());
    }

    void test_null_needs_its_nic()
    {
        CPPUNIT_ASSERT_THROW(rx_stream("type=null,nic=soft", "sc16", 1e6, 0),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(rx_stream("type=emu,nic=null", "sc16", 1e6, 0),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(rx_stream("type=null,signal=tone", "sc16", 1e6, 0),
                             std::invalid_argument); // not an emulator
        CPPUNIT_ASSERT_THROW(rx_stream("type=null,wire=inproc", "sc16", 1e6, 0),
                             std::invalid_argument);
    }

    void test_probe_buckets_and_percentiles()
    {
        CPPUNIT_ASSERT_EQUAL(uint64_t(999),
                             latency_histogram::bucket_value(latency_histogram::bucket_of(999)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000),
                             latency_histogram::bucket_value(latency_histogram::bucket_of(1000)));
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(12300),
            latency_histogram::bucket_value(latency_histogram::bucket_of(12345)));
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(999000000),
            latency_histogram::bucket_value(latency_histogram::bucket_of(999999999)));
        // Every bucket's lower edge maps back to the bucket (no gaps, no overlaps).
        for (size_t b = 0; b < 7000; b += 7)
            CPPUNIT_ASSERT_EQUAL(
                b, latency_histogram::bucket_of(latency_histogram::bucket_value(b)));
        latency_histogram empty;
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), empty.percentile(99));
    }

    void test_probe_pairs_notifications_with_items()
    {
        latency_probe p;
        const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();
        p.on_notification(100, now - 50000); // items below 100 landed 50 us ago
        p.on_notification(100, now);         // stale: proves nothing new
        p.on_notification(200, now - 20000);
        p.on_notification(300, 0); // a NIC that cannot tell: ignored
        p.on_produced(99, 700000); // not yet; its oldest sample is 0.7 ms old
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), p.notification().samples());
        p.on_produced(250, 300000); // hands out the first two notifications' items
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), p.notification().samples());
        CPPUNIT_ASSERT(p.notification().percentile(50) >= 20000);
        CPPUNIT_ASSERT(p.notification().percentile(100) >= 50000);
        // Every hand-out is an age, whatever it notified.
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), p.age().samples());
        CPPUNIT_ASSERT_EQUAL(uint64_t(300000), p.age().percentile(50));
        CPPUNIT_ASSERT_EQUAL(uint64_t(700000), p.age().percentile(100));
        std::map<std::string, uint64_t> out;
        p.export_counters("x.", out);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), out.at("x.samples"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), out.at("x.age.samples"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(700000), out.at("x.age.max_ns"));
        uint64_t in_histogram = 0;
        for (const auto& [key, value] : out)
            in_histogram += key.rfind("x.hist.", 0) == 0 ? value : 0;
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), in_histogram);
    }

    void test_stream_probe_counts_notifications()
    {
        const uint64_t items = 2000000;
        rx_stream s(
            "type=emu,wire=inproc,hugepages=off,payload=4096,notify=4,latency_probe=1",
            "sc16",
            20e6,
            items);
        s.start();
        CPPUNIT_ASSERT_EQUAL(items, drain(s, false).items);
        const auto c = s.read_counters();
        // One sample per notification (the last message of the burst notifies too).
        CPPUNIT_ASSERT_EQUAL(c.at("device.imm_sent"), c.at("host.latency.samples"));
        CPPUNIT_ASSERT(c.at("host.latency.p50_ns") > 0);
        CPPUNIT_ASSERT(c.at("host.latency.p50_ns") <= c.at("host.latency.p99_ns"));
        // Every hand-out has an age. A hand-out follows a notification, which follows the
        // 4th message of 1024 items (51.2 us each at 20 MS/s): its oldest sample was
        // taken at least 204.8 us before; and the typical one waits far less than the
        // grace after which the clock would have judged it.
        CPPUNIT_ASSERT(c.at("host.latency.age.samples") > 0);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(c.at("host.latency.age.p50_ns")),
                               c.at("host.latency.age.p50_ns") >= 204800);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(c.at("host.latency.age.p50_ns")),
                               c.at("host.latency.age.p50_ns") < 10000000);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_bench_paths);
