/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rxe_links_test: one stream over two links on real verbs (docs/links.md). rx_stream with
// nic=verbs, links=2 and nic_addr=A+B puts destination 0's QP on rxe0 (veth0) and
// destination 1's on rxe1 (veth2), the ring registered with both; gr-rdma-emu --wire
// raw sends link 0's frames to rxe0 and link 1's to rxe1 at weights 3:1. A finite ramp
// burst of many ring wraps, consumed through recv()/release(): every sample must be the
// ramp whichever link carried it, the per-link counts the weights, and each rxe device
// must have counted exactly the packets its link sent.
//
// With the argument "rc" (rxe_links_rc_test): transport=rc, an RC QP per destination,
// each connected to its destination's device QP (DST_SOURCE_QPN): rxe0 and rxe1 ACK
// over their own links, and the device measures each link's RTT from them.
//
// With "same_qpn" (rxe_links_same_qpn_test, after fresh-rxe.sh made rxe0 and rxe1
// anew): both destinations' QPs have the same number, each on its own device. The host
// must tell their completions apart by the NIC they complete on: none counted for the
// wrong destination, no healthy link declared down (issue 30).
//
// Runs in the rxe guest (docs/rxe-guest.md): rxe0 on veth0 (192.0.2.1), rxe1 on veth2
// (198.51.100.1), the emulator daemon on 192.0.2.2:50100 in namespace dev with link 0
// on veth1 (192.0.2.2) and link 1 on veth3 (198.51.100.2).

#include "axioe/axioe_client.h"
#include "guest_check.h"
#include "regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <chrono>
#include <cmath>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

// As rxe_rx_test (its "Timing"): 500 kS/s, a 400 ms ring, 11 planned wraps.
constexpr uint64_t min_wraps = 10;
constexpr double planned_wraps = 11;
constexpr double rate = 5e5;
constexpr unsigned weight0 = 3, weight1 = 1;
constexpr int max_reports = 5;

std::string args(bool rc)
{
    return std::string("type=remote,addr=") + rxe_guest::device_ip +
           (rc ? ",transport=rc" : "") +
           ",nic=verbs,nic_addr=" + rxe_guest::host_ip + "+" + rxe_guest::host_ip_1 +
           ",links=2,weights=" + std::to_string(weight0) + ":" + std::to_string(weight1) +
           ",hugepages=off,latency=0.4,grace=0.15";
}

uint64_t counter(const std::map<std::string, uint64_t>& c,
                 const std::string& name,
                 rxe_guest::checker& check)
{
    const auto it = c.find(name);
    check.expect(it != c.end(), "rx_stream reports counter " + name);
    return it == c.end() ? UINT64_MAX : it->second;
}

// LINK_TX_PACKETS of link n: what the device put on it since reset.
uint64_t link_tx_packets(axioe::client& axi, unsigned n)
{
    uint32_t w[2] = {};
    axi.read(regs::link_reg(n, regs::link::tx_packets_lo), w, 2);
    return regs::join_words(w[0], w[1]);
}

