/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rxe_fault_test: what real rxe does with the faults the emulator injects. A burst
// shorter than the ring (no wrap) goes into a ring pre-filled with a sentinel; the
// emulator (device args corrupt_icrc=, bad_rkey=, bad_va=) corrupts the ICRC of one
// message, sends one with a wrong rkey and one addressed past the ring (whose first byte
// past the end, in the double mapping, is slot 0 again). rxe must drop all three:
// nothing of them reaches their slots, slot 0 keeps message 0, every other message is
// bit-exact; the stream must report exactly those messages as gaps; and rxe's rcvd_pkts
// must agree with the emulator's counters: rxe checks the ICRC before it counts a
// packet, rkey and bounds after. Then each fault alone, to attribute rxe's counts to
// each kind (docs/rxe-guest.md records what was observed).

#include "axioe/axioe_client.h"
#include "guest_check.h"
#include "regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr double rate = 1e6;
constexpr uint32_t notify = 16;
// 16 messages: the only immediate is on the last, so no fault hides a completion.
constexpr uint64_t messages = 16;
constexpr size_t items_per_message = 256; // sc16 at rxe's 1024-byte MTU on veth
constexpr uint8_t sentinel = 0xEE;

struct planned_fault {
    uint64_t message;
    uint32_t kind;
    const char* name;
    bool counted_by_rxe; // what rxe does: ICRC is checked before rcvd_pkts counts
};
const planned_fault all_faults[] = {
    { 3, regs::fault::corrupt_icrc, "corrupt_icrc", false },
    { 6, regs::fault::bad_rkey, "bad_rkey", true },
    { 9, regs::fault::bad_va, "bad_va", true },
};

// What the host itself may leave in a slot the device did not write: our sentinel,
// rx_stream's "not yet written" placeholder (sc16 I = Q = -32768), or the zeros it
// substitutes for lost samples. Anything else came from the wire.
bool host_written(const uint8_t* p, size_t items)
{
    for (size_t i = 0; i < items; i++) {
        uint32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        if (v != 0xEEEEEEEEu && v != 0x80008000u && v != 0)
            return false;
    }
    return true;
}

const std::vector<std::string> rxe_counter_names = { "rcvd_pkts",          "duplicate_request",
                                                     "out_of_seq_request", "rcvd_seq_err",
                                                     "rdma_recvs",         "send_err",
                                                     "sent_pkts" };

uint64_t counter(const std::map<std::string, uint64_t>& c,
                 const std::string& name,
                 rxe_guest::checker& check)
{
    const auto it = c.find(name);
    check.expect(it != c.end(), "rx_stream reports counter " + name);
    return it == c.end() ? UINT64_MAX : it->second;
}

// A ring and a grace that cover TCG's stalls (see rxe_rx_test.cc); the burst stays far
// shorter than the ring.
std::string stream_args()
{
    return std::string("type=remote,addr=") + rxe_guest::device_ip +
           ",nic=verbs,nic_addr=" + rxe_guest::host_ip +
           ",hugepages=off,latency=0.4,grace=0.15,notify=" + std::to_string(notify);
}

// Targeted faults as device args: one key per fault kind, its messages as a colon
// list, as drop= takes them (e.g. ",corrupt_icrc=3,bad_rkey=6:7").
std::string fault_args(const std::vector<planned_fault>& faults)
{
    std::map<std::string, std::string> lists;
    for (const auto& f : faults) {
        std::string& list = lists[f.name];
        list += (list.empty() ? "" : ":") + std::to_string(f.message);
    }
    std::string out;
    for (const auto& [kind, list] : lists)
        out += "," + kind + "=" + list;
    return out;
}

