/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_report_gate.h"
#include <algorithm>

namespace gr {
namespace rdma {

bool tx_report_gate::gated(tx_event::kind k)
{
    using kind = tx_event::kind;
    return k == kind::underflow || k == kind::late || k == kind::time_error ||
           k == kind::burst_ack;
}

void tx_report_gate::count(const tx_event& e, totals& t) const
{
    using kind = tx_event::kind;
    switch (e.type) {
    case kind::underflow:
        t.underflow += e.count;
        break;
    case kind::late:
        t.late += e.count;
        break;
    case kind::time_error:
        t.dropped += e.count;
        t.time_errors += e.bursts;
        break;
    case kind::burst_ack:
        t.acks += e.bursts;
        break;
    default:
        break;
    }
}

bool tx_report_gate::covered(const tx_event& e, const tx_device_counters& c) const
{
    totals t = d_released;
    count(e, t);
    // TX_TIME_ERRORS and TX_BURSTS_DONE are 32-bit and wrap: compared by difference.
    auto within32 = [](uint64_t counter, uint64_t reported) {
        return static_cast<int32_t>(static_cast<uint32_t>(counter - reported)) >= 0;
    };
    switch (e.type) {
    case tx_event::kind::underflow:
        return t.underflow <= c.underflow_samples;
    case tx_event::kind::late:
        return t.late <= c.late_zero_samples;
    case tx_event::kind::time_error:
        return t.dropped <= c.dropped_samples && within32(c.time_errors, t.time_errors);
    case tx_event::kind::burst_ack:
        return within32(c.bursts_done, t.acks);
    default:
        return true;
    }
}

bool tx_report_gate::hold(const tx_event& e)
{
    if (!gated(e.type))
        return true;
    if (d_count == capacity) {
        // The oldest of its own kind goes (its counter never came): a flood of one
        // kind, forged, never pushes out another kind's reports. Holding none of its
        // kind, the new one goes.
        size_t oldest = 0;
        while (oldest < d_count && d_held[oldest].type != e.type)
            oldest++;
        if (oldest == d_count) {
            d_excess += e.count;
            return false;
        }
        d_excess += d_held[oldest].count;
        remove(oldest);
    }
    d_held[d_count++] = e;
    return false;
}

void tx_report_gate::abandon() { drop_held(); }

bool tx_report_gate::release(const tx_device_counters& c, tx_event& out)
{
    // The first held report the counters cover, none of its kind waiting before it:
    // a kind keeps its order, and one forged report holds back only its own kind.
    uint32_t blocked = 0; // bit k: a report of kind k waits
    for (size_t i = 0; i < d_count; i++) {
        const uint32_t bit = 1u << static_cast<unsigned>(d_held[i].type);
        if (!(blocked & bit) && covered(d_held[i], c)) {
            out = d_held[i];
            count(out, d_released);
            remove(i);
            return true;
        }
        blocked |= bit;
    }
    return false;
}

void tx_report_gate::drop_held()
{
    for (size_t i = 0; i < d_count; i++)
        d_excess += d_held[i].count;
    d_count = 0;
}

size_t tx_report_gate::settle(const tx_device_counters& c, tx_event* out)
{
    drop_held();
    size_t n = 0;
    auto add = [&](tx_event::kind k, uint64_t count, uint32_t bursts) {
        if (!count && !bursts)
            return;
        tx_event& e = out[n++];
        e = tx_event{};
        e.type = k;
        e.count = count;
        e.bursts = bursts;
        e.unattributed = true;
    };
    // Released never exceeds the counters (release() keeps it so).
    auto rest = [](uint64_t counter, uint64_t released) {
        return counter > released ? counter - released : 0;
    };
    // TX_BURSTS_DONE and TX_TIME_ERRORS are 32-bit registers: they wrap.
    auto bursts = [](uint64_t counter, uint64_t released) {
        const int32_t d = static_cast<int32_t>(static_cast<uint32_t>(counter - released));
        return d > 0 ? static_cast<uint32_t>(d) : 0u;
    };
    add(tx_event::kind::underflow, rest(c.underflow_samples, d_released.underflow), 0);
    add(tx_event::kind::late, rest(c.late_zero_samples, d_released.late), 0);
    add(tx_event::kind::time_error,
        rest(c.dropped_samples, d_released.dropped),
        bursts(c.time_errors, d_released.time_errors));
    add(tx_event::kind::burst_ack, 0, bursts(c.bursts_done, d_released.acks));
    for (size_t i = 0; i < n; i++)
        count(out[i], d_released);
    return n;
}

void tx_report_gate::remove(size_t i)
{
    std::copy(d_held.begin() + i + 1, d_held.begin() + d_count, d_held.begin() + i);
    d_count--;
}

} // namespace rdma
} // namespace gr
