/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_SHARE_LAYOUT_H
#define INCLUDED_RDMA_STREAM_SHARE_LAYOUT_H

#include <algorithm>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Which samples of a stream one host receives when the stream is split over several
 * hosts (docs/links.md, "Several hosts"): message m belongs to share
 * floor(m / block) mod shares, and each host sees its share's samples as one dense
 * sequence of local samples. This converts between the stream's samples (the device's
 * clock, its counters, the test signal) and one share's local samples (the host's
 * ring, its loss accounting). With one share both are the same.
 *
 * Pure arithmetic, no allocation: usable on the data path. Inline: the blocks library
 * (ramp_check) uses it too, and the transport library exports its public API only.
 */
class share_layout
{
public:
    share_layout() = default;
    //! Share \p share of \p shares, blocks of \p block_messages messages of
    //! \p message_items samples. Callers check the ranges (share_plan).
    share_layout(unsigned share,
                 unsigned shares,
                 uint64_t block_messages,
                 uint64_t message_items)
        : d_share(share),
          d_shares(shares),
          d_block_messages(block_messages),
          d_block_items(block_messages * message_items)
    {
    }

    unsigned share() const { return d_share; }
    unsigned shares() const { return d_shares; }
    uint64_t block_messages() const { return d_block_messages; }
    //! Samples per block: the unit in which shares take turns.
    uint64_t block_items() const { return d_block_items; }
    bool split() const { return d_shares > 1; }

    //! How many of the stream's first \p stream_samples samples are this share's.
    uint64_t local_below(uint64_t stream_samples) const
    {
        if (!split())
            return stream_samples;
        const uint64_t round = d_block_items * d_shares; // every share's block once
        const uint64_t into = stream_samples % round;
        const uint64_t mine_from = d_share * d_block_items;
        const uint64_t partial =
            into <= mine_from ? 0 : std::min(into - mine_from, d_block_items);
        return stream_samples / round * d_block_items + partial;
    }
    //! The stream sample of this share's local sample \p local.
    uint64_t stream_sample(uint64_t local) const
    {
        if (!split())
            return local;
        return local / d_block_items * d_block_items * d_shares +
               d_share * d_block_items + local % d_block_items;
    }
    //! Local samples from \p local to the end of its block (>= 1): the run of local
    //! samples that are consecutive in the stream too.
    uint64_t run_from(uint64_t local) const
    {
        return split() ? d_block_items - local % d_block_items : UINT64_MAX - local;
    }

private:
    unsigned d_share = 0;
    unsigned d_shares = 1;
    uint64_t d_block_messages = 1;
    uint64_t d_block_items = UINT64_MAX / 16; // one share: every sample is its own
};

} // namespace rdma
} // namespace gr

#endif
