/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_HANDOUT_PACING_H
#define INCLUDED_RDMA_STREAM_HANDOUT_PACING_H

#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * The defaults of payload= and notify= (docs/device-args.md, "Fast by default").
 *
 * Every notification the host receives becomes a hand-out: a work() of rx_source (a
 * recv()) and a wake-up of each block downstream. What a hand-out costs is fixed, so a
 * notification per fixed number of bytes makes the host's cost grow with the rate.
 * These defaults space notifications in time instead: one per `period_s` (1 ms, about
 * a thousand hand-outs a second, whatever the rate; shorter when the latency budget
 * is: a twentieth of it), in messages large enough that a notification spans at least
 * 16 of them (a message is one placeholder check). At low rates a message lasts
 * longer than the period: then every message notifies and a payload is the path MTU,
 * as it was.
 *
 * What it costs is latency, and at most the period plus one message: a sample waits
 * for the message that notifies after it. An explicit payload= or notify= wins.
 */
class handout_pacing
{
public:
    static constexpr double longest_period_s = 1e-3;
    static constexpr unsigned messages_per_period = 16;
    static constexpr uint32_t largest_payload = 65536;
    static constexpr unsigned most_packets = 16; // per message, of the path MTU
    static constexpr uint32_t largest_notify = 65536;

    //! A stream of \p byte_rate bytes a second with a budget of \p latency_budget_s.
    handout_pacing(double byte_rate, double latency_budget_s);

    //! The notification spacing aimed for, seconds.
    double period_s() const { return d_period; }
    //! Bytes per message: a power of two >= a sixteenth of a period's bytes, at least
    //! \p path_mtu (and \p item), at most 65536 and 16 packets (a packet lost loses
    //! its message whole: no more than 16 packets' worth).
    uint32_t payload_bytes(unsigned path_mtu, size_t item) const;
    //! Messages of \p payload bytes per notification: a period's worth, at least 1.
    uint32_t notify_interval(uint32_t payload) const;

private:
    double d_byte_rate;
    double d_period;
};

} // namespace rdma
} // namespace gr

#endif
