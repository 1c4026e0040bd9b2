/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the device's RC receive path: datagrams coming back to the link go
// through ack_receiver (parse, ICRC verdict, sort by QP) and their ACK/NAKs are applied
// to a retransmit_window, interleaved with sends, resends and timer runs. Sanitizers
// catch reads outside the input; abort() marks a broken invariant of the window.
//
// Input: byte 0 bit 0: the wire's ICRC verdict, bits 1..7: window capacity (packets);
// bytes 1..3: start PSN; byte 4: packets sent first; then records of
// [length byte][datagram of that length][action byte].

#include "emu/ack_receiver.h"
#include "emu/retransmit_window.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace gr::rdma;
using namespace gr::rdma::emu;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

//! A link that hands out one datagram at a time, with a fixed ICRC verdict.
class fuzz_wire : public wire
{
public:
    socket_address local_address() const override
    {
        return socket_address(0x7F000001, 4791);
    }
    unsigned mtu() const override { return 1500; }
    size_t send(outgoing_packet*, size_t count, const socket_address&) override
    {
        return count;
    }
    size_t receive(datagram* slots, size_t count) override
    {
        if (!pending || count == 0)
            return 0;
        pending = false;
        datagram& d = slots[0];
        d.truncated = length > d.capacity;
        d.length = d.truncated ? d.capacity : length;
        std::memcpy(d.data, data, d.length);
        d.peer = socket_address(0x7F000002, 5000);
        return 1;
    }
    bool icrc_ok(const datagram&) const override { return icrc_verdict; }

    bool icrc_verdict = true;
    bool pending = false;
    const uint8_t* data = nullptr;
    size_t length = 0;
};

void check(const retransmit_window& w)
{
    require(w.acked() <= w.sent());
    require(w.floor() <= w.sent() || w.sent() == 0);
    require(w.resend_next() >= w.acked() || w.all_acked());
    require(w.resend_next() <= w.sent());
    require(!w.all_acked() || !w.resend_pending());
    // The newest packet is always held (the probe), unless acknowledged or sent as zeros.
    if (!w.all_acked())
        require(w.holds(w.sent() - 1) || w.sent_as_zeros(w.sent() - 1));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 5)
        return 0;
    fuzz_wire link;
    link.icrc_verdict = data[0] & 1;
    ack_receiver acks(link, 2);
    retransmit_window::config c;
    c.capacity_packets = data[0] >> 1;
    c.start_psn = (uint32_t(data[1]) << 16) | (uint32_t(data[2]) << 8) | data[3];
    c.timeout_ns = 1000;
    retransmit_window w(c);
    int64_t now = 0;
    w.on_sent(data[4], data[4], now);
    check(w);

    size_t at = 5;
    while (at < size) {
        const size_t length = data[at++];
        link.data = data + at;
        link.length = std::min(length, size - at);
        link.pending = true;
        at += link.length;
        const uint8_t action = at < size ? data[at++] : 0;

        rc_ack got[4];
        const size_t n = acks.poll(action & 1, got, 4);
        require(n <= 4 && !link.pending);
        for (size_t i = 0; i < n; i++) {
            const uint8_t type = got[i].syndrome & 0xE0;
            if (type == 0x00)
                w.on_ack(got[i].psn, now);
            else if (type == 0x20)
                w.on_rnr(got[i].psn, 500, now);
            else if (got[i].syndrome == 0x60)
                w.on_nak(got[i].psn, now);
            check(w);
        }
        now += 100 * (action >> 5);
        switch ((action >> 1) & 0x0F) {
        case 0:
            w.on_sent(w.sent() + (action >> 5), w.sent() + (action >> 6), now);
            break;
        case 1:
            if (w.resend_pending() && !w.paused(now)) {
                const uint64_t p = w.resend_next();
                if (!w.holds(p))
                    w.first_substitution(p);
                w.on_resent(p + 1 + (action >> 6), action & 0x80, now);
            }
            break;
        case 2:
            w.mark_zeros(w.sent(), w.sent() + 1);
            w.on_sent(w.sent() + 1, 0, now);
            break;
        default:
            w.on_timer(now);
            break;
        }
        check(w);
    }
    require(acks.malformed() + acks.unknown_qp() + acks.overflowed() <= size);
    return 0;
}
