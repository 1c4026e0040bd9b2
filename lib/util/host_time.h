/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_HOST_TIME_H
#define INCLUDED_RDMA_UTIL_HOST_TIME_H

#include <cstdint>

namespace gr {
namespace rdma {

//! The host's wall clock, ns since the epoch: the clock device time offsets refer to.
int64_t host_time_ns();

} // namespace rdma
} // namespace gr

#endif
