/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PATH_LATENESS_H
#define INCLUDED_RDMA_STREAM_PATH_LATENESS_H

#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * How much later than the grace the path from the device to the ring runs: the clock
 * declares nothing lost until this much longer has passed (docs/loss-accounting.md),
 * so that a message that is only late is not zero-filled, nor its slot re-armed for
 * the next lap before it lands over the mark. Two witnesses:
 *  - a notification seen later than the clock allowed: the device, the wire or the NIC
 *    ran late by that much;
 *  - this host oversleeping: a wait that returns long after it was due means the host
 *    did not run meanwhile, and neither did what shares it (a software NIC; every
 *    kernel queue of a virtual machine that stalled): packets in flight may be that
 *    late too.
 * Up at once, down slowly (1 % per notification or punctual wake); at most `most`.
 */
class path_lateness
{
public:
    //! \p most_ns: the most the clock may be held back (a share of the ring's span).
    explicit path_lateness(int64_t most_ns = 0) : d_most(most_ns) {}

    //! A new run: nothing is known to be late.
    void reset(int64_t most_ns)
    {
        d_most = most_ns;
        d_late = 0;
    }
    //! A notification arrived \p late_ns after the clock allowed (negative: in time).
    void on_notification(int64_t late_ns);
    //! A wait due to end at host time \p due_ns ended at \p now_ns.
    void on_wake(int64_t due_ns, int64_t now_ns);

    int64_t late_ns() const { return d_late; }

private:
    void raise(int64_t late_ns);

    int64_t d_most;
    int64_t d_late = 0;
};

} // namespace rdma
} // namespace gr

#endif
