/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_SHARE_ARGS_H
#define INCLUDED_RDMA_STREAM_SHARE_ARGS_H

#include "../util/device_args.h"
#include <cstdint>
#include <set>
#include <string>

namespace gr {
namespace rdma {

/*!
 * What a host taking one share of a stream split over several hosts asks for
 * (docs/links.md, "Several hosts"): share=h/H (this host takes share h of H),
 * share_block= (messages per block, the unit in which shares take turns, default 16)
 * and share_wait= (seconds to wait for the other hosts, default 10). Without share=
 * the stream is this host's alone.
 */
struct share_plan {
    static constexpr unsigned max_shares = 8;

    unsigned share = 0;
    unsigned shares = 1;
    uint32_t block = 16;
    double wait_s = 10;

    bool split() const { return shares > 1; }
    //! Share 0's host owns the stream and starts it; the others follow its run.
    bool leads() const { return share == 0; }
    //! "share 1 of 2", as messages name it.
    std::string name() const;

    /*!
     * \throws std::invalid_argument naming the key and the fix: share= not "h/H"
     * with 0 <= h < H <= 8, share_block= outside 1..65536, share_wait= outside
     * 0.1..3600 s, share_block= or share_wait= without share=.
     */
    static share_plan from_args(const device_args& args);
    //! The keys from_args() reads.
    static const arg_table& keys();
};

} // namespace rdma
} // namespace gr

#endif
