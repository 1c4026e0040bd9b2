/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_EPOCH_SNAPSHOT_H
#define INCLUDED_RDMA_STREAM_EPOCH_SNAPSHOT_H

#include "../regs/link_fields.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {

//! What one read of a stream's epoch block says (docs/register-map.md, "RX epochs"),
//! as link_watch reads it and epoch_follower takes it. All of it is the device's word.
struct epoch_snapshot {
    static constexpr unsigned max_kept = 7; //!< EPOCH_KEPT is 1..7

    //! The schedule is fixed below this local message: every epoch that begins below
    //! it is in epochs[] (the next window boundary at or above EPOCH_SCHEDULED).
    uint64_t known_messages = 0;
    uint32_t epoch_count = 0; //!< EPOCH_COUNT: epochs begun in the run
    unsigned kept = 0;        //!< entries in epochs[], oldest first
    std::array<regs::epoch_values, max_kept> epochs{};
    uint32_t links_up = 0; //!< LINK_STATUS bit 0 of link n in bit n (last read)
    //! link_watch's run when it was read (continue_run() counts them): a snapshot of
    //! the run before is not the current run's word.
    uint32_t run = 0;
};

} // namespace rdma
} // namespace gr

#endif
