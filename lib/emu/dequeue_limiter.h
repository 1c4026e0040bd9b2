/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_DEQUEUE_LIMITER_H
#define INCLUDED_RDMA_EMU_DEQUEUE_LIMITER_H

#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The rate at which an RX stream's messages leave its FIFO (CTRL_RATE, the SCR knob:
 * docs/register-map.md, "Controller"). A virtual clock: message k may leave at
 * free_ns, and each one that leaves moves free_ns on by its bytes at the rate; a
 * stream that was idle may catch up by at most burst_ns of the rate. So over any
 * interval T at most rate x (T + burst_ns) bytes plus one message leave. What does not
 * leave waits in the FIFO, and overflows from it as any late message does
 * (RX_PACKETS_DROPPED): the limiter decides who waits, the FIFO who is lost.
 * No time of its own, no allocation; the engine's thread alone uses it.
 */
class dequeue_limiter
{
public:
    //! The catch-up allowance (the emulator wakes about every 50 us).
    static constexpr int64_t burst_ns = 1000000;

    //! Bytes per second; 0: no limit. Takes effect from \p now_ns on; bytes taken
    //! ahead of the old rate are owed at the new one.
    void set_rate(uint64_t bytes_per_s, int64_t now_ns);
    uint64_t rate() const { return d_rate; }
    //! How many messages of \p bytes may leave at \p now_ns (at most \p wanted).
    uint64_t allowed(int64_t now_ns, uint64_t bytes, uint64_t wanted) const;
    //! \p count messages of \p bytes left at \p now_ns.
    void take(int64_t now_ns, uint64_t bytes, uint64_t count);
    //! When the next message may leave (now_ns or earlier: now).
    int64_t next_ns() const { return d_free_ns; }

private:
    int64_t cost_ns(uint64_t bytes) const;

    uint64_t d_rate = 0;
    int64_t d_free_ns = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
