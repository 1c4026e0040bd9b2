/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/hash.h"
#include "tx_requester.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

namespace {
constexpr uint32_t psn_mask = 0x00FFFFFF;
// The sign of the 24-bit circular difference a - b (rxe's psn_compare).
int32_t psn_compare(uint32_t a, uint32_t b) { return static_cast<int32_t>((a - b) << 8); }
// The shortest timeout: well above a loopback round trip with a scheduler hiccup, so
// that a loaded host does not make every READ go twice.
constexpr int64_t min_timeout_ns = 250000;
// A link whose transmit queue stays full this many tries: the request goes on timeout.
constexpr int send_tries = 100;
uint32_t packets_of(uint32_t length, uint32_t mtu)
{
    return length == 0 ? 1 : (length + mtu - 1) / mtu;
}
} // namespace

void rtt_estimator::add(int64_t rtt_ns)
{
    d_ring[d_next] = rtt_ns;
    d_next = (d_next + 1) % window;
    d_count = std::min(d_count + 1, window);
    // The 99th percentile of what is held: the element below which 99 % lie.
    std::copy(d_ring.begin(), d_ring.begin() + d_count, d_scratch.begin());
    const size_t rank = (d_count * 99 + 99) / 100 - 1;
    std::nth_element(
        d_scratch.begin(), d_scratch.begin() + rank, d_scratch.begin() + d_count);
    d_p99 = d_scratch[rank];
}

tx_requester::tx_requester(unsigned stream,
                           const tx_descriptor& d,
                           wire& link,
                           ack_receiver& acks)
    : d_stream(stream),
      d_desc(d),
      d_link(link),
      d_acks(acks),
      d_next_psn(d.start_psn & psn_mask),
      d_packet(wire::headroom + 64),
      d_rx_slots(d_rx_lengths.size() * ack_receiver::tx_packet_bytes)
{
}

bool tx_requester::push(const request& r, int64_t now_ns)
{
    if (!can_send())
        return false;
    request& slot = d_queue[(d_head + d_count) % max_outstanding];
    slot = r;
    slot.first_psn = d_next_psn;
    slot.sent_ns = now_ns;
    d_next_psn = (d_next_psn + slot.packets) & psn_mask;
    d_count++;
    if (d_count == 1) { // the timer starts with the first request outstanding
        d_progress_ns = d_answered_ns = now_ns;
        d_retries = 0;
    }
    return transmit(slot, 0);
}

bool tx_requester::read(kind what,
                        uint64_t tag,
                        uint64_t va,
                        uint32_t rkey,
                        uint32_t length,
                        uint8_t* dest,
                        int64_t now_ns)
{
    // No room: nothing is queued, so nothing may be counted outstanding (a READ counted
    // but never queued would take a TX_MAX_RD_ATOMIC slot for good).
    if (!can_send())
        return false;
    request r;
    r.what = what;
    r.tag = tag;
    r.va = va;
    r.rkey = rkey;
    r.length = length;
    r.dest = dest;
    r.packets = packets_of(length, d_desc.path_mtu);
    d_reads++;
    if (what == kind::control)
        d_control = true;
    else
        d_sample_reads++;
    return push(r, now_ns);
}

bool tx_requester::notify(uint32_t imm, int64_t now_ns)
{
    request r;
    r.what = kind::notify;
    r.tag = imm;
    r.packets = 1;
    return push(r, now_ns);
}

bool tx_requester::transmit(const request& r, uint32_t from_packet)
{
    roce::bth b;
    b.dest_qp = d_desc.host_qpn;
    b.psn = (r.first_psn + from_packet) & psn_mask;
    uint8_t* packet = d_packet.data() + wire::headroom;
    size_t headers;
    if (r.what == kind::notify) {
        b.opcode = roce::opcode::rc | roce::opcode::send_only_imm;
        b.ack_req = true; // the device learns that the host took it
        const uint32_t imm = static_cast<uint32_t>(r.tag);
        headers = roce::write_headers(packet, b, nullptr, &imm);
    } else {
        // A READ again from inside: the part still missing (the host replays it from
        // its remembered resource, docs/roce-wire.md).
        const uint32_t skip = from_packet * d_desc.path_mtu;
        b.opcode = roce::opcode::rc | roce::opcode::read_request;
        roce::reth h;
        h.va = r.va + skip;
        h.rkey = r.rkey;
        h.dma_length = r.length - std::min(skip, r.length);
        headers = roce::write_headers(packet, b, &h);
    }
    outgoing_packet p;
    p.udp_payload = packet;
    p.length = roce::finish(packet, headers, 0);
    p.ack_req = b.ack_req;
    for (int i = 0; i < send_tries; i++)
        if (d_link.send(&p, 1, d_desc.host) == 1)
            return true;
    return false;
}

size_t tx_requester::poll(int64_t now_ns, completion* out, size_t max)
{
    d_done_count = 0;
    for (;;) {
        const size_t n = d_acks.poll_tx(
            d_stream, d_rx_slots.data(), d_rx_lengths.data(), d_rx_lengths.size());
        for (size_t i = 0; i < n; i++)
            take(d_rx_slots.data() + i * ack_receiver::tx_packet_bytes,
                 d_rx_lengths[i],
                 now_ns);
        if (n < d_rx_lengths.size())
            break;
    }
    // No progress within the timeout: the rest of the head, and all after it, again;
    // or, after retry_limit of them over give_up_ns, nothing more: the stream ends in
    // ERROR rather than re-read forever what a desynchronised host silently drops.
    if (!d_failed && d_count > 0 && now_ns - d_progress_ns > timeout_ns()) {
        if (d_retries >= retry_limit && now_ns - d_answered_ns >= give_up_ns)
            d_failed = d_gave_up = true;
        else
            go_back(now_ns);
    }
    const size_t n = std::min(max, d_done_count);
    std::copy(d_done.begin(), d_done.begin() + n, out);
    return n;
}

