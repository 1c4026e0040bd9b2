/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The RX engine on RC, end to end against the soft NIC on loopback: messages the
// emulator drops (loss injection, first transmissions only) are NAKed by the NIC and
// resent go-back-N from the retransmit window; a lost tail is found by the timer; with
// a window too small the resend goes as zeros, counted and reported exactly.

#include "../emu/ack_receiver.h"
#include "../emu/rx_engine.h"
#include "../emu/udp_wire.h"
#include "../nic/soft_nic.h"
#include "../nic/soft_responder.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

//! Records the zero substitutions among the device events the engine reports.
class recording_sink : public emu::metadata_sink
{
public:
    void stream_started(unsigned, uint64_t, uint64_t) override {}
    void progress(unsigned, uint64_t) override {}
    void stream_ended(unsigned, uint64_t) override {}
    void event(unsigned stream, uint32_t code, uint64_t sample, uint64_t value) override
    {
        std::lock_guard<std::mutex> lock(mutex);
        CPPUNIT_ASSERT_EQUAL(0u, stream);
        if (code != 1) // only zero substitutions; injected faults are reported too
            return;
        // Merged like the checker's ranges, so both sides compare one to one.
        if (!events.empty() && std::prev(events.end())->second == sample)
            std::prev(events.end())->second = sample + value;
        else
            events[sample] = sample + value;
    }
    void tx_event(unsigned, uint32_t, uint64_t, uint64_t, uint64_t) override
    {
        CPPUNIT_FAIL("an RX engine sent a TX record");
    }
    std::map<uint64_t, uint64_t> ranges()
    {
        std::lock_guard<std::mutex> lock(mutex);
        return events;
    }

private:
    std::mutex mutex;
    std::map<uint64_t, uint64_t> events; // [first, end) of substituted samples
};

//! What the engine tells the controller: each NAK count it reported, in order.
class recording_ctrl_sink : public emu::ctrl_sink
{
public:
    void naks(unsigned stream, unsigned link, uint64_t count) override
    {
        CPPUNIT_ASSERT_EQUAL(0u, link);
        std::lock_guard<std::mutex> lock(mutex);
        CPPUNIT_ASSERT_EQUAL(0u, stream);
        counts.push_back(count);
    }
    void rereads(unsigned, uint64_t) override
    {
        CPPUNIT_FAIL("an RX engine reported TX re-reads");
    }
    std::vector<uint64_t> reported()
    {
        std::lock_guard<std::mutex> lock(mutex);
        return counts;
    }

private:
    std::mutex mutex;
    std::vector<uint64_t> counts;
};

struct run_result {
    emu::rx_counters device;
    nic::counters host;
    uint32_t status = 0;
    std::map<uint64_t, uint64_t> wrong;  // samples that are not the ramp: [first, end)
    uint64_t wrong_not_zero = 0;         // of those, samples that are not zeros either
    std::map<uint64_t, uint64_t> events; // what the engine reported as substituted
};

/*!
 * A device (udp_wire, ack_receiver, one engine) and a host (soft NIC, RC QP on a
 * buffer holding the whole burst, so that every sample can be checked at the end).
 */
class rc_bench
{
public:
    static constexpr uint32_t psn = 0xFFFF00; // wraps during the run

    rc_bench(uint32_t payload, uint32_t mtu, uint64_t samples)
        : link(socket_address::parse("127.0.0.1:0")),
          acks(link, 1),
          engine(0, link, &sink, &acks),
          samples(samples),
          ring(samples * 4),
          pd(nic.alloc_pd()),
          mr(pd->register_memory(ring.data(),
                                 ring.size(),
                                 nic::access_local_write | nic::access_remote_write)),
          cq(nic.create_cq(1024)),
          qp(pd->create_qp(nic::qp_type::rc, *cq, 512))
    {
        engine.set_ctrl_sink(&ctrl);
        qp->to_init(nic::access_remote_write);
        qp->post_receives(0, 512);
        qp->to_rtr({ link.local_address(), emu::rx_source_qpn(0) }, psn, mtu);
        qp->to_rts(psn);

        d.destination = nic.roce_address();
        d.dest_qpn = qp->qpn();
        d.start_psn = psn;
        d.rkey = mr->rkey();
        d.va = reinterpret_cast<uintptr_t>(ring.data());
        d.ring_bytes = ring.size();
        d.payload_bytes = payload;
        d.path_mtu = mtu;
        d.notify_interval = 16;
        d.rate_num = 4000000; // 4 MS/s: the engine paces, the soft NIC keeps up
        d.rate_den = 1;
        d.transport = regs::transport_type::rc;
        d.retx_window_bytes = 4u << 20;
        d.num_samples = samples;
        d.signal.format = sample_format::sc16;
        d.signal.sample_rate = 4e6;
    }

