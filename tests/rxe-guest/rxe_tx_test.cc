/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rxe_tx_test [FORMAT]: the whole transmit path on real verbs. tx_stream with nic=verbs
// on rxe0 registers its ring and control page for remote READ only; the producer here
// writes a ramp into the ring in place and commits it; gr-rdma-emu --wire raw READs it
// (its TX engine, RC READ requests answered by rxe) and checks every sample it plays
// against the ramp. The burst wraps the ring at least ten times; the host's accounting
// must close exactly; rxe's own counters must agree with the emulator's link counters.
//
// Runs in the rxe guest (docs/rxe-guest.md): rxe0 on veth0 (192.0.2.1), the emulator
// daemon on 192.0.2.2:50100 in namespace dev. That the ring refuses a remote WRITE is
// proven by qa_verbs (qa_verbs_tx.cc) on the same rxe0, with the MR and QP made as
// tx_stream makes them.

#include "axioe/axioe_client.h"
#include "guest_check.h"
#include "regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/tx_stream.h>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

// As rxe_rx_test: TCG stalls for tens of ms. The producer keeps the ring (400 ms) nearly
// full, so a stalled producer is never what the converter waits for; the device reads
// at most max_lead (100 ms) ahead, and a READ whose response comes back after its
// deadline plays zeros counted late (allowed: the ramp check must still see at least
// ten rings of correct samples). 500 kS/s, 12 planned ring wraps: about 5 s of samples.
constexpr uint64_t min_wraps = 10;
constexpr double planned_wraps = 12.5; // the ring rounds up to pages: keep a margin
constexpr int max_reports = 10;

std::string args(const std::string& latency,
                 const std::string& payload,
                 const std::string& min_lead,
                 const std::string& max_lead)
{
    return std::string("type=remote,addr=") + rxe_guest::device_ip +
           ",nic=verbs,nic_addr=" + rxe_guest::host_ip +
           ",hugepages=off,tx_check=1,latency=" + latency + ",payload=" + payload +
           ",min_lead=" + min_lead + ",max_lead=" + max_lead;
}

uint64_t counter(const std::map<std::string, uint64_t>& c,
                 const std::string& name,
                 rxe_guest::checker& check)
{
    const auto it = c.find(name);
    check.expect(it != c.end(), "tx_stream reports counter " + name);
    return it == c.end() ? UINT64_MAX : it->second;
}

//! The emulator's link 0 counters: RoCEv2 frames it put on the wire, and those that
//! came back to its RoCE port (READ responses, ACKs).
struct link_counters {
    uint64_t sent = 0;
    uint64_t received = 0;
};

link_counters read_link(axioe::client& axi)
{
    link_counters l;
    l.sent = axi.read64(regs::link_reg(0, regs::link::tx_packets_lo));
    l.received = axi.read64(regs::link_reg(0, regs::link::rx_packets_lo));
    return l;
}

//! Wait until TX stream 0 of the device reports DONE (its finite burst played out).
bool wait_tx_done(axioe::client& axi, std::chrono::milliseconds patience)
{
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (!(axi.read32(regs::tx_reg(0, regs::tx::status)) & regs::status::done)) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

//! Write the ramp in place up to item \p total; returns the item reached. Gives up after
//! five seconds without free space (a stream that stopped fetching).
uint64_t produce(tx_stream& t, sample_format fmt, uint64_t done, uint64_t total)
{
    int idle = 0;
    while (done < total && idle < 5) {
        const tx_stream::space s = t.wait_space(1, 1s);
        if (s.items == 0) {
            if (!t.error().empty())
                break;
            idle++;
            continue;
        }
        idle = 0;
        const size_t n = static_cast<size_t>(std::min<uint64_t>(s.items, total - done));
        ramp_fill(fmt, done, n, static_cast<uint8_t*>(s.data));
        t.commit(n);
        done += n;
    }
    return done;
}

const std::vector<std::string> rxe_names = { "rcvd_pkts",         "sent_pkts",
                                             "rdma_recvs",        "rdma_sends",
                                             "duplicate_request", "out_of_seq_request",
                                             "rcvd_seq_err",      "send_err" };

} // namespace

