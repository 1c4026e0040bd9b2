/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// An adversary on the wire of a TX stream (docs/security.md): RDMA READ requests the
// host did not expect, on its TX queue pair, with the keys an on-path attacker reads
// off the wire (here: the emulator's descriptor, in this process). One READ at the
// queue pair's expected PSN takes the PSNs the device's own READs were to use: the
// host's NIC then drops the device's READs as stale, without a NAK. Once that went on
// silently, the device playing underflow zeros to the end (issue 31: 129.7 M zeros,
// the run ended only at --timeout). Now the device gives up after its retry limit and
// reports TX_STATUS ERROR, and the host ends the stream loudly, its books kept.

#include "../emu/emulator.h"
#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_hostile_wire_tx : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_hostile_wire_tx);
    CPPUNIT_TEST(test_a_read_the_host_did_not_expect_ends_the_stream_loudly);
    CPPUNIT_TEST_SUITE_END();

    emu::emulator d_dev{ emu::emulator_config{} };
    udp_socket d_adversary{ socket_address::parse("127.0.0.1:0") };

    // A READ REQUEST of one message at \p psn on the host's TX queue pair, for ring
    // slot 1 (the device's own READ at that PSN names another slot, or the same one
    // again: either way what the NIC remembers for that PSN is the forger's).
    void forge_read(const emu::tx_descriptor& d, uint32_t psn)
    {
        roce::bth b;
        b.opcode = roce::opcode::rc | roce::opcode::read_request;
        b.dest_qp = d.host_qpn;
        b.psn = psn & 0xFFFFFF;
        roce::reth r;
        r.va = d.va + d.payload_bytes;
        r.rkey = d.rkey;
        r.dma_length = d.payload_bytes;
        uint8_t packet[64] = {};
        const size_t headers = roce::write_headers(packet, b, &r, nullptr, nullptr);
        const size_t length = roce::finish(packet, headers, 0);
        roce::ip_context ip;
        ip.src_ip = d_adversary.local_address().ip();
        ip.src_port = d_adversary.local_address().port();
        ip.dst_ip = d.host.ip();
        ip.dst_port = d.host.port();
        roce::seal_udp(ip, packet, length);
        d_adversary.send_to(packet, length, d.host);
    }

public:
    void test_a_read_the_host_did_not_expect_ends_the_stream_loudly()
    {
        tx_stream t("type=remote,addr=" + d_dev.control_address().to_string() +
                        ",hugepages=off,latency=0.02",
                    "sc16",
                    1e6);
        // The host keeps the ring full of the ramp, as a flowgraph would.
        std::atomic<bool> done{ false };
        uint64_t committed = 0;
        auto feed = [&] {
            const tx_stream::space s = t.wait_space(1, 20ms);
            if (!s.items)
                return;
            ramp_fill(sample_format::sc16,
                      committed,
                      s.items,
                      static_cast<uint8_t*>(s.data));
            t.commit(s.items);
            committed += s.items;
        };
        feed();
        t.start();
        const emu::tx_descriptor d = d_dev.registers().tx_descriptor_of(0);
        // The forger sweeps the PSNs from the run's first on, faster than the device
        // uses them: it reaches the expected PSN, and again after each one it took.
        std::thread forger([&] {
            std::this_thread::sleep_for(200ms);
            for (uint32_t p = 0; p < (1u << 16) && !done; p++)
                forge_read(d, d.start_psn + p);
        });
        const auto began = std::chrono::steady_clock::now();
        while (t.error().empty() && std::chrono::steady_clock::now() - began < 20s)
            feed();
        const auto ended = std::chrono::steady_clock::now();
        done = true;
        forger.join();
        const std::string error = t.error();
        CPPUNIT_ASSERT_MESSAGE("the stream ran on, out of step, silently", !error.empty());
        CPPUNIT_ASSERT_MESSAGE(error, error.find("in error") != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE(error, error.find("did not expect") != std::string::npos);
        // The bound: the device's retry limit (7 go-backs over at least 2 s) and one
        // reading of TX_STATUS (20 ms), with room for a loaded machine.
        CPPUNIT_ASSERT(ended - began < 15s);
        bool reported = false;
        tx_event e;
        while (t.poll_event(e))
            reported = reported || e.type == tx_event::kind::stream_failed;
        CPPUNIT_ASSERT(reported);
        t.stop();
        // The host's NIC counted what it dropped: the device's READs, stale.
        const auto c = t.read_counters();
        CPPUNIT_ASSERT(c.at("nic.drop_stale_read") > 0);
        // The books: what the host provided is played or reported, exactly.
        const tx_stream::accounting a = t.counts();
        CPPUNIT_ASSERT(a.final);
        CPPUNIT_ASSERT(a.identity_holds());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_hostile_wire_tx);
