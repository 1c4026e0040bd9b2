/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_SETTLE_CHECK_H
#define INCLUDED_RDMA_STREAM_SETTLE_CHECK_H

#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Whether a message's packets can still land, where one frontier cannot tell: a stream
 * over several destinations, each an in-order path of its own, whose notifications
 * settle their own messages only (loss_tracker::on_progress, destination_progress).
 */
class settle_check
{
public:
    virtual ~settle_check() = default;
    //! True once no packet of message \p message can land any more.
    virtual bool settled(uint64_t message) const = 0;
};

} // namespace rdma
} // namespace gr

#endif
