/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_conversion.h"
#include <algorithm>
#include <chrono>

namespace gr {
namespace rdma {

tx_conversion::tx_conversion(sample_format cpu, sample_format wire)
    : d_converter(cpu, wire), d_cpu_item(item_size(cpu)), d_wire_item(item_size(wire))
{
}

void tx_conversion::fill(tx_stream& stream,
                         const void* in,
                         uint64_t read,
                         uint64_t written)
{
    const uint64_t committed = stream.committed();
    if (committed >= written)
        return;
    // The ring is mapped twice: all its free space is one contiguous run. No wait:
    // work() waits for the device when nothing could be done.
    const tx_stream::space free = stream.wait_space(1, std::chrono::microseconds(0));
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(free.items, written - committed));
    if (n == 0)
        return;
    const auto* from = static_cast<const uint8_t*>(in) + (committed - read) * d_cpu_item;
    auto* to = static_cast<uint8_t*>(free.data);
    d_converter.convert(from, to, n);
    record(stream, to, n);
    stream.commit(n);
}

void tx_conversion::record(const tx_stream& stream, const uint8_t* out, size_t items)
{
    const uint8_t* ring = stream.ring_base();
    const uint8_t* slot = ring + (stream.committed() % stream.ring_items()) * d_wire_item;
    const auto begin = reinterpret_cast<uintptr_t>(out);
    const uintptr_t end = begin + items * d_wire_item;
    const auto low = reinterpret_cast<uintptr_t>(ring);
    if (out != slot || begin < low || end > low + 2 * stream.ring_bytes())
        d_outside.fetch_add(1, std::memory_order_relaxed);
    d_calls.fetch_add(1, std::memory_order_relaxed);
    d_items.fetch_add(items, std::memory_order_relaxed);
    if (begin < d_lowest.load(std::memory_order_relaxed))
        d_lowest.store(begin, std::memory_order_relaxed);
    if (end > d_end.load(std::memory_order_relaxed))
        d_end.store(end, std::memory_order_relaxed);
}

std::map<std::string, uint64_t> tx_conversion::writes() const
{
    const uint64_t calls = d_calls.load();
    return { { "calls", calls },
             { "items", d_items.load() },
             { "outside", d_outside.load() },
             { "lowest", calls ? d_lowest.load() : 0 },
             { "end", d_end.load() } };
}

} // namespace rdma
} // namespace gr
