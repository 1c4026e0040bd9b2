/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RAMP_CHECK_IMPL_H
#define INCLUDED_RDMA_RAMP_CHECK_IMPL_H

#include "../stream/share_layout.h"
#include "../util/item_range_set.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/ramp_check.h>
#include <gnuradio/rdma/test_signal.h>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {

class ramp_check_impl : public ramp_check
{
public:
    ramp_check_impl(const std::string& format,
                    uint64_t range_base,
                    uint64_t range_bytes,
                    const std::string& signal);

    uint64_t items_checked() const override { return d_items; }
    uint64_t mismatches() const override { return d_mismatches; }
    uint64_t unexplained_mismatches() const override;
    std::vector<std::vector<uint64_t>> unexplained_ranges(size_t max) const override;
    uint64_t first_mismatch() const override { return d_first_mismatch; }
    uint64_t gap_items() const override { return d_gap_items; }
    uint64_t overwritten_items() const override;
    uint64_t time_tags() const override { return d_time_tags; }
    uint64_t time_errors() const override;
    uint64_t work_calls() const override { return d_calls; }
    uint64_t out_of_range_calls() const override { return d_out_of_range; }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    bool inside_range(const void* data, int items) const;
    void on_tag(const tag_t& tag, const uint8_t* item_data);
    void check(uint64_t first, const uint8_t* data, uint64_t count);
    void record_mismatch(uint64_t item);
    void on_event(const pmt::pmt_t& msg);
    bool is_zero(const uint8_t* item) const;
    uint64_t data_sample(const uint8_t* item) const;
    bool is_ramp() const { return d_signal_config.kind == test_signal_kind::ramp; }

    const sample_format d_format;
    const std::string d_signal_args;
    test_signal_config d_signal_config;
    std::unique_ptr<test_signal> d_signal; // made once the rate is known
    static constexpr size_t scratch_items = 4096;
    std::array<uint8_t, scratch_items * 8> d_expect{}; // the reference, a chunk at a time
    const size_t d_item;
    const uintptr_t d_range_base;
    const uint64_t d_range_bytes;

    // Where the stream is (work() thread only).
    bool d_have_time = false;
    uint64_t d_t0_s = 0;
    double d_t0_frac = 0;
    double d_rate = 0;
    int64_t d_device_offset = 0; // device sample = item + offset (a share's: local)
    // One share of a stream split over several hosts (tag rx_share): the device's
    // sample of local sample j is d_share.stream_sample(j).
    share_layout d_share;
    int64_t d_stream0 = 0;  // the stream sample of the first time tag (split only)
    uint64_t d_gap_end = 0; // items below are inside a reported gap

    // Mismatched items, and the items reports excuse (they overlap and come in any
    // order): compared at the end.
    mutable std::mutex d_ranges_mutex;
    item_range_set d_mismatch_ranges;
    item_range_set d_overwritten;
    std::vector<uint64_t> d_time_error_items;

    std::atomic<uint64_t> d_items{ 0 };
    std::atomic<uint64_t> d_mismatches{ 0 };
    std::atomic<uint64_t> d_first_mismatch{ UINT64_MAX };
    std::atomic<uint64_t> d_gap_items{ 0 };
    std::atomic<uint64_t> d_time_tags{ 0 };

    std::atomic<uint64_t> d_calls{ 0 };
    std::atomic<uint64_t> d_out_of_range{ 0 };
    std::vector<tag_t> d_tags; // reused: no allocation per call once grown
};

} // namespace rdma
} // namespace gr

#endif
