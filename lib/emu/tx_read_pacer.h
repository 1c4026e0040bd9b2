/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_READ_PACER_H
#define INCLUDED_RDMA_EMU_TX_READ_PACER_H

#include "ctrl_sink.h"
#include "dequeue_limiter.h"
#include <atomic>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * What holds one TX stream's sample READs to the controller's CTRL_TX_RATE
 * (docs/register-map.md, "TX streams' READs"), and what the controller hears of its
 * re-reads: they take the link's room too, so each is charged as a whole message (an
 * upper bound), and their count goes to the controller once per engine pass at most,
 * on a change (the controller keeps the latest). The engine's thread alone uses it;
 * no allocation.
 */
class tx_read_pacer
{
public:
    //! Sample bytes per second, 0: no limit (CTRL_TX_RATE); null: never limited.
    void set_rate_source(const std::atomic<uint64_t>* bytes_per_s)
    {
        d_rate_source = bytes_per_s;
    }
    //! Who hears of TX stream \p stream's re-reads (null: nobody).
    void set_ctrl_sink(ctrl_sink* sink, unsigned stream)
    {
        d_sink = sink;
        d_stream = stream;
    }
    //! A new run: no credit and no debt; its requester counts re-reads from 0.
    void reset();

    //! A pass begins at \p now_ns: the rate now, and the re-reads (\p rereads so far,
    //! of messages of \p message_bytes) since the last pass charged.
    void begin_pass(int64_t now_ns, uint64_t rereads, uint64_t message_bytes);
    bool limited() const { return d_limiter.rate() != 0; }
    //! A READ of \p bytes may go at \p now_ns (always, unlimited).
    bool allows(int64_t now_ns, uint64_t bytes) const
    {
        return !limited() || d_limiter.allowed(now_ns, bytes, 1) != 0;
    }
    //! When the next READ may go.
    int64_t next_ns() const { return d_limiter.next_ns(); }
    //! A READ of \p bytes went at \p now_ns.
    void took(int64_t now_ns, uint64_t bytes);
    //! The pass ends with \p rereads so far: the controller hears of a change.
    void report(uint64_t rereads);

private:
    const std::atomic<uint64_t>* d_rate_source = nullptr;
    ctrl_sink* d_sink = nullptr;
    unsigned d_stream = 0;
    dequeue_limiter d_limiter;
    uint64_t d_rereads_charged = 0;  // re-reads the limiter has taken
    uint64_t d_rereads_reported = 0; // last told to d_sink
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
