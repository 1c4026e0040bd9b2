/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_LINK_SCHEDULE_H
#define INCLUDED_RDMA_REGS_LINK_SCHEDULE_H

#include <gnuradio/rdma/transport_api.h>
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
 * The last max_epochs epochs are kept: a host still needs the previous epoch's
 * pattern for messages sent before the change that are not final yet.
 *
 * Fixed size, no allocation after construction: usable on the data path.
 */
class RDMA_TRANSPORT_API link_schedule
{
public:
    static constexpr unsigned max_destinations = 8;
    //! The largest sum of the weights of one epoch: one period of its pattern.
    static constexpr unsigned max_period = 1024;
    static constexpr uint8_t none = 0xFF;
    //! Epochs remembered: messages of older ones have no destination any more.
    static constexpr unsigned max_epochs = 4;

    //! \throws std::invalid_argument naming the limit for shares 0 or > 8, block 0.
    link_schedule(unsigned shares = 1, uint64_t block = 16);

    unsigned shares() const { return d_shares; }
    uint64_t block() const { return d_block; }
    unsigned share_of(uint64_t m) const;
    uint64_t local_index(uint64_t m) const;
    //! The stream message of share \p h's local index \p i (inverse of the two above).
    uint64_t stream_message(unsigned h, uint64_t i) const;
    //! Messages of share \p h among stream messages 0 .. \p n - 1: the local index
    //! its next message will have (a finite burst's end in share h's messages).
    uint64_t local_count(unsigned h, uint64_t n) const;

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

    //! The first local message of the newest epoch.
    uint64_t epoch_first() const;
    //! Epochs begun (the newest max_epochs are kept).
    uint64_t epochs() const { return d_epochs; }
    //! The destination of local message \p i, by the epoch it was sent in; none if no
    //! destination had weight then, or \p i is older than the epochs kept.
    uint8_t destination_of(uint64_t i) const;
    /*!
     * Whether local message \p i goes WITH IMMEDIATE: it is the last message its
     * destination carries in its notification window [wN, (w+1)N), or the last of
     * its destination before \p end (a finite burst's end in local messages; 0: none).
     * N = 0: only the latter.
     */
    bool carries_immediate(uint64_t i, uint32_t notify_interval, uint64_t end = 0) const;
    //! The newest epoch's weight of destination \p d: its messages per period.
    unsigned weight_of(unsigned d) const;
    //! The newest epoch's period: the sum of its weights.
    unsigned period() const;

private:
    struct epoch {
        uint64_t first = 0;
        unsigned period = 0;
        std::array<uint16_t, max_destinations> weights{};
        std::array<uint8_t, max_period> pattern{};
        //! Steps from a pattern position to the next one of the same destination.
        std::array<uint16_t, max_period> next_same{};
    };
    //! The epoch local message \p i was sent in, or null.
    const epoch* epoch_of(uint64_t i) const;
    const epoch& newest() const
    {
        return d_ring[(d_epochs + max_epochs - 1) % max_epochs];
    }

    unsigned d_shares;
    uint64_t d_block;
    std::array<epoch, max_epochs> d_ring{};
    uint64_t d_epochs = 0;
};

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
