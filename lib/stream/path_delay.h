/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PATH_DELAY_H
#define INCLUDED_RDMA_STREAM_PATH_DELAY_H

#include <array>
#include <atomic>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * The host's measure of each destination's path (docs/links.md, "Host feedback"), for
 * the device's shortest-RTT policy: how long after the device produced the last sample
 * of a message the host saw its notification (the wire, the NIC and this host's polling
 * together; the device clock's offset is the same for every destination, so they
 * compare), smoothed by 1/8 per notification as TCP smooths its RTT.
 *
 * And when to tell the device (DST_PATH_NS): at most every tell_period_ns, and only when
 * the measure moved by more than 1/tell_change of what the device was last told: its
 * weights, and so its epochs, change rarely. The data path calls on_notification(); one
 * other thread (link_watch's) calls due(). No allocation, no lock.
 */
class path_delay
{
public:
    static constexpr unsigned max_destinations = 8;
    static constexpr int64_t tell_period_ns = 100000000;
    static constexpr int64_t tell_change = 8;

    path_delay() { reset(); }
    //! A new run: nothing measured, nothing told.
    void reset();
    //! Destination \p d's notification came \p delay_ns after its last sample was
    //! produced (a negative delay, a clock estimate off by more than the path, counts
    //! as 1 ns).
    void on_notification(unsigned d, int64_t delay_ns);
    //! The smoothed measure of \p d, ns; 0: none yet.
    uint32_t measured(unsigned d) const;
    //! Whether \p d's measure is to be told now (at \p now_ns); then \p ns is it.
    bool due(unsigned d, int64_t now_ns, uint32_t& ns);

private:
    // Written by the data path only; 0: none yet.
    std::array<std::atomic<uint32_t>, max_destinations> d_smoothed{};
    // due()'s own.
    std::array<uint32_t, max_destinations> d_told{};
    std::array<int64_t, max_destinations> d_told_at{};
};

} // namespace rdma
} // namespace gr

#endif
