/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_RING_ARGS_H
#define INCLUDED_RDMA_STREAM_RING_ARGS_H

#include "../ring/ring_memory.h"
#include "../util/device_args.h"
#include <cstddef>

namespace gr {
namespace rdma {

/*!
 * The ring's part of the device args (docs/device-args.md, "Ring memory"), the same
 * for RX and TX: latency= sizes it, hugepages= and numa= place it.
 */
struct ring_args {
    static const arg_table& keys();

    double latency_s = 0.1; //!< seconds of samples the ring holds
    hugepage_mode hugepages = hugepage_mode::automatic;
    //! numa=: a node, or one of these.
    static constexpr int numa_auto = -2, numa_off = -1;
    int numa = numa_auto;

    static ring_args from_args(const device_args& args);
    /*!
     * The placement asked for (numa=auto: \p nic_numa_node, the node of the NIC that
     * writes or reads the ring); the caller sizes it (min_bytes, granule).
     */
    ring_options placement(int nic_numa_node) const;
    //! The page the ring of \p options is mapped in, to size it in whole pages.
    static size_t page_bytes(const ring_options& options);
};

} // namespace rdma
} // namespace gr

#endif