//! One burst with \p faults injected; checks the ring and the counters. \p label
//! prefixes every check.
void run_burst(rxe_guest::checker& check,
               axioe::client& axi,
               const std::vector<planned_fault>& faults,
               const std::string& label)
{
    // rx_stream::start() programs the emulator's impairments, the fault table included,
    // from the device args.
    rx_stream stream(
        stream_args() + fault_args(faults), "sc16", rate, messages * items_per_message);
    const size_t payload = stream.payload_bytes();
    const size_t spm = payload / stream.item_size();
    if (!check.expect_eq(spm, items_per_message, label + "sc16 items per message"))
        return;
    check.expect(messages * payload < stream.ring_bytes(),
                 label + "the burst is shorter than the ring");
    // The ring is this program's memory: fill it so that any write shows.
    std::memset(stream.ring_base(), sentinel, stream.ring_bytes());

    const auto rxe_before =
        rxe_guest::rxe_counters_settled(rxe_counter_names, check, label + "before: ");
    stream.start();
    std::vector<rx_event> reports;
    uint64_t delivered = 0;
    bool end = false;
    int idle = 0;
    while (!end && idle < 5) {
        const rx_stream::chunk c = stream.recv(stream.ring_items(), 1s);
        if (c.items == 0 && !c.end_of_stream) {
            idle++;
            continue;
        }
        idle = 0;
        delivered += c.items;
        stream.release(c.items);
        end = c.end_of_stream;
        for (const rx_event& e : rxe_guest::take_events(stream))
            // Time and tuning (the RF channel's frequency at item 0) are device news,
            // not reports of loss.
            if (e.type != rx_event::kind::time && e.type != rx_event::kind::tune)
                reports.push_back(e);
    }
    check.expect(end, label + "the burst ended (the last message's immediate arrived)");
    check.expect_eq(delivered, uint64_t(messages * spm), label + "items handed out");
    check.expect(rxe_guest::wait_device_done(axi),
                 label + "the device reports the burst DONE");
    const auto c = rxe_guest::settled_counters(stream);
    const uint64_t faulted = axi.read64(regs::rx_reg(0, regs::rx::packets_faulted_lo));
    stream.stop();
    // Leave the emulator as the next burst (or test) expects it.
    axi.write32(regs::emu_reg(0, regs::emu::fault_count), 0);
    const auto rxe_after =
        rxe_guest::rxe_counters_settled(rxe_counter_names, check, label + "after: ");

    const uint8_t* ring = stream.ring_base();
    bool others_ok = true;
    for (uint64_t m = 0; m < messages; m++) {
        const uint8_t* slot = ring + m * payload;
        const planned_fault* fault = nullptr;
        for (const auto& f : faults)
            if (f.message == m)
                fault = &f;
        if (fault) {
            check.expect(host_written(slot, spm),
                         label + "message " + std::to_string(m) + " (" + fault->name +
                             ") was dropped: nothing of it reached its slot");
        } else {
            ramp_errors e;
            check_ramp(sample_format::sc16, m * spm, slot, spm, e);
            if (e.mismatches)
                check.note(label + "message " + std::to_string(m) + ": " +
                           std::to_string(e.mismatches) + " items are not the ramp");
            others_ok = others_ok && e.mismatches == 0;
        }
    }
    check.expect(others_ok, label + "every other message is the ramp, bit-exact");
    ramp_errors slot0;
    check_ramp(sample_format::sc16, 0, ring, spm, slot0);
    check.expect(slot0.mismatches == 0,
                 label + "slot 0, which the bad_va target aliases, holds message 0");
    check.expect(
        host_written(ring + messages * payload,
                     (stream.ring_bytes() - messages * payload) / stream.item_size()),
        label + "the ring past the burst is untouched");

    // The host's view: each dropped message is a gap of exactly its samples, found by
    // its placeholder; nothing else is lost.
    // The device, over its metadata channel, says what it injected where.
    std::string expected, reported, expected_injections, injections;
    for (const auto& f : faults) {
        expected += (expected.empty() ? "gap at " : ", gap at ") +
                    std::to_string(f.message * spm);
        expected_injections +=
            (expected_injections.empty() ? "" : ", ") + std::to_string(f.message * spm);
    }
    for (const rx_event& e : reports) {
        check.note(label + "stream reports " + rxe_guest::describe(e));
        if (e.type == rx_event::kind::device &&
            e.cause == rx_event::reason::fault_injected) {
            injections +=
                (injections.empty() ? "" : ", ") + std::to_string(e.device_item);
            continue;
        }
        reported += reported.empty() ? "" : ", ";
        if (e.type == rx_event::kind::gap && e.cause == rx_event::reason::packet_lost &&
            e.count == spm)
            reported += "gap at " + std::to_string(e.item);
        else
            reported += rxe_guest::describe(e);
    }
    check.expect_eq(
        reported, expected, label + "the stream reports each faulted message as a gap");
    check.expect_eq(injections,
                    expected_injections,
                    label + "the device's metadata names each injected fault");
    const rx_stream::accounting counts = stream.counts();
    check.expect_eq(
        counts.lost_gap, uint64_t(faults.size() * spm), label + "accounting: lost_gap");
    check.expect_eq(counts.delivered,
                    uint64_t((messages - faults.size()) * spm),
                    label + "accounting: delivered");
    check.expect_eq(counts.lost_skipped + counts.lost_overwritten,
                    uint64_t(0),
                    label + "accounting: nothing skipped or overwritten");

    std::string rxe_deltas;
    std::map<std::string, uint64_t> delta;
    for (const auto& [name, value] : rxe_after) {
        delta[name] = value - rxe_before.at(name);
        rxe_deltas += " " + name + "=" + std::to_string(delta[name]);
    }
    check.note(label + "rxe counter deltas:" + rxe_deltas);

    uint64_t not_counted = 0;
    for (const auto& f : faults)
        not_counted += f.counted_by_rxe ? 0 : 1;
    const uint64_t sent = counter(c, "device.packets_sent", check);
    check.expect_eq(
        sent, messages, label + "device.packets_sent (faulted packets are sent too)");
    check.expect_eq(
        faulted, uint64_t(faults.size()), label + "emulator RX_PACKETS_FAULTED");
    check.expect_eq(counter(c, "device.packets_faulted", check),
                    uint64_t(faults.size()),
                    label + "rx_stream's device.packets_faulted");
    check.expect_eq(delta["rcvd_pkts"],
                    sent - not_counted,
                    label +
                        "rxe rcvd_pkts delta == packets_sent - corrupted-ICRC packets");
    check.expect_eq(counter(c, "host.completions", check),
                    counter(c, "device.imm_sent", check),
                    label + "host.completions == device.imm_sent");
}

} // namespace

int main()
{
    rxe_guest::checker check("rxe_fault_test");
    try {
        axioe::client axi(socket_address::parse(rxe_guest::device_control));
        const std::vector<planned_fault> all(std::begin(all_faults),
                                             std::end(all_faults));
        run_burst(check, axi, all, "[all three] ");
        // Each fault alone: which of rxe's counters each one moves.
        for (const auto& f : all_faults)
            run_burst(check, axi, { f }, std::string("[") + f.name + " alone] ");
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    return check.status();
}
