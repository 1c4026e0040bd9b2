/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RING_RING_SIZING_H
#define INCLUDED_RDMA_RING_RING_SIZING_H

#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

//! The page size the rings use when they use hugepages (MFD_HUGE_2MB).
constexpr size_t ring_hugepage_bytes = size_t(2) << 20;

//! GNU Radio keeps buffer sizes in unsigned int (d_bufsize) and hands them to work() as
//! int (noutput_items), so a ring must hold fewer than 2^31 items.
constexpr size_t max_ring_items = size_t(INT32_MAX);

//! sysconf(_SC_PAGESIZE): the granularity of ordinary mappings (4096 on x86-64).
size_t system_page_size();

//! The default hugepage size from /proc/meminfo (Hugepagesize), in bytes; 0 when the
//! kernel has no hugetlb support. This is the pool vm.nr_hugepages resizes.
size_t default_hugepage_size();

/*!
 * Size quantum of a ring: the least common multiple of the page size (the mapping
 * granularity) and the granule (e.g. packet payload bytes, so that packets never straddle
 * the wrap). Throws std::invalid_argument when either is zero or the result overflows.
 */
size_t ring_granularity(size_t page, size_t granule);

//! \p bytes rounded up to a multiple of \p unit; throws std::invalid_argument on
//! overflow.
size_t round_up_bytes(size_t bytes, size_t unit);

/*!
 * Ring size in bytes for a stream: enough for \p latency_budget_s seconds at
 * \p sample_rate items/s of \p item_size bytes, at least one \p granule, rounded up to a
 * multiple of lcm(\p page, \p granule).
 *
 * Throws std::invalid_argument naming the offending input for a rate or budget that is
 * not positive and finite, an item size of 0, a granule that is not a multiple of the
 * item size, or a ring of 2^31 items or more (the message names the largest budget that
 * fits).
 */
size_t ring_bytes_for(double sample_rate,
                      size_t item_size,
                      double latency_budget_s,
                      size_t granule,
                      size_t page);

} // namespace rdma
} // namespace gr

#endif
