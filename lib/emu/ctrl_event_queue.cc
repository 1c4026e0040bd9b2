/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ctrl_event_queue.h"

namespace gr {
namespace rdma {
namespace emu {

unsigned ctrl_event_queue::queue_of(unsigned stream, unsigned link)
{
    if (stream >= ctrl_max_streams || link >= ctrl_max_links)
        return ctrl_max_queues;
    return stream * ctrl_max_links + link;
}

unsigned ctrl_event_queue::tx_queue_of(unsigned t)
{
    return t < ctrl_max_tx_streams ? ctrl_rx_queues + t : ctrl_max_queues;
}

void ctrl_event_queue::post(const ctrl_event& e)
{
    const unsigned kind = unsigned(e.kind);
    const bool tx = ctrl_tx_kind(e.kind);
    const unsigned link = ctrl_stream_kind(e.kind) || tx ? 0 : e.link;
    const unsigned q = tx ? tx_queue_of(e.stream) : queue_of(e.stream, link);
    if (kind >= ctrl_kinds || q == ctrl_max_queues) {
        d_rejected++;
        return;
    }
    d_events++;
    slot& s = d_slots[q];
    if (s.pending) {
        d_coalesced++;
    } else {
        s.pending = true;
        s.r.stream = e.stream;
        s.r.link = uint8_t(link);
        s.r.present = 0;
        d_order[d_pending++] = uint16_t(q);
    }
    s.r.present |= uint8_t(1u << kind);
    s.r.value[kind] = e.value;
}

size_t ctrl_event_queue::take(ctrl_record* out)
{
    const size_t n = d_pending;
    for (size_t i = 0; i < n; i++) {
        slot& s = d_slots[d_order[i]];
        out[i] = s.r;
        s.pending = false;
    }
    d_pending = 0;
    d_processed += n;
    return n;
}

void ctrl_event_queue::reset() { *this = ctrl_event_queue(); }

} // namespace emu
} // namespace rdma
} // namespace gr
