/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rxe_rx_test [FORMAT]: the whole receive path on real verbs. rx_stream with nic=verbs
// (the same stream code as the soft NIC path) on rxe0 takes a finite ramp burst of many
// ring wraps from gr-rdma-emu --wire raw and consumes it through recv()/release():
// every sample must be the ramp, every immediate must arrive in sequence, and rxe must
// have counted exactly the packets the emulator sent.
//
// Runs in the rxe guest (docs/rxe-guest.md): rxe0 on veth0 (192.0.2.1), the emulator
// daemon on 192.0.2.2:50100 in namespace dev.

#include "axioe/axioe_client.h"
#include "guest_check.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <chrono>
#include <cmath>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

// TCG is slow, and its stalls (tens of ms, more when the build machine is busy) hit the
// emulator, the guest's receive path and this consumer alike. The stream counts a packet
// as lost when it has not landed `grace` after its last sample (at least the device's
// FIFO depth + 5 ms), and skips a reader that falls half a ring (latency/2) behind: both
// must cover such stalls, or the test reports false gaps and overruns. The burst must
// still wrap the ring at least ten times: 500 kS/s (a checking fc32 consumer at 1 MS/s
// was lapped on a loaded 2-core machine), a 400 ms ring and 11 wraps: 4.4 s of samples.
constexpr uint64_t min_wraps = 10;
constexpr double planned_wraps = 11; // the ring rounds up to pages: keep a margin
constexpr int max_reports = 5;

std::string args(const std::string& latency, const std::string& grace)
{
    return std::string("type=remote,addr=") + rxe_guest::device_ip +
           ",nic=verbs,nic_addr=" + rxe_guest::host_ip +
           ",hugepages=off,latency=" + latency + ",grace=" + grace;
}

uint64_t counter(const std::map<std::string, uint64_t>& c,
                 const std::string& name,
                 rxe_guest::checker& check)
{
    const auto it = c.find(name);
    check.expect(it != c.end(), "rx_stream reports counter " + name);
    return it == c.end() ? UINT64_MAX : it->second;
}

} // namespace

int main(int argc, char** argv)
{
    // rxe_rx_test [FORMAT [LATENCY_S [GRACE_S [RATE]]]]: the others are for experiments
    // by hand.
    const std::string format = argc > 1 ? argv[1] : "sc16";
    const std::string latency = argc > 2 ? argv[2] : "0.4";
    const std::string grace = argc > 3 ? argv[3] : "0.15";
    const double rate = argc > 4 ? std::stod(argv[4]) : 5e5;
    const auto burst = static_cast<uint64_t>(rate * std::stod(latency) * planned_wraps);
    rxe_guest::checker check("rxe_rx_test " + format);
    try {
        rx_stream stream(args(latency, grace), format, rate, burst);
        const uint64_t wraps = burst / stream.ring_items();
        check.note("ring " + std::to_string(stream.ring_bytes()) + " bytes (" +
                   std::to_string(stream.ring_items()) + " items), payload " +
                   std::to_string(stream.payload_bytes()) + " B, path MTU " +
                   std::to_string(stream.path_mtu()) + ", burst " +
                   std::to_string(burst) + " items = " + std::to_string(wraps) +
                   " ring wraps");
        check.expect(wraps >= min_wraps, "the burst wraps the ring at least 10 times");

        const uint64_t rcvd_before =
            rxe_guest::rxe_counters_settled({ "rcvd_pkts" }, check, "before: ")["rcvd_pkts"];
        const auto t0 = std::chrono::steady_clock::now();
        stream.start();
        const sample_format fmt = parse_sample_format(format);
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
            check_ramp(fmt, c.first_item, c.data, c.items, errors);
            for (const rx_event& e : rxe_guest::take_events(stream)) {
                if (e.type == rx_event::kind::time || e.type == rx_event::kind::tune)
                    continue; // the start of the run carries its time and frequency
                // A gap: a packet rxe did not deliver; an overrun: this reader fell a
                // ring behind (then the ramp mismatches say nothing about the wire).
                if (reports++ < max_reports)
                    check.note("stream reports " + rxe_guest::describe(e));
            }
            delivered += c.items;
            stream.release(c.items);
            end = c.end_of_stream;
        }
        const rx_stream::accounting counts = stream.counts();
        check.expect_eq(reports, 0, "the stream reports no gap and no overrun");
        check.expect_eq(counts.delivered, burst, "accounting: delivered == burst");
        check.expect_eq(counts.lost(), uint64_t(0), "accounting: nothing lost");
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        check.expect(end, "the burst ended (end_of_stream)");
        check.expect_eq(delivered, burst, "items delivered through recv()/release()");
        check.expect_eq(
            errors.mismatches, uint64_t(0), "every item is the ramp, bit-exact");
        if (errors.mismatches)
            check.note("first mismatch at item " + std::to_string(errors.first_mismatch));

        axioe::client axi(socket_address::parse(rxe_guest::device_control));
        check.expect(rxe_guest::wait_device_done(axi),
                     "the device reports the burst DONE");
        const auto c = rxe_guest::settled_counters(stream);
        stream.stop();
        const uint64_t rcvd =
            rxe_guest::rxe_counters_settled({ "rcvd_pkts" }, check, "after: ")["rcvd_pkts"] -
            rcvd_before;
        for (const auto& [name, value] : c)
            check.note("counter " + name + " = " + std::to_string(value));
        check.note("rxe rcvd_pkts delta = " + std::to_string(rcvd) + ", " +
                   std::to_string(seconds) + " s guest time");
        // Say plainly when the emulated device itself dropped samples: its converter
        // overflows when the guest stalls it longer than its FIFO (a loaded host), which
        // is a slow test machine, not a transport error; the stream must then still
        // account exactly those samples as lost.
        const auto dropped = c.find("device.samples_dropped");
        if (dropped != c.end() && dropped->second) {
            check.note("NOTE: the emulator dropped " + std::to_string(dropped->second) +
                       " samples it could not send within its FIFO depth: the guest "
                       "stalled (is the build machine busy?)");
            check.expect_eq(
                counts.lost(),
                dropped->second,
                "the stream accounts exactly the device's dropped samples as lost");
        }
        const uint64_t completions = counter(c, "host.completions", check);
        check.expect_eq(completions,
                        counter(c, "device.imm_sent", check),
                        "host.completions == device.imm_sent");
        check.expect_eq(counter(c, "host.imm_out_of_sequence", check),
                        uint64_t(0),
                        "host.imm_out_of_sequence == 0");
        check.expect_eq(counter(c, "device.samples_emitted", check),
                        burst,
                        "device.samples_emitted == burst");
        check.expect_eq(rcvd,
                        counter(c, "device.packets_sent", check),
                        "rxe rcvd_pkts delta == device.packets_sent");
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    return check.status();
}
