/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_LINK_SCHEDULE_H
#define INCLUDED_RDMA_REGS_LINK_SCHEDULE_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace regs {

/*!
 * Where each message of a stream goes when it is spread over several destinations
 * (host QPs over device links) and hosts: the schedule of docs/links.md, a pure
 * function that the device and every host compute alike, so that a host knows which
 * link carried a message it lost and which notification makes it final.
 *
 * Shares: message m belongs to share (m / block) mod shares, whose hosts see it as
 * local index i (dense per share). Within a share, an epoch fixes the destinations'
 * weights from its first local index on; local message i goes to the destination that
 * smooth weighted round-robin picks at step i - first. SWRR is periodic with the sum
 * of the weights, so one period is precomputed and every lookup is O(1).
 *
 * Fixed size, no allocation after construction: usable on the data path.
 */
class link_schedule
{
public:
    static constexpr unsigned max_destinations = 8;
    //! The largest sum of the weights of one epoch: one period of its pattern.
    static constexpr unsigned max_period = 1024;
    static constexpr uint8_t none = 0xFF;

    //! \throws std::invalid_argument naming the limit for shares 0 or > 8, block 0.
    link_schedule(unsigned shares = 1, uint64_t block = 16);

    unsigned shares() const { return d_shares; }
    uint64_t block() const { return d_block; }
    unsigned share_of(uint64_t m) const;
    uint64_t local_index(uint64_t m) const;
    //! The stream message of share \p h's local index \p i (inverse of the two above).
    uint64_t stream_message(unsigned h, uint64_t i) const;

    /*!
     * A new epoch from local index \p first on, with weights per destination (0:
     * takes nothing, as an inactive destination). \p first must be a multiple of
     * \p notify_interval (epochs begin at notification window boundaries, so every
     * window's notifications follow one pattern) and not below the current epoch's.
     * \throws std::invalid_argument naming what to change.
     */
    void begin_epoch(uint64_t first,
                     const std::array<uint16_t, max_destinations>& weights,
                     uint32_t notify_interval);

    uint64_t epoch_first() const { return d_first; }
    //! The destination of local message \p i (i >= epoch_first()), or none if no
    //! destination has weight.
    uint8_t destination_of(uint64_t i) const;
    /*!
     * Whether local message \p i goes WITH IMMEDIATE: it is the last message its
     * destination carries in its notification window [wN, (w+1)N), or the last of
     * its destination before \p end (a finite burst's end in local messages; 0: none).
     * N = 0: only the latter.
     */
    bool carries_immediate(uint64_t i, uint32_t notify_interval, uint64_t end = 0) const;
    //! Messages of one pattern period that go to destination \p d.
    unsigned weight_of(unsigned d) const
    {
        return d < max_destinations ? d_weights[d] : 0;
    }
    unsigned period() const { return d_period; }

private:
    unsigned d_shares;
    uint64_t d_block;
    uint64_t d_first = 0;
    unsigned d_period = 0;
    std::array<uint16_t, max_destinations> d_weights{};
    std::array<uint8_t, max_period> d_pattern{};
    //! Steps from a pattern position to the next one of the same destination.
    std::array<uint16_t, max_period> d_next_same{};
};

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
