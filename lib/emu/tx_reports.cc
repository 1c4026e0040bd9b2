/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../meta/metadata_packet.h"
#include "tx_reports.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

void tx_report_limiter::reset() { d_slots = {}; }

void tx_report_limiter::add(const tx_report& r)
{
    if (r.code < first_code || r.code >= first_code + codes)
        return;
    slot& s = d_slots[r.code - first_code];
    if (!s.waiting) {
        s.waiting = true;
        s.r = r;
        return;
    }
    // Merged: the first sample and time stay; the values add up.
    if (r.code == meta::event_code::tx_lead)
        s.r.value = r.value; // a state, not a count: the latest
    else if (r.code != meta::event_code::tx_time_error)
        s.r.value += r.value;
}

size_t tx_report_limiter::take(int64_t now_ns, tx_report* out, size_t max, bool all)
{
    size_t n = 0;
    for (slot& s : d_slots) {
        if (n == max)
            break;
        if (!s.waiting || (!all && s.sent && now_ns - s.last_ns < interval_ns))
            continue;
        out[n++] = s.r;
        s.waiting = false;
        s.sent = true;
        s.last_ns = now_ns;
    }
    return n;
}

int64_t tx_report_limiter::next_due() const
{
    int64_t due = INT64_MAX;
    for (const slot& s : d_slots)
        if (s.waiting)
            due = std::min(due, s.sent ? s.last_ns + interval_ns : INT64_MIN);
    return due;
}

} // namespace emu
} // namespace rdma
} // namespace gr