    void drop(std::initializer_list<uint64_t> messages, uint32_t kind = regs::fault::drop)
    {
        for (uint64_t m : messages)
            d.impairments.table[d.impairments.table_size++] = { m, kind };
    }

    run_result run()
    {
        CPPUNIT_ASSERT_EQUAL(regs::error_code::none, engine.start(d));
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (!(engine.status() & regs::status::done) &&
               !(engine.status() & regs::status::error) &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(2ms);
        std::this_thread::sleep_for(20ms); // the NIC thread takes what is in flight
        run_result r;
        r.status = engine.status();
        r.device = engine.counters();
        r.host = nic.read_counters();
        r.events = sink.ranges();
        std::vector<uint8_t> expect(4);
        for (uint64_t k = 0; k < samples; k++) {
            ramp_item(sample_format::sc16, k, expect.data());
            if (std::memcmp(expect.data(), ring.data() + 4 * k, 4) == 0)
                continue;
            if (!r.wrong.empty() && std::prev(r.wrong.end())->second == k)
                std::prev(r.wrong.end())->second = k + 1;
            else
                r.wrong[k] = k + 1;
            static const uint8_t zeros[4] = {};
            r.wrong_not_zero += std::memcmp(zeros, ring.data() + 4 * k, 4) != 0;
        }
        return r;
    }

    emu::udp_wire link;
    emu::ack_receiver acks;
    recording_sink sink;
    recording_ctrl_sink ctrl;
    emu::rx_engine engine;
    uint64_t samples;
    std::vector<uint8_t> ring; // sample k at byte 4k: the burst never wraps
    nic::soft_nic nic;
    std::unique_ptr<nic::protection_domain> pd;
    std::unique_ptr<nic::memory_region> mr;
    std::unique_ptr<nic::completion_queue> cq;
    std::unique_ptr<nic::queue_pair> qp;
    emu::rx_descriptor d;
};

uint64_t total(const std::map<uint64_t, uint64_t>& ranges)
{
    uint64_t n = 0;
    for (const auto& [first, end] : ranges)
        n += end - first;
    return n;
}

// Whether every sample of \p inner's ranges is in one of \p outer's.
bool within(const std::map<uint64_t, uint64_t>& inner,
            const std::map<uint64_t, uint64_t>& outer)
{
    std::map<uint64_t, uint64_t> merged; // outer, adjacent ranges joined
    for (const auto& [first, end] : outer)
        if (!merged.empty() && std::prev(merged.end())->second >= first)
            std::prev(merged.end())->second =
                std::max(std::prev(merged.end())->second, end);
        else
            merged[first] = end;
    for (const auto& [first, end] : inner) {
        auto it = merged.upper_bound(first);
        if (it == merged.begin() || end > std::prev(it)->second)
            return false;
    }
    return true;
}

/*
 * The zeros' books, at any speed: the engine reports exactly what it counts, and every
 * zero the ring holds was reported. The ring may hold fewer than were counted: a resend
 * after a timeout of packets the host already had (its ACK late on a busy machine) goes
 * as zeros too when the window no longer holds them, and the host's NIC drops it as a
 * duplicate. Never more.
 */
void assert_zeros_reported(const run_result& r)
{
    CPPUNIT_ASSERT_EQUAL(r.device.zero_substituted, total(r.events));
    CPPUNIT_ASSERT(within(r.wrong, r.events));
    CPPUNIT_ASSERT(total(r.wrong) <= r.device.zero_substituted);
}

} // namespace

