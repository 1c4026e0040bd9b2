/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../meta/metadata_packet.h"
#include "rc_requester.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr size_t max_acks_per_poll = 64;

// RNR NAK timer field -> microseconds (IBA table 45; rxe_comp.c rnrnak_usec).
constexpr int64_t rnr_backoff_us[32] = {
    655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
    480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
    20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

retransmit_window::config window_config(const rx_descriptor& d, unsigned destination)
{
    // The window holds whole packets of sample bytes (what a device would buffer).
    const uint64_t packet_bytes = std::min(d.payload_bytes, d.path_mtu);
    retransmit_window::config c;
    c.start_psn = destination ? d.destinations[destination].start_psn : d.start_psn;
    c.capacity_packets = std::max<uint64_t>(1, d.retx_window_bytes / packet_bytes);
    c.timeout_ns = rc_requester::retransmit_timeout_ns;
    return c;
}

} // namespace

rc_requester::rc_requester(unsigned stream,
                           const rx_descriptor& d,
                           packetizer& builder,
                           ack_receiver& acks,
                           metadata_sink* metadata,
                           rc_stats& stats,
                           size_t max_batch,
                           rc_destination_stats& destination_stats,
                           unsigned destination,
                           const destination_log* log)
    : d_stream(stream),
      d_destination(destination),
      d_log(log),
      d_dest_stats(destination_stats),
      d_builder(builder),
      d_acks(acks),
      d_metadata(metadata),
      d_stats(stats),
      d_max_batch(max_batch),
      d_packets_per_message((d.payload_bytes + d.path_mtu - 1) / d.path_mtu),
      d_samples_per_packet(d.path_mtu / item_size(d.signal.format)),
      d_window(window_config(d, log ? destination : 0)),
      d_index(max_batch),
      d_zeros(max_batch),
      d_ack(max_batch)
{
    d_acks.clear(stream); // answers to a previous run mean nothing to this one
}

bool rc_requester::locate(uint64_t packet, location& out)
{
    if (!d_log) {
        out.message = packet / d_packets_per_message;
        out.first_packet = out.message * d_packets_per_message;
        out.packets = d_builder.packets_in(out.message);
        out.route = nullptr;
        return true;
    }
    if (!d_log->find(packet, d_found))
        return false;
    out.message = d_found.message;
    out.first_packet = d_found.first_packet;
    out.packets = d_found.packets;
    out.route = &d_found.route;
    return true;
}

uint64_t rc_requester::end_of(uint64_t message) const
{
    return message * d_packets_per_message + d_builder.packets_in(message);
}

void rc_requester::first_sent(uint64_t next_message, int64_t now_ns)
{
    uint64_t sent = 0, ack_upto = 0;
    if (d_log) {
        // Every message routed to a destination asks for an ACK (message_builder): a
        // destination's last message of a burst is not known when it leaves.
        sent = d_log->packets();
        if (sent <= d_window.sent())
            return;
        ack_upto = sent;
    } else {
        if (next_message <= d_first_unsent)
            return;
        for (uint64_t m = d_first_unsent; m < next_message; m++)
            if (d_builder.ack_requested(m))
                ack_upto = end_of(m);
        d_first_unsent = next_message;
        sent = end_of(next_message - 1);
    }
    if (d_rtt_packet == UINT64_MAX && ack_upto > 0 && ack_upto > d_window.sent()) {
        d_rtt_packet = ack_upto - 1;
        d_rtt_sent_ns = now_ns;
    }
    d_window.on_sent(sent, ack_upto, now_ns);
}

void rc_requester::sent_as_zeros(uint64_t message)
{
    uint64_t first = message * d_packets_per_message;
    uint64_t end = end_of(message);
    if (d_log) {
        destination_log::entry e;
        if (!d_log->newest(e) || e.message != message)
            return; // not this destination's
        first = e.first_packet;
        end = e.first_packet + e.packets;
    }
    for (uint64_t p = first; p < end; p++)
        report_substitution(p);
    flush_report();
    d_window.mark_zeros(first, end);
}

void rc_requester::poll(int64_t now_ns)
{
    rc_ack acks[max_acks_per_poll];
    size_t n;
    do {
        n = d_acks.poll(d_stream, acks, max_acks_per_poll, d_log ? d_destination : 0);
        for (size_t i = 0; i < n; i++)
            handle(acks[i], now_ns);
    } while (n == max_acks_per_poll);
    // After the answers: an ACK that waited in the socket is not a timeout.
    const uint64_t abandoned = d_window.abandoned();
    d_window.on_timer(now_ns);
    d_dest_stats.abandoned += d_window.abandoned() - abandoned;
}

void rc_requester::take_rtt_sample(int64_t now_ns)
{
    // The ACK that covers the packet timed: one sample, smoothed as TCP does (RFC 6298,
    // gain 1/8), so that one late ACK does not steer policy 2.
    if (d_rtt_packet == UINT64_MAX || d_window.acked() <= d_rtt_packet)
        return;
    const int64_t sample = std::max<int64_t>(now_ns - d_rtt_sent_ns, 1);
    const uint32_t ns = static_cast<uint32_t>(std::min<int64_t>(sample, UINT32_MAX));
    d_srtt_ns = d_rtt_samples == 0
                    ? ns
                    : static_cast<uint32_t>(int64_t(d_srtt_ns) +
                                            (int64_t(ns) - int64_t(d_srtt_ns)) / 8);
    d_srtt_ns = std::max<uint32_t>(d_srtt_ns, 1);
    d_rtt_samples++;
    d_rtt_packet = UINT64_MAX;
    d_dest_stats.rtt_ns = d_srtt_ns;
    d_dest_stats.rtt_samples = d_rtt_samples;
}