int64_t tx_requester::timeout_ns() const
{
    return std::max<int64_t>(2 * d_rtt.p99(), min_timeout_ns);
}

int64_t tx_requester::next_deadline() const
{
    return d_count ? d_progress_ns + timeout_ns() + 1 : INT64_MAX;
}

void tx_requester::take(const uint8_t* data, size_t length, int64_t now_ns)
{
    roce::packet p;
    if (roce::parse(data, length, p) != roce::parse_status::ok) // checked by the receiver
        return;
    const roce::opcode_info info = roce::describe(p.base.opcode);
    if (info.is_read_response) {
        if (lose())
            return;
        take_response(p, now_ns);
    } else if (info.is_ack) {
        take_ack(p, now_ns);
    }
}

bool tx_requester::lose()
{
    const uint64_t arrival = d_arrivals++;
    if (d_desc.emulation.loss_ppm == 0)
        return false;
    const uint64_t h =
        splitmix64((uint64_t(d_desc.emulation.fault_seed) << 40) ^ arrival);
    if (h % 1000000 >= d_desc.emulation.loss_ppm)
        return false;
    d_injected++;
    return true;
}

void tx_requester::take_response(const roce::packet& p, int64_t now_ns)
{
    if (d_count == 0) {
        d_duplicates++; // a replay of something complete
        return;
    }
    request& head = at(0);
    const uint32_t expected = (head.first_psn + head.received) & psn_mask;
    const int32_t diff = psn_compare(p.base.psn, expected);
    if (diff < 0) {
        d_duplicates++;
        return;
    }
    const uint32_t i = head.received;
    const bool last = i + 1 == head.packets;
    const uint32_t offset = i * d_desc.path_mtu;
    const size_t want = head.length == 0 ? 0
                        : last           ? head.length - offset
                                         : d_desc.path_mtu;
    const bool fits = diff == 0 && head.what != kind::notify &&
                      roce::describe(p.base.opcode).ends_message == last &&
                      p.payload_len == want;
    if (!fits) {
        // A gap (responses lost on the way), or a response that is not the one due:
        // one go-back per gap, then wait for the replay.
        if (!d_gap_seen) {
            d_gap_seen = true;
            go_back(now_ns);
        }
        return;
    }
    if (want > 0) {
        // The control page READ is 16 bytes (TX_CTRL_VA); a sample READ fills the
        // engine's buffer of its message, which is the READ's length long.
        const bool control = head.what == kind::control;
        if (!control || offset + want <= sizeof(head.control))
            std::memcpy((control ? head.control : head.dest) + offset, p.payload, want);
    }
    head.received++;
    d_gap_seen = false;
    d_progress_ns = d_answered_ns = now_ns;
    d_retries = 0;
    if (last)
        complete_head(now_ns);
}

void tx_requester::take_ack(const roce::packet& p, int64_t now_ns)
{
    const uint8_t syndrome = p.aeth_hdr.syndrome;
    const uint8_t type = syndrome >> 5;
    if (type == 0) {
        // An ACK completes the SENDs it covers. One that covers a READ says nothing
        // about its data (a duplicate SEND is re-ACKed with the host's latest PSN):
        // the READ's own responses, or the timer, decide.
        while (d_count > 0 && at(0).what == kind::notify &&
               psn_compare(at(0).first_psn, p.base.psn) <= 0)
            complete_head(now_ns);
        return;
    }
    d_naks++;
    if (syndrome == roce::syndrome::nak_psn_sequence) {
        if (!d_gap_seen) {
            d_gap_seen = true;
            go_back(now_ns);
        }
        return;
    }
    if (type == 1) // RNR NAK: no receive WR for a SEND yet; the timer sends it again
        return;
    d_failed = true; // invalid request, remote access, remote operational: QP in ERROR
}

void tx_requester::complete_head(int64_t now_ns)
{
    request& r = at(0);
    completion& c = d_done[d_done_count++];
    c.what = r.what;
    c.tag = r.tag;
    c.length = r.length;
    c.resent = r.resent;
    std::memcpy(c.control, r.control, sizeof(c.control));
    // Karn: a request sent twice says nothing about the round trip.
    if (!r.resent && r.what != kind::notify)
        d_rtt.add(now_ns - r.sent_ns);
    if (r.what != kind::notify)
        d_reads--;
    if (r.what == kind::control)
        d_control = false;
    d_head = (d_head + 1) % max_outstanding;
    d_count--;
    d_progress_ns = d_answered_ns = now_ns;
    d_retries = 0;
}

void tx_requester::go_back(int64_t now_ns)
{
    for (size_t i = 0; i < d_count; i++) {
        request& r = at(i);
        r.resent = true;
        const uint32_t from = i == 0 ? r.received : 0;
        if (r.what == kind::sample) {
            d_sample_reads++;
            d_rereads++;
            if (!d_reread)
                d_reread_tag = r.tag;
            d_reread = true;
            d_reread_missing += r.packets - from;
        }
        transmit(r, from);
    }
    d_progress_ns = now_ns;
    d_retries++;
}

bool tx_requester::take_reread(uint64_t& first_tag, uint64_t& missing)
{
    if (!d_reread)
        return false;
    first_tag = d_reread_tag;
    missing = d_reread_missing;
    d_reread = false;
    d_reread_missing = 0;
    return true;
}

} // namespace emu
} // namespace rdma
} // namespace gr
