/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_SIGMF_SINK_IMPL_H
#define INCLUDED_RDMA_SIGMF_SINK_IMPL_H

#include "../record/sigmf_annotations.h"
#include "../record/sigmf_data_file.h"
#include "../record/sigmf_meta.h"
#include "../record/sigmf_rotation.h"
#include "../record/sigmf_timeline.h"
#include <gnuradio/rdma/sigmf_sink.h>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * The block: the stream's tags make the timeline, the reports the annotations, and
 * work() writes the items into the current data file, moving on to the next one at
 * the rotation limit. One mutex: work() and the message handler run on the block's
 * thread, finish(), error() and recordings() on any (gr-rdma-rx polls them).
 */
class sigmf_sink_impl : public sigmf_sink
{
public:
    sigmf_sink_impl(const std::string& path,
                    const std::string& format,
                    double sample_rate,
                    const std::string& hw,
                    const std::string& recorder,
                    const std::string& description,
                    int64_t rotate_size,
                    double rotate_seconds,
                    int64_t max_annotations);

    void finish() override;
    std::string error() const override;
    std::vector<std::string> recordings() const override;
    std::string datatype() const override { return d_global.datatype; }

    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void on_tags(int n);
    void on_report(const pmt::pmt_t& msg);
    // Write items [0, n) of in; rotate where the limit falls. False once failed.
    bool write(const uint8_t* in, uint64_t n);
    bool rotate();
    void fail(const std::string& why);
    void write_meta();
    void close_current();

    const size_t d_item;
    sigmf_global d_global;
    const sigmf_rotation d_rotation;
    sigmf_timeline d_timeline;
    sigmf_annotations d_annotations;

    mutable std::mutex d_mutex;
    sigmf_data_file d_data;
    sigmf_file d_file;                 // the file being written
    unsigned d_index = 0;              // its number in a rotated series
    std::vector<std::string> d_closed; // files rotated away
    std::string d_error;
    std::vector<tag_t> d_tags; // reused: no allocation per call once grown
};

} // namespace rdma
} // namespace gr

#endif
