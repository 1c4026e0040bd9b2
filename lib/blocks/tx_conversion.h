/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TX_CONVERSION_H
#define INCLUDED_RDMA_TX_CONVERSION_H

#include "item_converter.h"
#include <gnuradio/rdma/tx_stream.h>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace gr {
namespace rdma {

/*!
 * tx_sink's path when the CPU format (its input, an ordinary GNU Radio buffer) is not
 * the wire format (the TX ring's): converts the upstream's items with VOLK, in one
 * pass, straight into the ring's free space (no intermediate copy) and commits them.
 * Item k of the input is item k of the stream, in the ring's slot k mod N as with zero
 * copy. Records where it wrote, so a test can prove every conversion landed in the
 * registered ring (writes()).
 */
class tx_conversion
{
public:
    //! Throws std::invalid_argument for equal formats (zero copy needs no conversion).
    tx_conversion(sample_format cpu, sample_format wire);

    /*!
     * Convert the input items [committed(), \p written) that fit the ring's free space
     * now, and commit them. \p in points at input item \p read (nitems_read): the items
     * before committed() are converted already.
     */
    void fill(tx_stream& stream, const void* in, uint64_t read, uint64_t written);

    /*!
     * "calls" (conversions), "items", "outside" (conversions whose destination was not
     * the ring slot of the next item, or not inside the ring's two mappings), "lowest"
     * (address of the lowest item written) and "end" (one past the highest byte).
     */
    std::map<std::string, uint64_t> writes() const;

    sample_format cpu() const { return d_converter.from(); }
    sample_format wire() const { return d_converter.to(); }

private:
    void record(const tx_stream& stream, const uint8_t* out, size_t items);

    const item_converter d_converter;
    const size_t d_cpu_item;
    const size_t d_wire_item;
    // Written by work(), read by tests from any thread.
    std::atomic<uint64_t> d_calls{ 0 };
    std::atomic<uint64_t> d_items{ 0 };
    std::atomic<uint64_t> d_outside{ 0 };
    std::atomic<uint64_t> d_lowest{ UINT64_MAX };
    std::atomic<uint64_t> d_end{ 0 };
};

} // namespace rdma
} // namespace gr

#endif