int main(int argc, char** argv)
{
    // rxe_tx_test [FORMAT [LATENCY_S [PAYLOAD [MIN_LEAD_S [MAX_LEAD_S [RATE]]]]]]: the
    // others are for experiments by hand.
    const std::string format = argc > 1 ? argv[1] : "sc16";
    const std::string latency = argc > 2 ? argv[2] : "0.4";
    const std::string payload = argc > 3 ? argv[3] : "4096";
    const std::string min_lead = argc > 4 ? argv[4] : "0.03";
    const std::string max_lead = argc > 5 ? argv[5] : "0.15";
    const double rate = argc > 6 ? std::stod(argv[6]) : 5e5;
    const auto burst = static_cast<uint64_t>(rate * std::stod(latency) * planned_wraps);
    rxe_guest::checker check("rxe_tx_test " + format);
    try {
        tx_stream t(args(latency, payload, min_lead, max_lead), format, rate, burst);
        const uint64_t N = t.ring_items();
        check.note("ring " + std::to_string(t.ring_bytes()) + " bytes (" +
                   std::to_string(N) + " items), payload " +
                   std::to_string(t.payload_bytes()) + " B, path MTU " +
                   std::to_string(t.path_mtu()) + ", burst " + std::to_string(burst) +
                   " items = " + std::to_string(burst / N) + " ring wraps");
        check.expect(burst / N > min_wraps,
                     "the burst wraps the ring more than 10 times");

        axioe::client axi(socket_address::parse(rxe_guest::device_control));
        const auto rxe_before =
            rxe_guest::rxe_counters_settled(rxe_names, check, "before: ");
        const link_counters link_before = read_link(axi);

        const sample_format fmt = parse_sample_format(format);
        // Primed before START: the converter has samples from its first tick.
        check.expect_eq(produce(t, fmt, 0, N), N, "the ring is primed with one ring");
        const auto t0 = std::chrono::steady_clock::now();
        t.start();
        check.expect_eq(t.max_reads() > 0, true, "TX_MAX_RD_ATOMIC programmed > 0");
        check.note("max_reads (host QP max_dest_rd_atomic, read back) = " +
                   std::to_string(t.max_reads()) + ", sample 0 at device time " +
                   std::to_string(t.start_time_ns()) + " ns");
        check.expect_eq(produce(t, fmt, N, burst), burst, "the whole burst committed");
        check.expect(t.wait_fetched(10s), "the device fetched everything committed");
        check.expect(wait_tx_done(axi, 10000ms), "the device reports the burst DONE");
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

        // The device is quiet after DONE: rxe's counters and the emulator's link
        // counters cover the same packets, read before the QP is reset (rxe counts no
        // packet for a QP it no longer has).
        const auto rxe_after =
            rxe_guest::rxe_counters_settled(rxe_names, check, "after: ");
        const link_counters link_after = read_link(axi);
        t.stop();

        const tx_stream::accounting a = t.counts();
        const auto c = t.read_counters();
        for (const auto& [name, value] : c)
            check.note("counter " + name + " = " + std::to_string(value));
        std::map<std::string, uint64_t> rxe;
        for (const auto& n : rxe_names) {
            rxe[n] = rxe_after.at(n) - rxe_before.at(n);
            check.note("rxe " + n + " delta = " + std::to_string(rxe[n]));
        }
        const uint64_t link_sent = link_after.sent - link_before.sent;
        const uint64_t link_received = link_after.received - link_before.received;
        check.note("emulator link 0: " + std::to_string(link_sent) + " frames sent, " +
                   std::to_string(link_received) + " received; " +
                   std::to_string(seconds) + " s guest time");

        int reports = 0;
        tx_event e;
        while (t.poll_event(e))
            if (e.type != tx_event::kind::burst_ack && reports++ < max_reports)
                check.note(std::string("stream reports ") + to_string(e.type) + ", " +
                           std::to_string(e.count) + " samples, at device time " +
                           std::to_string(e.time_ns) + " ns");

        // The accounting: every committed sample played, late, or not played.
        check.expect(a.final, "the accounting is final (read after STOP)");
        check.expect_eq(a.host_committed, burst, "accounting: committed == burst");
        check.expect_eq(a.played + a.late + a.not_played,
                        a.host_committed,
                        "accounting: committed == played + late + not_played");
        check.expect_eq(a.not_played, uint64_t(0), "a finite burst plays to its end");
        if (a.late)
            check.note("NOTE: " + std::to_string(a.late) +
                       " samples late (READ responses after their deadline: the guest "
                       "stalled?)");
        // The ramp, bit-exact, over at least ten ring wraps.
        check.expect_eq(counter(c, "device.check_mismatches", check),
                        uint64_t(0),
                        "device.check_mismatches == 0: every played sample is the ramp");
        check.expect_eq(counter(c, "device.check_samples", check),
                        a.played,
                        "device.check_samples == played");
        check.expect(a.played >= min_wraps * N,
                     "at least 10 rings played and checked (" + std::to_string(a.played) +
                         " >= " + std::to_string(min_wraps * N) + ")");
        check.expect_eq(counter(c, "host.implausible_fetch", check),
                        uint64_t(0),
                        "host.implausible_fetch == 0");
        check.expect_eq(counter(c, "host.notifications", check),
                        counter(c, "device.notifies_sent", check),
                        "host.notifications == device.notifies_sent");

        // rxe's counters against the emulator's, frame for frame. Every frame the
        // device sent is a request to rxe0 (READ requests of the ring and the control
        // page, SEND notifications): rxe counts each once its ICRC checked. Every frame
        // rxe sent (READ responses, ACKs) comes back to the emulator's RoCE port: a
        // READ given up as late is still answered and received, and at most
        // max_dest_rd_atomic READs are outstanding, far less than the socket buffer.
        check.expect_eq(rxe["rcvd_pkts"],
                        link_sent,
                        "rxe rcvd_pkts delta == emulator link frames sent");
        check.expect_eq(rxe["sent_pkts"],
                        link_received,
                        "rxe sent_pkts delta == emulator link frames received");
        const uint64_t rereads = counter(c, "device.rereads", check);
        const uint64_t repeated = rxe["duplicate_request"] + rxe["out_of_seq_request"];
        // Each READ request and each notification is one frame.
        const uint64_t requests =
            counter(c, "device.reads", check) + counter(c, "device.notifies_sent", check);
        check.expect(rxe["rcvd_pkts"] >= requests,
                     "rxe rcvd_pkts delta >= device.reads + device.notifies_sent (" +
                         std::to_string(requests) + ")");
        // One READ RESPONSE packet per path MTU of each sample message fetched.
        const uint64_t message_items = t.payload_bytes() / t.item_size();
        const uint64_t fetched_messages =
            counter(c, "device.samples_fetched", check) / message_items;
        const uint64_t per_read = (t.payload_bytes() + t.path_mtu() - 1) / t.path_mtu();
        check.expect(rxe["sent_pkts"] >= fetched_messages * per_read,
                     "rxe sent_pkts delta >= messages fetched x packets per READ (" +
                         std::to_string(fetched_messages * per_read) + ")");
        // A notification is a SEND WITH IMMEDIATE: one receive completion each; the
        // host itself posts no send.
        check.expect_eq(rxe["rdma_recvs"],
                        counter(c, "device.notifies_sent", check),
                        "rxe rdma_recvs delta == device.notifies_sent");
        check.expect_eq(rxe["rdma_sends"], uint64_t(0), "rxe rdma_sends delta == 0");
        check.expect_eq(rxe["send_err"], uint64_t(0), "rxe send_err delta == 0");
        if (repeated)
            check.note("NOTE: the device repeated " + std::to_string(repeated) +
                       " requests (" + std::to_string(rereads) +
                       " sample re-reads): a response or ACK came late or got lost");
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    return check.status();
}
