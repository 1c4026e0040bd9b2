/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// An adversary on the wire during a run (docs/security.md): forged notifications
// (zero-length WRITE WITH IMMEDIATE, far and near ahead), forged metadata (300
// ratcheting timestamps, zeros "substituted" on UC), forged RC NAKs. The host counts
// each, declares no intact sample lost, and never lets a forgery move its clock
// further than stated. RC failures that a forgery (or a device) does cause end the
// run loudly. The adversary here knows what it could sniff: the device's descriptor
// (QPN, PSN, NIC address), read off the emulator it shares this process with.

#include "../axioe/axioe_client.h"
#include "../emu/emulator.h"
#include "../meta/metadata_packet.h"
#include "../regs/register_map.h"
#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct consumed {
    uint64_t items = 0;
    uint64_t not_ramp = 0;
    std::vector<rx_event> events;
    bool end = false;
};

consumed consume(rx_stream& s, std::chrono::seconds patience = 30s)
{
    consumed r;
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (!r.end && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        ramp_errors e;
        check_ramp(sample_format::sc16, c.first_item, c.data, c.items, e);
        r.not_ramp += e.mismatches;
        r.items += c.items;
        s.release(c.items);
        r.end = c.end_of_stream;
        rx_event ev;
        while (s.poll_event(ev))
            r.events.push_back(ev);
    }
    return r;
}

std::string describe(const std::map<std::string, uint64_t>& c)
{
    std::string out;
    for (const auto& [k, v] : c)
        if (k.rfind("host.", 0) == 0 || k.rfind("device.", 0) == 0 ||
            k.rfind("metadata.", 0) == 0)
            out += k + "=" + std::to_string(v) + " ";
    return out;
}

// From 100 ms into the run, \p forge(i) for i = 0 .. 49, 1 ms apart, on a thread.
std::thread forge_during_run(std::function<void(uint32_t)> forge)
{
    return std::thread([forge = std::move(forge)] {
        std::this_thread::sleep_for(100ms);
        for (uint32_t i = 0; i < 50; i++) {
            forge(i);
            std::this_thread::sleep_for(1ms);
        }
    });
}

// A host that shares the emulator with the adversary. What the host must notice is the
// adversary, not a busy machine: the emulator waits for the consumer
// (emu_pace=consumer), so that nothing else is lost.
struct scene {
    explicit scene(const emu::emulator_config& c = {}) : dev(c) {}
    emu::emulator dev;
    udp_socket adversary{ socket_address::parse("127.0.0.1:0") };

    std::unique_ptr<rx_stream> stream(const std::string& extra, uint64_t samples)
    {
        return std::make_unique<rx_stream>(
            "type=remote,addr=" + dev.control_address().to_string() +
                ",signal=ramp,hugepages=off,latency=0.5,"
                "emu_pace=consumer" +
                extra,
            "sc16",
            4e6,
            samples);
    }

    void send_roce(const socket_address& to,
                   const roce::bth& b,
                   const roce::reth* r,
                   const uint32_t* imm,
                   const roce::aeth* a,
                   size_t payload_bytes = 0)
    {
        uint8_t packet[256] = {}; // the payload: zeros
        const size_t headers = roce::write_headers(packet, b, r, imm, a);
        const size_t length = roce::finish(packet, headers, payload_bytes);
        roce::ip_context ip;
        ip.src_ip = adversary.local_address().ip();
        ip.src_port = adversary.local_address().port();
        ip.dst_ip = to.ip();
        ip.dst_port = to.port();
        roce::seal_udp(ip, packet, length);
        adversary.send_to(packet, length, to);
    }

