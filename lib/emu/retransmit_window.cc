/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "retransmit_window.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {
// Consecutive expiries double the timeout, up to this many times.
constexpr unsigned max_backoff_doublings = 8;
} // namespace

void retransmit_window::reset(const config& c)
{
    *this = retransmit_window();
    d_config = c;
    d_config.capacity_packets = std::max<uint64_t>(c.capacity_packets, 1);
}

bool retransmit_window::index_of(uint32_t psn, uint64_t& index) const
{
    if (d_sent == 0)
        return false;
    // How far behind the newest packet sent: PSNs ahead of it (half the PSN space)
    // and before the first packet name nothing the device sent.
    const uint64_t back = (psn_of(d_sent - 1) - psn) & psn_mask;
    if (back >= (psn_mask + 1) / 2 || back > d_sent - 1)
        return false;
    index = d_sent - 1 - back;
    return true;
}

void retransmit_window::advance_acked(uint64_t upto, int64_t now_ns)
{
    if (upto <= d_acked)
        return;
    d_acked = upto;
    d_resend_next = std::max(d_resend_next, d_acked); // never resend what the host has
    d_expiries = 0;
    d_probes = 0;
    d_nak_open = false;
    d_rnr_open = false;
    d_pause_until = INT64_MIN;
    d_timer_start = now_ns;
}

void retransmit_window::on_sent(uint64_t sent_upto,
                                uint64_t ack_requested_upto,
                                int64_t now_ns)
{
    if (sent_upto > d_sent) {
        // New packets leave only when nothing is pending, so the resend cursor follows.
        if (d_resend_next >= d_sent)
            d_resend_next = sent_upto;
        d_sent = sent_upto;
    }
    if (ack_requested_upto > d_ack_requested) {
        if (!timer_armed())
            d_timer_start = now_ns;
        d_ack_requested = std::min(ack_requested_upto, d_sent);
    }
}

void retransmit_window::on_resent(uint64_t resent_upto,
                                  bool ack_requested,
                                  int64_t now_ns)
{
    d_resend_next = std::max(d_resend_next, std::min(resent_upto, d_sent));
    if (ack_requested) {
        // The answer to this request is due a timeout from now.
        d_ack_requested = std::max(d_ack_requested, std::min(resent_upto, d_sent));
        d_timer_start = now_ns;
    }
}

retransmit_window::verdict retransmit_window::on_ack(uint32_t psn, int64_t now_ns)
{
    uint64_t index;
    if (!index_of(psn, index))
        return verdict::invalid;
    if (index + 1 <= d_acked)
        return verdict::stale;
    advance_acked(index + 1, now_ns);
    return verdict::progress;
}

retransmit_window::verdict retransmit_window::on_nak(uint32_t expected_psn,
                                                     int64_t now_ns)
{
    uint64_t index;
    if (!index_of(expected_psn, index))
        return verdict::invalid;
    if (index < d_acked)
        return verdict::stale;
    // During an RNR backoff the host NAKs the packets that followed the refused one:
    // the backoff already covers them.
    if (d_rnr_open && index == d_acked)
        return verdict::stale;
    advance_acked(index, now_ns); // a NAK acknowledges everything before it
    d_resend_next = index;        // go back N
    d_nak_open = true;
    d_expiries = 0;
    d_probes = 0;
    d_timer_start = now_ns;
    return verdict::progress;
}

retransmit_window::verdict
retransmit_window::on_rnr(uint32_t psn, int64_t backoff_ns, int64_t now_ns)
{
    uint64_t index;
    if (!index_of(psn, index))
        return verdict::invalid;
    if (index < d_acked)
        return verdict::stale;
    advance_acked(index, now_ns);
    d_resend_next = index;
    d_pause_until = now_ns + backoff_ns;
    d_rnr_open = true;
    d_nak_open = false;
    d_expiries = 0;
    d_timer_start = d_pause_until; // the timer does not run during the backoff
    return verdict::progress;
}

int64_t retransmit_window::next_deadline() const
{
    int64_t deadline = INT64_MAX;
    if (timer_armed())
        deadline = d_timer_start +
                   (d_config.timeout_ns << std::min(d_expiries, max_backoff_doublings));
    if (d_pause_until != INT64_MIN)
        deadline = std::min(deadline, d_pause_until);
    return deadline;
}

bool retransmit_window::on_timer(int64_t now_ns)
{
    if (paused(now_ns))
        return false;
    d_pause_until = INT64_MIN; // a backoff that ended is no deadline any more
    if (!timer_armed())
        return false;
    const int64_t timeout = d_config.timeout_ns
                            << std::min(d_expiries, max_backoff_doublings);
    if (now_ns - d_timer_start < timeout)
        return false;
    d_timer_start = now_ns;
    if (++d_expiries > d_config.retry_limit) {
        // The host stopped answering (gone, or its QP reset): give up on what is
        // outstanding rather than stall the stream; the host counts it as lost.
        d_abandoned += d_sent - d_acked;
        d_acked = d_sent;
        d_resend_next = d_sent;
        d_expiries = 0;
        d_probes = 0;
        d_nak_open = false;
        return true;
    }
    if (resend_pending())
        return true; // a retransmission is under way and asks for its own ACK
    if (d_nak_open) {
        d_resend_next = d_acked; // the resend the NAK asked for was lost
    } else if (d_probes < d_config.probe_limit) {
        d_probes++;
        d_resend_next = d_sent - 1; // the probe: the newest packet, always held
    } else {
        d_resend_next = d_acked; // probes unanswered: the host's NAK was lost
    }
    return true;
}

bool retransmit_window::first_substitution(uint64_t packet)
{
    if (packet < d_zeroed_upto || sent_as_zeros(packet))
        return false;
    d_zeroed_upto = packet + 1;
    return true;
}


void retransmit_window::mark_zeros(uint64_t first, uint64_t end)
{
    if (end <= first)
        return;
    if (d_zeros_count) {
        range& newest = d_zeros[(d_zeros_head + d_zeros_count - 1) % zero_ranges];
        if (newest.end == first) {
            newest.end = end; // overflow comes in runs: one range per run
            return;
        }
    }
    if (d_zeros_count == zero_ranges) {
        d_zeros_head = (d_zeros_head + 1) % zero_ranges;
        d_zeros_count--;
    }
    d_zeros[(d_zeros_head + d_zeros_count) % zero_ranges] = { first, end };
    d_zeros_count++;
}

bool retransmit_window::sent_as_zeros(uint64_t packet) const
{
    for (size_t i = 0; i < d_zeros_count; i++) {
        const range& r = d_zeros[(d_zeros_head + i) % zero_ranges];
        if (packet >= r.first && packet < r.end)
            return true;
    }
    return false;
}

} // namespace emu
} // namespace rdma
} // namespace gr
