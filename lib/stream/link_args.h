/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LINK_ARGS_H
#define INCLUDED_RDMA_STREAM_LINK_ARGS_H

#include "../regs/link_schedule.h"
#include "../util/device_args.h"
#include <cstdint>
#include <set>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * What a stream spread over several links asks for (docs/links.md, "Host side"):
 * destination d is reached over device link d (links=N: links 0..N-1), with the
 * weight weights= gives it (else the link's LINK_WEIGHT, read from the device), at the
 * NIC nic_addr= names for it: one address for every destination, or one per
 * destination separated by '+' (nic_addr=A+B: several soft NICs; ',' separates device
 * args, ':' a port, so neither can separate addresses).
 *
 * Without links= a stream has one destination, destination 0, and nic_addr= keeps its
 * meaning of today (nic_config reads it).
 */
struct link_plan {
    static constexpr unsigned max_links = regs::link_schedule::max_destinations;

    unsigned links = 1;
    //! Per destination; empty: each link's LINK_WEIGHT.
    std::vector<uint16_t> weights;
    //! Per destination (IPv4, host order); empty: the one NIC of nic_config.
    std::vector<uint32_t> nic_addresses;

    //! link_timeout= (ms): a destination silent this long while others progress is
    //! declared down by the host; 0: never.
    unsigned link_timeout_ms = 20;
    //! link_retry= (ms): a link the host declared down is tried again after this.
    unsigned link_retry_ms = 1000;

    //! An emulator fault at a stream time (emu_link_down=, emu_link_loss=).
    struct link_fault {
        enum class kind { down, loss } what = kind::down;
        unsigned link = 0;
        double from_s = 0;
        double until_s = -1; //!< < 0: to the end of the run
    };
    std::vector<link_fault> faults;
    //! emu_link_delay_us=, emu_link_reorder_us= (per link; empty: untouched).
    std::vector<uint32_t> emu_delay_us;
    std::vector<uint32_t> emu_reorder_us;

    bool several() const { return links > 1; }

    /*!
     * \throws std::invalid_argument naming the key and the fix: links outside 1..8,
     * weights= or nic_addr= with a count that is not links= (or 1 for nic_addr=),
     * weights that add up to 0 or more than one schedule period (1024), weights= or
     * several addresses without links=, link_timeout= outside 0 or 2..10000 ms,
     * a fault that names no link of links= or whose times are not from < until.
     */
    static link_plan from_args(const device_args& args);
    //! The keys from_args() reads.
    static const arg_table& keys();
};

} // namespace rdma
} // namespace gr

#endif
