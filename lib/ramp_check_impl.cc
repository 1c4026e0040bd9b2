/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ramp_check_impl.h"
#include <gnuradio/io_signature.h>

namespace gr {
namespace rdma {

ramp_check::sptr
ramp_check::make(const std::string& format, uint64_t range_base, uint64_t range_bytes)
{
    return gnuradio::make_block_sptr<ramp_check_impl>(format, range_base, range_bytes);
}

ramp_check_impl::ramp_check_impl(const std::string& format,
                                 uint64_t range_base,
                                 uint64_t range_bytes)
    : gr::sync_block("ramp_check",
                     gr::io_signature::make(1, 1, item_size(parse_sample_format(format))),
                     gr::io_signature::make(0, 0, 0)),
      d_format(parse_sample_format(format)),
      d_range_base(static_cast<uintptr_t>(range_base)),
      d_range_bytes(range_bytes)
{
}

bool ramp_check_impl::inside_range(const void* data, int items) const
{
    const auto begin = reinterpret_cast<uintptr_t>(data);
    const uint64_t bytes = static_cast<uint64_t>(items) * item_size(d_format);
    return begin >= d_range_base && begin + bytes <= d_range_base + d_range_bytes;
}

int ramp_check_impl::work(int noutput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star&)
{
    d_calls++;
    if (d_range_bytes && !inside_range(input_items[0], noutput_items))
        d_out_of_range++;
    ramp_errors errors;
    check_ramp(d_format, nitems_read(0), input_items[0], noutput_items, errors);
    if (errors.mismatches) {
        if (d_mismatches == 0)
            d_first_mismatch = errors.first_mismatch;
        d_mismatches += errors.mismatches;
    }
    d_items += noutput_items;
    return noutput_items;
}

} // namespace rdma
} // namespace gr
