/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LINK_LIVENESS_H
#define INCLUDED_RDMA_STREAM_LINK_LIVENESS_H

#include "../regs/link_schedule.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * When the host declares a destination's link down (docs/links.md, "Failover"): its
 * frontier has not moved for the timeout while another destination's did (well into
 * that silence: half its timeout after it began), so that a
 * failure the device cannot see (the host's NIC, a cable on the host's side, a lossy
 * path) still moves its share. A destination that has not taken part yet, or that the
 * whole stream shares a silence with (a device that stalls, a reader that paused), is
 * never declared. Pure: the caller gives the time.
 */
class link_liveness
{
public:
    static constexpr unsigned max_destinations = regs::link_schedule::max_destinations;

    /*!
     * A run whose destinations are declared down after \p timeout_ns of silence (0:
     * never), and never before three of their notification intervals: immediates
     * every \p notify_interval messages (0: none, so never) of \p message_ns each.
     * Silence counts from \p from_ns at the earliest: now, or a run's first message
     * due later (a new run that starts ahead of the device's clock carries nothing
     * before).
     */
    void reset(int64_t timeout_ns,
               uint32_t notify_interval,
               int64_t message_ns,
               int64_t from_ns);
    /*!
     * A new epoch: which destinations take messages from now (weight > 0), and how
     * often each notifies (a destination of weight w of P carries a message every P/w
     * and notifies at most once a window). One that became active starts its timeout
     * now.
     */
    void on_epoch(const std::array<uint16_t, max_destinations>& weights, int64_t now_ns);
    //! Destination \p d's timeout in the current epoch (0: never declared).
    int64_t timeout_ns(unsigned d) const { return d_timeout_of.at(d); }
    //! Whether destination \p d was declared down and no epoch made it active since.
    bool declared(unsigned d) const
    {
        return d < max_destinations && (d_declared >> d) & 1;
    }
    /*!
     * The active destinations whose frontier has not moved for more than \p quiet_ns
     * while another active one's did (as of the last check(), whatever the timeout,
     * link_timeout=0 included), one bit each: what they did not deliver is lost, not
     * on its way.
     */
    uint32_t quiet(int64_t now_ns, int64_t quiet_ns) const;
    /*!
     * The destinations' frontiers at \p now_ns: the active destinations to declare down
     * now, one bit each, each once until an epoch makes it active again.
     */
    uint32_t check(const std::array<uint64_t, max_destinations>& frontier,
                   int64_t now_ns);

private:
    int64_t d_timeout_ns = 0;
    uint32_t d_notify_interval = 0;
    int64_t d_message_ns = 0;
    std::array<int64_t, max_destinations> d_timeout_of{};
    uint32_t d_active = 0;
    uint32_t d_declared = 0;
    std::array<uint64_t, max_destinations> d_frontier{};
    std::array<int64_t, max_destinations> d_moved_ns{}; // its frontier moved, or it joined
    std::array<int64_t, max_destinations> d_progressed_ns{}; // its frontier moved
    int64_t d_from_ns = 0;
};

} // namespace rdma
} // namespace gr

#endif
