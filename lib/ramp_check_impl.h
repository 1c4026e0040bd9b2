/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RAMP_CHECK_IMPL_H
#define INCLUDED_RDMA_RAMP_CHECK_IMPL_H

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/ramp_check.h>
#include <atomic>

namespace gr {
namespace rdma {

class ramp_check_impl : public ramp_check
{
public:
    ramp_check_impl(const std::string& format, uint64_t range_base, uint64_t range_bytes);

    uint64_t items_checked() const override { return d_items; }
    uint64_t mismatches() const override { return d_mismatches; }
    uint64_t first_mismatch() const override { return d_first_mismatch; }
    uint64_t work_calls() const override { return d_calls; }
    uint64_t out_of_range_calls() const override { return d_out_of_range; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    bool inside_range(const void* data, int items) const;

    const sample_format d_format;
    const uintptr_t d_range_base;
    const uint64_t d_range_bytes;
    // Read from other threads while the flowgraph runs.
    std::atomic<uint64_t> d_items{ 0 };
    std::atomic<uint64_t> d_mismatches{ 0 };
    std::atomic<uint64_t> d_first_mismatch{ UINT64_MAX };
    std::atomic<uint64_t> d_calls{ 0 };
    std::atomic<uint64_t> d_out_of_range{ 0 };
};

} // namespace rdma
} // namespace gr

#endif