    // A zero-length UC WRITE WITH IMMEDIATE: it needs neither rkey nor address.
    void forge_notification(uint32_t message)
    {
        const emu::rx_descriptor d = dev.registers().rx_descriptor_of(0);
        roce::bth b;
        b.opcode = roce::opcode::uc | roce::opcode::write_only_imm;
        b.dest_qp = d.dest_qpn;
        b.psn = d.start_psn;
        roce::reth r; // va, rkey, length 0
        send_roce(d.destination, b, &r, &message, nullptr);
    }

    // A NAK "remote access error" to the device, for \p psn.
    void forge_fatal_nak(uint32_t psn) { forge_nak(psn, roce::syndrome::nak_remote_access); }

    // A NAK of \p syndrome (PSN sequence error, RNR, fatal) to the device, for \p psn.
    void forge_nak(uint32_t psn, uint8_t syndrome)
    {
        roce::bth b;
        b.opcode = roce::opcode::rc | roce::opcode::acknowledge;
        b.dest_qp = emu::rx_source_qpn(0);
        b.psn = psn & 0xFFFFFF;
        roce::aeth a;
        a.syndrome = syndrome;
        send_roce(dev.link_address(), b, nullptr, nullptr, &a);
    }
};

} // namespace

class qa_hostile_wire : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_hostile_wire);
    CPPUNIT_TEST(test_forged_notifications_change_nothing);
    CPPUNIT_TEST(test_forged_metadata_changes_nothing);
    CPPUNIT_TEST(test_a_fatal_nak_for_nothing_outstanding_is_ignored);
    CPPUNIT_TEST(test_a_fatal_nak_the_device_believes_ends_the_run_loudly);
    CPPUNIT_TEST(test_a_fatal_nak_keeps_the_books);
    CPPUNIT_TEST(test_forged_naks_do_not_throttle_the_stream);
    CPPUNIT_TEST(test_a_wrong_rkey_at_the_expected_psn_ends_the_run_loudly);
    CPPUNIT_TEST(test_forgeries_on_one_links_queue_pair_leave_every_link_up);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_forged_notifications_change_nothing()
    {
        scene sc;
        const uint64_t samples = 4000000; // 1 s: messages of 1024 samples
        auto s = sc.stream(",notify=16", samples);
        s->start();
        const auto t0 = std::chrono::steady_clock::now();
        // While the host consumes: far ahead (a million messages) and near (64 messages
        // past where the device is), one every 2 ms. Each, believed, would declare every
        // sample up to it lost.
        std::thread adversary([&] {
            for (uint32_t i = 0; i < 40; i++) {
                std::this_thread::sleep_for(2ms);
                const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - t0)
                                    .count();
                sc.forge_notification(1u << 20 | i);
                sc.forge_notification(static_cast<uint32_t>(us * 4 / 1024) + 64 + i);
            }
        });
        const consumed r = consume(*s);
        adversary.join();
        const auto c = s->read_counters();
        s->stop();
        const std::string all = describe(c);
        CPPUNIT_ASSERT_MESSAGE(all, r.end);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(80), c.at("host.imm_wrong_length"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, samples, c.at("host.delivered"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, samples, c.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.not_ramp);
    }

    void test_forgeries_on_one_links_queue_pair_leave_every_link_up()
    {
        // 900 forged packets on destination 0's queue pair (link 0) of a stream over
        // two links: WRITEs with a wrong rkey, WRITE MIDDLEs at a wrong PSN, and
        // notifications far ahead. Once they made the host declare link 1 down, three
        // times. Nothing forged on one link's QP may change any link's state, nor lose
        // a sample: one message is one packet here, so a wrong PSN drops only itself.
        emu::emulator_config two_links;
        two_links.more_links.push_back(socket_address::parse("127.0.0.1:0"));
        scene sc(two_links);
        const uint64_t samples = 8000000; // 2 s at 4 MS/s
        auto s = sc.stream(",links=2,mtu=4096,payload=4096", samples);
        s->start();
        const emu::rx_descriptor d = sc.dev.registers().rx_descriptor_of(0);
        std::thread adversary([&] {
            std::this_thread::sleep_for(100ms);
            for (uint32_t i = 0; i < 900; i++) {
                roce::bth b;
                b.dest_qp = d.dest_qpn;
                roce::reth r;
                r.va = d.va;
                r.rkey = d.rkey;
                r.dma_length = 64;
                switch (i % 3) {
                case 0: // a whole message into the ring, but a wrong key
                    b.opcode = roce::opcode::uc | roce::opcode::write_only;
                    b.psn = d.start_psn + i;
                    r.rkey = d.rkey ^ 0x5A5A5A5A;
                    sc.send_roce(d.destination, b, &r, nullptr, nullptr, 64);
                    break;
                case 1: // the middle of a message at a PSN of nothing under way
                    b.opcode = roce::opcode::uc | roce::opcode::write_middle;
                    b.psn = d.start_psn + 0x800000 + i;
                    sc.send_roce(d.destination, b, nullptr, nullptr, nullptr, 64);
                    break;
                default: // a notification a million messages ahead
                    sc.forge_notification(1u << 20 | i);
                    break;
                }
                if (i % 3 == 2)
                    std::this_thread::sleep_for(3ms);
            }
        });
        const consumed r = consume(*s);
        adversary.join();
        const auto c = s->read_counters();
        s->stop();
        const std::string all = describe(c);
        CPPUNIT_ASSERT_MESSAGE(all, r.end);
        for (const rx_event& e : r.events)
            CPPUNIT_ASSERT_MESSAGE("link " + std::to_string(e.value) + " declared down; " +
                                       all,
                                   e.cause != rx_event::reason::link_down);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(300), c.at("host.imm_wrong_length"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, samples, c.at("host.delivered"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, samples, c.at("device.samples_emitted"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.not_ramp);
    }

    void test_forged_metadata_changes_nothing()
    {
        // 300 timestamps each 0.9 ms ahead of the last, and zeros "substituted" for
        // intact samples of a UC stream, from the device's address but another port.
        scene sc;
        const uint64_t samples = 4000000;
        auto s = sc.stream("", samples);
        s->start();
        const uint16_t port = static_cast<uint16_t>(s->read_counters().at("metadata.port"));
        const uint64_t t0 = s->start_time_ns();
        std::thread adversary([&] {
            const auto send = [&](const meta::record& r) {
                uint8_t b[meta::packet_bytes];
                meta::encode(r, b);
                sc.adversary.send_to(b, sizeof(b), socket_address(0x7F000001, port));
            };
            for (uint32_t i = 0; i < 300; i++) {
                meta::record r;
                r.type = meta::record_type::timestamp;
                r.sequence = 1000 + i;
                r.sample = 4000 * (i + 1); // sample k at t0 + 250 k ns: on the timeline,
                r.time_ns = t0 + 1000000ull * (i + 1) + 900000ull * (i + 1); // + 0.9 ms
                send(r);
                std::this_thread::sleep_for(1ms);
            }
            meta::record z;
            z.type = meta::record_type::event;
            z.sequence = 2000;
            z.sample = 100000;
            z.time_ns = t0 + 100000 * 250;
            z.code = meta::event_code::zero_substituted;
            z.value = 50000;
            send(z);
        });
        const consumed r = consume(*s);
        adversary.join();
        const auto c = s->read_counters();
        s->stop();
        const std::string all = describe(c);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(301), c.at("metadata.bad"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.clock_shift_ns"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.not_ramp);
    }

    void test_a_fatal_nak_for_nothing_outstanding_is_ignored()
    {
        scene sc;
        const uint64_t samples = 2000000;
        auto s = sc.stream(",transport=rc", samples);
        s->start();
        // The QPN alone (public: RX_SOURCE_QPN) is not enough: PSNs long acknowledged,
        // and PSNs not sent yet, name nothing a host can NAK.
        const uint32_t start = sc.dev.registers().rx_descriptor_of(0).start_psn;
        std::thread adversary = forge_during_run([&](uint32_t i) {
            sc.forge_fatal_nak(start + i);
            sc.forge_fatal_nak(start + 8000000 + i);
        });
        const consumed r = consume(*s);
        adversary.join();
        const auto c = s->read_counters();
        s->stop();
        const std::string all = describe(c);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, std::string(), s->error());
        CPPUNIT_ASSERT_MESSAGE(all, r.end);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.not_ramp);
    }

    void test_forged_naks_do_not_throttle_the_stream()
    {
        // Under water filling the device halves a stream's rate for new NAKs
        // (docs/register-map.md, "NAK backoff"): NAKs naming no outstanding packet
        // (acknowledged long ago, or never sent) are ignored, not counted, and so
        // cut nothing. The run is clean: the host's NIC has no reason to NAK.
        scene sc;
        axioe::client axi(sc.dev.control_address());
        axi.write32(regs::ctrl_base + regs::ctrl::policy, regs::ctrl_policy::water_filling);
        const uint64_t samples = 2000000;
        auto s = sc.stream(",transport=rc", samples);
        s->start();
        const uint32_t start = sc.dev.registers().rx_descriptor_of(0).start_psn;
        std::thread adversary = forge_during_run([&](uint32_t i) {
            for (uint8_t syndrome : { roce::syndrome::nak_psn_sequence,
                                      uint8_t(roce::syndrome::rnr_nak | 1) }) {
                sc.forge_nak(start + i, syndrome);
                sc.forge_nak(start + 8000000 + i, syndrome);
            }
        });
        const consumed r = consume(*s);
        adversary.join();
        const auto c = s->read_counters();
        const uint64_t cuts = axi.read64(regs::ctrl_base + regs::ctrl::nak_cuts_lo);
        s->stop();
        const std::string all = describe(c) + " nak_cuts=" + std::to_string(cuts);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, std::string(), s->error());
        CPPUNIT_ASSERT_MESSAGE(all, r.end);
        // 200 forged, none counted: what the device counts the host's NIC sent (a
        // loaded loopback may drop a packet, and the NIC then NAKs it for real).
        const uint64_t real = c.at("nic.naks_sent");
        CPPUNIT_ASSERT_MESSAGE(all, c.at("device.naks_received") <= real);
        // The backoff also cuts for the device's own retransmits (a timer that ran out
        // on a loaded machine); without either, nothing may have cut.
        if (real == 0 && c.at("device.retransmits") == 0)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), cuts);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.not_ramp);
    }

    void test_a_fatal_nak_the_device_believes_ends_the_run_loudly()
    {
        // One that can sniff the PSNs makes the device give up: the run must end with
        // a report, not zero-fill the rest silently.
        scene sc;
        auto s = sc.stream(",transport=rc", 0);
        s->start();
        const emu::rx_descriptor d = sc.dev.registers().rx_descriptor_of(0);
        axioe::client look(sc.dev.control_address()); // counters are public
        const auto give_up = std::chrono::steady_clock::now() + 3s;
        while (s->error().empty() && std::chrono::steady_clock::now() < give_up) {
            // The newest PSNs sent: some are not acknowledged yet.
            const uint64_t sent = look.read64(regs::rx_reg(0, regs::rx::packets_sent_lo));
            for (uint32_t back = 1; back <= 16; back++)
                sc.forge_fatal_nak(static_cast<uint32_t>(d.start_psn + sent - back));
            const rx_stream::chunk c = s->recv(1u << 20, 10ms);
            s->release(c.items);
        }
        const auto failed_at = std::chrono::steady_clock::now();
        CPPUNIT_ASSERT_MESSAGE("the run did not end", !s->error().empty());
        CPPUNIT_ASSERT_MESSAGE(s->error(), s->error().find("in error") != std::string::npos);
        const rx_stream::chunk c = s->recv(1u << 20, 10ms);
        CPPUNIT_ASSERT(c.end_of_stream);
        bool reported = false;
        rx_event e;
        while (s->poll_event(e))
            reported = reported || e.cause == rx_event::reason::stream_failed;
        CPPUNIT_ASSERT(reported);
        CPPUNIT_ASSERT_EQUAL(regs::stop_cause::failed, // RX_STOP_CAUSE: the device's
                             look.read32(regs::rx_reg(0, regs::rx::stop_cause)));
        s->stop();
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - failed_at < 3s);
    }

    void test_a_fatal_nak_keeps_the_books()
    {
        // Not paced, its heartbeat a second apart: the device stops at the NAK it
        // believes, and until the beat tells the host so, the host's clock judges the
        // samples the device never sent lost. They were never emitted, and count so
        // (host.outage_items, one device_outage report): the books balance. Before,
        // 1.9-2.0 M samples at 4 MS/s were reported lost that the device never emitted.
        scene sc;
        rx_stream s("type=remote,addr=" + sc.dev.control_address().to_string() +
                        ",signal=ramp,hugepages=off,latency=0.5,transport=rc,"
                        "device_timeout=2",
                    "sc16",
                    4e6,
                    0);
        s.start();
        const emu::rx_descriptor d = sc.dev.registers().rx_descriptor_of(0);
        axioe::client look(sc.dev.control_address());
        const auto forge_from = std::chrono::steady_clock::now() + 500ms;
        const auto give_up = std::chrono::steady_clock::now() + 10s;
        uint64_t outage_reports = 0;
        rx_event e;
        while (s.error().empty() && std::chrono::steady_clock::now() < give_up) {
            if (std::chrono::steady_clock::now() >= forge_from &&
                !(look.read32(regs::rx_reg(0, regs::rx::status)) & regs::status::error)) {
                const uint64_t sent =
                    look.read64(regs::rx_reg(0, regs::rx::packets_sent_lo));
                for (uint32_t back = 1; back <= 16; back++)
                    sc.forge_fatal_nak(static_cast<uint32_t>(d.start_psn + sent - back));
            }
            const rx_stream::chunk c = s.recv(1u << 20, 10ms);
            s.release(c.items);
            while (s.poll_event(e))
                outage_reports += e.cause == rx_event::reason::device_outage;
        }
        CPPUNIT_ASSERT_MESSAGE(s.error(), s.error().find("in error") != std::string::npos);
        s.stop();
        while (s.poll_event(e))
            outage_reports += e.cause == rx_event::reason::device_outage;
        const std::map<std::string, uint64_t> c = s.read_counters();
        const std::string all = describe(c);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(1), c.at("device.counters_known"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all,
                                     c.at("device.samples_emitted"),
                                     c.at("host.delivered") + c.at("host.lost"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, c.at("host.overaccounted"), c.at("host.outage_items"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            all, uint64_t(c.at("host.outage_items") > 0 ? 1 : 0), outage_reports);
    }

    void test_a_wrong_rkey_at_the_expected_psn_ends_the_run_loudly()
    {
        // A WRITE with a wrong rkey at the PSN the host expects: the host's NIC NAKs it
        // and its RC queue pair fails (the device sends the fault itself, bad_rkey=).
        scene sc;
        auto s = sc.stream(",transport=rc,bad_rkey=200", 4000000);
        s->start();
        const consumed r = consume(*s, 10s);
        CPPUNIT_ASSERT_MESSAGE("the run did not end", r.end);
        CPPUNIT_ASSERT_MESSAGE("no error said", !s->error().empty());
        bool reported = false;
        for (const rx_event& e : r.events)
            reported = reported || e.cause == rx_event::reason::nic_error ||
                       e.cause == rx_event::reason::stream_failed;
        CPPUNIT_ASSERT_MESSAGE(s->error(), reported);
        s->stop();
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_hostile_wire);
