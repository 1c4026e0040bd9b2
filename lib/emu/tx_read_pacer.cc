/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_read_pacer.h"

namespace gr {
namespace rdma {
namespace emu {

void tx_read_pacer::reset()
{
    d_limiter = dequeue_limiter();
    d_rereads_charged = 0;
    d_rereads_reported = 0; // the controller's new start
}

void tx_read_pacer::begin_pass(int64_t now_ns, uint64_t rereads, uint64_t message_bytes)
{
    if (d_rate_source)
        d_limiter.set_rate(d_rate_source->load(std::memory_order_relaxed), now_ns);
    // Over any interval the READs with their re-reads keep to the rate.
    if (limited() && rereads > d_rereads_charged)
        d_limiter.take(now_ns, message_bytes, rereads - d_rereads_charged);
    d_rereads_charged = rereads;
}

void tx_read_pacer::took(int64_t now_ns, uint64_t bytes)
{
    if (limited())
        d_limiter.take(now_ns, bytes, 1);
}

void tx_read_pacer::report(uint64_t rereads)
{
    if (!d_sink || rereads == d_rereads_reported)
        return;
    d_rereads_reported = rereads;
    d_sink->rereads(d_stream, rereads);
}

} // namespace emu
} // namespace rdma
} // namespace gr