void rc_requester::handle(const rc_ack& a, int64_t now_ns)
{
    d_stats.acks_received++;
    const uint8_t type = a.syndrome & 0xE0;
    if (type == 0x00) { // ACK; the low bits are credits, which RDMA WRITE ignores
        d_window.on_ack(a.psn, now_ns);
        take_rtt_sample(now_ns);
        return;
    }
    // A NAK counts (and steers water filling's backoff) only if it names a packet
    // outstanding: one for a PSN acknowledged before or not sent yet is no NAK of
    // this stream's host, and a forgery must not throttle the stream.
    if (type == roce::syndrome::rnr_nak) {
        count_nak(
            d_window.on_rnr(a.psn, rnr_backoff_us[a.syndrome & 0x1F] * 1000, now_ns));
    } else if (a.syndrome == roce::syndrome::nak_psn_sequence) {
        count_nak(d_window.on_nak(a.psn, now_ns));
    } else if (type == 0x60) {
        // Invalid request, remote access or operational error: the host QP went to
        // ERROR (class C) and drops everything from now on. A host NAKs a packet it
        // received: one outstanding. Anything else is no NAK of this stream's host (a
        // forgery needs the PSN, not just the QPN), and must not end the stream.
        if (!d_window.outstanding(a.psn)) {
            d_stats.naks_ignored++;
            return;
        }
        d_dest_stats.naks++;
        d_failed = true;
    } // 0x40 and 0x80..0xFF are reserved syndromes: nothing to act on
}

void rc_requester::count_nak(retransmit_window::verdict v)
{
    if (v == retransmit_window::verdict::progress)
        d_dest_stats.naks++;
    else
        d_stats.naks_ignored++;
}

size_t rc_requester::build_resend(uint8_t* slots, size_t slot_bytes, outgoing_packet* out)
{
    const uint64_t end = d_window.sent();
    uint64_t next = d_window.resend_next();
    size_t n = 0;
    while (next < end && n < d_max_batch) {
        location at;
        if (!locate(next, at)) {
            // The log no longer knows the message (the host has not answered for
            // longer than it holds): the QP cannot go on without a hole.
            d_failed = true;
            break;
        }
        // One run: packets of one message, all held or all substituted.
        packetizer::resend r;
        r.message = at.message;
        r.first_packet = next - at.first_packet;
        r.zeros = !d_window.holds(next);
        r.route = at.route;
        const uint64_t limit =
            std::min(at.first_packet + at.packets, next + (d_max_batch - n));
        uint64_t run_end = next + 1;
        while (run_end < limit && d_window.holds(run_end) != r.zeros)
            run_end++;
        r.count = run_end - next;
        r.ack_last = run_end == end || n + r.count == d_max_batch;
        const size_t built =
            d_builder.rebuild(r, slots + n * slot_bytes, slot_bytes, out + n);
        if (built == 0)
            break; // cannot happen with message_builder: RC was validated at start
        for (size_t k = 0; k < built; k++) {
            d_index[n + k] = next + k;
            d_zeros[n + k] = r.zeros;
            d_ack[n + k] = out[n + k].ack_req;
        }
        n += built;
        next += built;
    }
    return n;
}

void rc_requester::resent(size_t sent, int64_t now_ns)
{
    if (sent == 0)
        return;
    for (size_t k = 0; k < sent; k++)
        if (d_zeros[k] && d_window.first_substitution(d_index[k]))
            report_substitution(d_index[k]);
    flush_report();
    d_dest_stats.retransmits += sent;
    d_rtt_packet = UINT64_MAX; // Karn: an ACK after a resend times neither send
    d_window.on_resent(d_index[sent - 1] + 1, d_ack[sent - 1] != 0, now_ns);
}

void rc_requester::report_substitution(uint64_t packet)
{
    location at;
    if (!locate(packet, at))
        return;
    const uint64_t in_message = (packet - at.first_packet) * d_samples_per_packet;
    const uint64_t first = at.message * d_builder.samples_per_message() + in_message;
    const uint64_t count =
        std::min(d_samples_per_packet, d_builder.samples_in(at.message) - in_message);
    d_stats.zero_substituted += count;
    // Consecutive packets are one event: fewer metadata datagrams, same information.
    if (d_report_count && d_report_first + d_report_count == first) {
        d_report_count += count;
        return;
    }
    flush_report();
    d_report_first = first;
    d_report_count = count;
}

void rc_requester::flush_report()
{
    if (d_report_count && d_metadata)
        d_metadata->event(
            d_stream, meta::event_code::zero_substituted, d_report_first, d_report_count);
    d_report_count = 0;
}

} // namespace emu
} // namespace rdma
} // namespace gr
