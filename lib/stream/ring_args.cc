/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../ring/ring_sizing.h"
#include "ring_args.h"

namespace gr {
namespace rdma {

const arg_table& ring_args::keys()
{
    // At most a minute: the ring holds the whole budget (60 s at 20 MS/s sc16 is
    // already 4.8 GB), and grace= must fit in half of it.
    // Linux numbers at most 1024 NUMA nodes (CONFIG_NODES_SHIFT <= 10).
    // clang-format off
    static const arg_table t("ring", {
        arg_key::number("latency", 0.001, 60, "0.1", "seconds", "seconds of samples the ring holds: the host's latency budget"),
        arg_key::choice("hugepages", { "auto", "on", "off" }, "auto", "map the ring in 2 MiB pages: auto (if available), on (required), off"),
        arg_key::integer("numa", 0, 1023, "auto", "auto, off or a NUMA node", "the NUMA node of the ring's memory: auto (the NIC's), off, or a node").depending("auto, off, 0…1023"),
    });
    // clang-format on
    return t;
}

ring_args ring_args::from_args(const device_args& args)
{
    const arg_table& k = keys();
    ring_args r;
    r.latency_s = args.get_double(k["latency"]);
    const std::string huge = args.get_choice(k["hugepages"]);
    r.hugepages = huge == "on"    ? hugepage_mode::required
                  : huge == "off" ? hugepage_mode::off
                                  : hugepage_mode::automatic;
    const std::string numa = args.get(k["numa"].name, k["numa"].fallback);
    r.numa = numa == "auto"  ? numa_auto
             : numa == "off" ? numa_off
                             : static_cast<int>(args.get_uint(k["numa"], 0));
    return r;
}

ring_options ring_args::placement(int nic_numa_node) const
{
    ring_options options;
    options.hugepages = hugepages;
    options.numa_node = numa == numa_auto ? nic_numa_node : numa == numa_off ? -1 : numa;
    return options;
}

size_t ring_args::page_bytes(const ring_options& options)
{
    return options.hugepages == hugepage_mode::off ? system_page_size()
                                                   : ring_hugepage_bytes;
}

} // namespace rdma
} // namespace gr
