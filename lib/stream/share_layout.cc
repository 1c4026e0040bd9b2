/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "share_layout.h"
#include <algorithm>

namespace gr {
namespace rdma {

share_layout::share_layout(unsigned share,
                           unsigned shares,
                           uint64_t block_messages,
                           uint64_t message_items)
    : d_share(share),
      d_shares(shares),
      d_block_messages(block_messages),
      d_block_items(block_messages * message_items)
{
}

uint64_t share_layout::local_below(uint64_t stream_samples) const
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

uint64_t share_layout::stream_sample(uint64_t local) const
{
    if (!split())
        return local;
    return local / d_block_items * d_block_items * d_shares + d_share * d_block_items +
           local % d_block_items;
}

uint64_t share_layout::run_from(uint64_t local) const
{
    if (!split())
        return UINT64_MAX - local;
    return d_block_items - local % d_block_items;
}

} // namespace rdma
} // namespace gr