class qa_rc_engine : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_rc_engine);
    CPPUNIT_TEST(test_rc_opcodes_and_ack_requests);
    CPPUNIT_TEST(test_clean_run_needs_no_retransmission);
    CPPUNIT_TEST(test_nak_goes_back_n_within_the_window);
    CPPUNIT_TEST(test_nak_beyond_the_window_substitutes_zeros);
    CPPUNIT_TEST(test_window_boundary_inside_a_message);
    CPPUNIT_TEST(test_timeout_resends_a_lost_tail);
    CPPUNIT_TEST(test_overflow_goes_as_zeros_in_sequence);
    CPPUNIT_TEST(test_fatal_nak_ends_the_stream);
    CPPUNIT_TEST(test_rc_needs_an_ack_receiver);
    CPPUNIT_TEST(test_udp_wire_checks_the_ack_icrc);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_rc_opcodes_and_ack_requests()
    {
        // RC opcodes with AckReq where the profile says: the NIC takes them only on an
        // RC QP and answers exactly those packets.
        rc_bench b(1024, 1024, 256 * 64); // 64 one-packet messages
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        CPPUNIT_ASSERT(r.wrong.empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), r.host.at("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.host.at("drop_transport_mismatch"));
        // AckReq on messages 15, 31, 47, 63; a probe after a late ACK (a loaded host)
        // is a duplicate, which the NIC ACKs again.
        CPPUNIT_ASSERT_EQUAL(uint64_t(4) + r.device.retransmits, r.host.at("acks_sent"));
        CPPUNIT_ASSERT_EQUAL(r.host.at("acks_sent"), r.device.acks_received);
        CPPUNIT_ASSERT_EQUAL(r.device.retransmits, r.host.at("duplicate"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), r.host.at("completions")); // notify=16
    }

    void test_clean_run_needs_no_retransmission()
    {
        rc_bench b(4096, 1024, 1024 * 100); // 100 messages of 4 packets
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        CPPUNIT_ASSERT(r.wrong.empty());
        // Nothing lost, nothing resent (but probes, if an ACK came late on a busy host).
        CPPUNIT_ASSERT_EQUAL(uint64_t(400) + r.device.retransmits, r.device.packets_sent);
        CPPUNIT_ASSERT_EQUAL(r.device.retransmits, r.host.at("duplicate"));
        CPPUNIT_ASSERT(r.device.retransmits <= 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.naks_received);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.zero_substituted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.acks.malformed());
    }

    void test_nak_goes_back_n_within_the_window()
    {
        rc_bench b(1024, 1024, 256 * 400);
        b.drop({ 10, 11, 200, 398 }); // three gaps
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        // Bit-exact: every dropped message came back from the window.
        CPPUNIT_ASSERT_EQUAL(size_t(0), r.wrong.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(256 * 400), r.device.samples_emitted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), r.device.packets_dropped);
        CPPUNIT_ASSERT(r.device.naks_received >= 3); // one per gap
        CPPUNIT_ASSERT(r.device.retransmits >= 4);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.zero_substituted);
        CPPUNIT_ASSERT(r.events.empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.packets_abandoned);
        CPPUNIT_ASSERT(r.host.at("naks_sent") >= 3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(400), r.host.at("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.host.at("drop_qp_state"));
        // The controller heard the running count, rising, each change once, the last
        // one the engine's final count (docs/register-map.md, "Controller").
        const std::vector<uint64_t> told = b.ctrl.reported();
        CPPUNIT_ASSERT(!told.empty());
        for (size_t i = 1; i < told.size(); i++)
            CPPUNIT_ASSERT(told[i] > told[i - 1]);
        CPPUNIT_ASSERT_EQUAL(r.device.naks_received + r.device.retransmits, told.back());
    }

    void test_nak_beyond_the_window_substitutes_zeros()
    {
        // A window of one packet: by the time the NAK comes, the next packet has
        // evicted the dropped one, which goes again as zeros of the same length.
        rc_bench b(1024, 1024, 256 * 400);
        b.d.retx_window_bytes = 1024;
        b.drop({ 100, 250 });
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        CPPUNIT_ASSERT(r.device.zero_substituted >= 2 * 256);
        // Whatever is not the ramp is zeros, every one of them reported, and the
        // dropped messages are among them; the rest arrived bit-exact.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.wrong_not_zero);
        assert_zeros_reported(r);
        CPPUNIT_ASSERT(r.wrong.begin()->first == 100 * 256);
        bool covers_250 = false;
        for (const auto& [first, end] : r.wrong)
            covers_250 |= first <= 250 * 256 && end >= 251 * 256;
        CPPUNIT_ASSERT(covers_250);
        CPPUNIT_ASSERT_EQUAL(uint64_t(400), r.host.at("rx_packets"));
    }

    void test_window_boundary_inside_a_message()
    {
        // Messages of 4 packets, a window of 2: a resend can switch from zeros to held
        // packets inside a message (a MIDDLE after zeros), and the NIC takes both.
        rc_bench b(4096, 1024, 1024 * 100);
        b.d.retx_window_bytes = 2048;
        b.drop({ 50 });
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        CPPUNIT_ASSERT(r.device.zero_substituted > 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.wrong_not_zero);
        assert_zeros_reported(r);
        CPPUNIT_ASSERT_EQUAL(uint64_t(50 * 1024), r.wrong.begin()->first);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.host.at("drop_bad_length"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.host.at("drop_qp_state"));
    }

    void test_timeout_resends_a_lost_tail()
    {
        // The last message is dropped: no later packet reveals the gap, so no NAK
        // comes; the timer waiting for its ACK fires and the probe brings it.
        rc_bench b(1024, 1024, 256 * 100);
        b.drop({ 99 });
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        CPPUNIT_ASSERT(r.wrong.empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.naks_received);
        CPPUNIT_ASSERT(r.device.retransmits >= 1);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.zero_substituted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), r.host.at("rx_packets"));
    }

    void test_overflow_goes_as_zeros_in_sequence()
    {
        // A FIFO of 0 us: every message is late, so every one overflows. On RC each goes
        // as zeros in its place (a PSN left out would cost a go-back-N): no NAK, every
        // sample counted and reported as substituted.
        rc_bench b(1024, 1024, 256 * 50);
        b.d.fifo_us = 0;
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::done);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.wrong_not_zero);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256 * 50), r.device.zero_substituted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(256 * 50), r.device.samples_emitted);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.packets_dropped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.device.naks_received);
        CPPUNIT_ASSERT_EQUAL(uint64_t(50), r.host.at("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), r.events.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(256 * 50), r.events.begin()->second);
    }

    void test_fatal_nak_ends_the_stream()
    {
        // A bad rkey is a class C error on RC: the NIC NAKs (0x62) and its QP is in
        // ERROR; nothing the device sends can land any more, so the stream ends.
        rc_bench b(1024, 1024, 256 * 400);
        b.drop({ 10 }, regs::fault::bad_rkey);
        const run_result r = b.run();
        CPPUNIT_ASSERT(r.status & regs::status::error);
        CPPUNIT_ASSERT(!(r.status & regs::status::done));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), r.host.at("drop_bad_rkey"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), r.device.naks_received);
        CPPUNIT_ASSERT(r.device.samples_emitted < 256 * 400);
    }

    void test_udp_wire_checks_the_ack_icrc()
    {
        // What the soft NIC sends back is sealed over the canonical header from its
        // address to the link's; a flipped bit or another sender's seal is malformed.
        emu::udp_wire link(socket_address::parse("127.0.0.1:0"));
        emu::ack_receiver acks(link, 1);
        udp_socket host(socket_address::parse("127.0.0.1:0"));
        nic::reply r;
        r.syndrome = roce::syndrome::ack_unlimited;
        r.psn = 0x42;
        r.dest_qpn = emu::rx_source_qpn(0);
        r.from = host.local_address();
        r.to = link.local_address();
        uint8_t good[nic::reply_bytes];
        const size_t n = nic::write_reply(r, good);
        uint8_t flipped[nic::reply_bytes];
        std::memcpy(flipped, good, n);
        flipped[13] ^= 0x01; // the AETH MSN
        r.from = socket_address::parse("127.0.0.9:1");
        uint8_t other[nic::reply_bytes];
        nic::write_reply(r, other);
        host.send_to(flipped, n, link.local_address());
        host.send_to(other, n, link.local_address());
        host.send_to(good, n, link.local_address());
        emu::rc_ack got[4];
        size_t count = 0;
        for (int i = 0; i < 200 && count == 0; i++) {
            count = acks.poll(0, got, 4);
            std::this_thread::sleep_for(1ms);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(1), count);
        CPPUNIT_ASSERT_EQUAL(0x42u, got[0].psn);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), acks.malformed());
    }

    void test_rc_needs_an_ack_receiver()
    {
        emu::udp_wire link(socket_address::parse("127.0.0.1:0"));
        emu::rx_engine engine(0, link); // nothing hears the link's ACKs
        emu::rx_descriptor d;
        d.destination = socket_address::parse("127.0.0.1:9");
        d.dest_qpn = 0x11;
        d.ring_bytes = 1 << 20;
        d.payload_bytes = 1024;
        d.path_mtu = 1024;
        d.rate_num = 1000000;
        d.transport = regs::transport_type::rc;
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_transport, engine.start(d));
        d.transport = 7;
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_transport, emu::validate(d, 1500));
        // RX_FORMAT: 0 sc16, 1 fc32, 2 sc8 stream; any other value is error 1.
        d.transport = regs::transport_type::uc;
        for (uint32_t f : { 0u, 1u, 2u }) {
            d.format = static_cast<sample_format>(f);
            d.signal.format = d.format;
            CPPUNIT_ASSERT_EQUAL(0u, emu::validate(d, 1500));
        }
        d.format = d.signal.format = static_cast<sample_format>(3);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::bad_format, emu::validate(d, 1500));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_rc_engine);
