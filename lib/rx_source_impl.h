/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RX_SOURCE_IMPL_H
#define INCLUDED_RDMA_RX_SOURCE_IMPL_H

#include "ring_buffer.h"
#include <gnuradio/rdma/rx_source.h>
#include <gnuradio/rdma/rx_stream.h>
#include <pmt/pmt.h>
#include <chrono>
#include <memory>

namespace gr {
namespace rdma {

class rx_source_impl : public rx_source, public ring_provider
{
public:
    rx_source_impl(const std::string& args,
                   const std::string& format,
                   double sample_rate,
                   uint64_t num_samples);

    uint64_t ring_base() const override;
    size_t ring_bytes() const override { return d_stream->ring_bytes(); }
    size_t ring_items() const override { return d_stream->ring_items(); }
    bool hugepages() const override { return d_stream->hugepages(); }
    std::map<std::string, uint64_t> read_counters() override
    {
        return d_stream->read_counters();
    }
    std::vector<rx_stream::injected_fault> read_injected_faults() override
    {
        return d_stream->read_injected_faults();
    }
    std::string error() const override { return d_stream->error(); }
    std::string device_note() const override { return d_stream->device_note(); }

    provided_ring ring() const override;

    bool start() override;
    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    size_t wait_for_items(uint64_t written);
    void publish_events();
    void tag_time(uint64_t offset, uint64_t time_ns);

    std::unique_ptr<rx_stream> d_stream;   // owns the ring: allocated before any buffer
    std::shared_ptr<ring_buffer> d_buffer; // this run's output buffer (set in start())
    const pmt::pmt_t d_id;
    const std::chrono::microseconds d_wait_slice;
};

} // namespace rdma
} // namespace gr

#endif
