/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_POLL_WAIT_H
#define INCLUDED_RDMA_UTIL_POLL_WAIT_H

#include <poll.h>
#include <chrono>

namespace gr {
namespace rdma {

//! ppoll() with a microsecond timeout (<= 0: do not block). Returns the number of
//! ready descriptors; 0 on timeout or EINTR; throws on other errors.
int poll_wait(pollfd* fds, nfds_t count, std::chrono::microseconds timeout);

} // namespace rdma
} // namespace gr

#endif