uint64_t rcvd_pkts(rxe_guest::checker& check, const std::string& label, const char* rxe)
{
    return rxe_guest::rxe_counters_settled(
        { "rcvd_pkts" }, check, label + rxe + ": ", rxe)["rcvd_pkts"];
}

} // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    const bool rc = mode == "rc";
    const bool same_qpn = mode == "same_qpn";
    rxe_guest::checker check(rc         ? "rxe_links_rc_test"
                             : same_qpn ? "rxe_links_same_qpn_test"
                                        : "rxe_links_test");
    try {
        axioe::client axi(socket_address::parse(rxe_guest::device_control));
        check.expect_eq(axi.read32(regs::id_num_links),
                        uint32_t(2),
                        "the emulator has two links (--link A+B)");
        const uint64_t burst = static_cast<uint64_t>(rate * 0.4 * planned_wraps);
        rx_stream stream(args(rc), "sc16", rate, burst);
        const uint64_t wraps = burst / stream.ring_items();
        check.note("ring " + std::to_string(stream.ring_bytes()) + " bytes (" +
                   std::to_string(stream.ring_items()) + " items), payload " +
                   std::to_string(stream.payload_bytes()) + " B, path MTU " +
                   std::to_string(stream.path_mtu()) + ", burst " +
                   std::to_string(burst) + " items = " + std::to_string(wraps) +
                   " ring wraps");
        check.expect(wraps >= min_wraps, "the burst wraps the ring at least 10 times");

        const uint64_t rcvd0_before = rcvd_pkts(check, "before: ", rxe_guest::rxe_device);
        const uint64_t rcvd1_before =
            rcvd_pkts(check, "before: ", rxe_guest::rxe_device_1);
        const uint64_t tx0_before = link_tx_packets(axi, 0);
        const uint64_t tx1_before = link_tx_packets(axi, 1);
        stream.start();
        ramp_errors errors;
        int reports = 0;
        uint64_t delivered = 0;
        bool end = false;
        int idle = 0;
        while (!end && idle < 5) {
            const rx_stream::chunk c = stream.recv(stream.ring_items(), 1s);
            if (c.items == 0 && !c.end_of_stream) {
                idle++; // a second without data: after 5, the stream is stuck
                continue;
            }
            idle = 0;
            check_ramp(sample_format::sc16, c.first_item, c.data, c.items, errors);
            for (const rx_event& e : rxe_guest::take_events(stream)) {
                if (e.type == rx_event::kind::time || e.type == rx_event::kind::tune)
                    continue; // the start of the run carries its time and frequency
                if (reports++ < max_reports)
                    check.note("stream reports " + rxe_guest::describe(e));
            }
            delivered += c.items;
            stream.release(c.items);
            end = c.end_of_stream;
        }
        const rx_stream::accounting counts = stream.counts();
        check.expect_eq(reports, 0, "the stream reports no gap and no overrun");
        check.expect(end, "the burst ended (end_of_stream)");
        check.expect_eq(delivered, burst, "items delivered through recv()/release()");
        check.expect_eq(counts.delivered, burst, "accounting: delivered == burst");
        check.expect_eq(counts.lost(), uint64_t(0), "accounting: nothing lost");
        check.expect_eq(
            errors.mismatches, uint64_t(0), "every item is the ramp, bit-exact");
        if (errors.mismatches)
            check.note("first mismatch at item " + std::to_string(errors.first_mismatch));

        check.expect(rxe_guest::wait_device_done(axi),
                     "the device reports the burst DONE");
        const auto c = rxe_guest::settled_counters(stream);
        stream.stop();
        for (const auto& [name, value] : c)
            check.note("counter " + name + " = " + std::to_string(value));
        const uint64_t m0 = counter(c, "host.link0.messages", check);
        const uint64_t m1 = counter(c, "host.link1.messages", check);
        const uint64_t messages = (burst * 4 + stream.payload_bytes() - 1) /
                                  stream.payload_bytes(); // sc16: 4-byte items
        check.expect_eq(m0 + m1, messages, "every message counted for one link");
        check.expect(std::abs(double(m1) / double(m0 + m1) -
                              double(weight1) / (weight0 + weight1)) <= 0.01,
                     "the links' messages match the weights 3:1 within 1 %");
        check.expect_eq(counter(c, "host.links_unattributed_messages", check),
                        uint64_t(0),
                        "no message without a link");
        check.expect_eq(counter(c, "host.link0.imm_out_of_sequence", check) +
                            counter(c, "host.link1.imm_out_of_sequence", check),
                        uint64_t(0),
                        "each destination's immediates in sequence");
        check.expect_eq(counter(c, "host.completions", check),
                        counter(c, "device.imm_sent", check),
                        "host.completions == device.imm_sent");
        check.expect_eq(counter(c, "host.imm_wrong_destination", check),
                        uint64_t(0),
                        "no immediate counted for a destination it was not sent to");
        check.expect_eq(counter(c, "host.link0.declared_down", check) +
                            counter(c, "host.link1.declared_down", check),
                        uint64_t(0),
                        "no link declared down");
        if (same_qpn) {
            const uint64_t qpn0 = counter(c, "host.link0.qpn", check);
            check.expect(qpn0 != 0 && qpn0 == counter(c, "host.link1.qpn", check),
                         "fresh rxe0 and rxe1 gave both destinations' QPs one number (" +
                             std::to_string(qpn0) + ")");
        }
        check.expect_eq(counter(c, "device.samples_emitted", check),
                        burst,
                        "device.samples_emitted == burst");

        // Each rxe device received exactly what its link sent, and together what the
        // stream sent: link 1's frames reached rxe1 only.
        const uint64_t tx0 = link_tx_packets(axi, 0) - tx0_before;
        const uint64_t tx1 = link_tx_packets(axi, 1) - tx1_before;
        const uint64_t rcvd0 =
            rcvd_pkts(check, "after: ", rxe_guest::rxe_device) - rcvd0_before;
        const uint64_t rcvd1 =
            rcvd_pkts(check, "after: ", rxe_guest::rxe_device_1) - rcvd1_before;
        check.note("link 0 sent " + std::to_string(tx0) + ", rxe0 received " +
                   std::to_string(rcvd0) + "; link 1 sent " + std::to_string(tx1) +
                   ", rxe1 received " + std::to_string(rcvd1));
        check.expect(tx1 > 0, "link 1 carried packets");
        check.expect_eq(rcvd0, tx0, "rxe0 rcvd_pkts delta == link 0's LINK_TX_PACKETS");
        check.expect_eq(rcvd1, tx1, "rxe1 rcvd_pkts delta == link 1's LINK_TX_PACKETS");
        check.expect_eq(tx0 + tx1,
                        counter(c, "device.packets_sent", check),
                        "the links' packets add up to device.packets_sent");
        if (rc) {
            // Each rxe device's ACKs came back over its own link to its destination's
            // requester: both measured an RTT, and nothing went as zeros.
            check.expect(counter(c, "device.link0.rtt_ns", check) > 0,
                         "link 0's requester measured an RTT from rxe0's ACKs");
            check.expect(counter(c, "device.link1.rtt_ns", check) > 0,
                         "link 1's requester measured an RTT from rxe1's ACKs");
            check.expect_eq(counter(c, "device.zero_substituted", check),
                            uint64_t(0),
                            "nothing resent as zeros");
        }
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    return check.status();
}
