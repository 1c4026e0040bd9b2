/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RX_SOURCE_IMPL_H
#define INCLUDED_RDMA_RX_SOURCE_IMPL_H

#include "item_converter.h"
#include "radio_block_impl.h"
#include "ring_buffer.h"
#include <gnuradio/rdma/rx_source.h>
#include <gnuradio/rdma/rx_stream.h>
#include <pmt/pmt.h>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {

//! The radio controls are radio_block_impl's (output c is RF channel first stream + c).
class rx_source_impl : public rx_source, public radio_block_impl, public ring_provider
{
public:
    rx_source_impl(const std::string& args,
                   const std::string& format,
                   double sample_rate,
                   uint64_t num_samples,
                   size_t num_channels,
                   const std::string& otw_format);

    void set_start_time(uint64_t device_time_ns) override
    {
        d_start_time = device_time_ns;
    }
    void set_samp_rate(double rate) override;
    double get_samp_rate() const override { return d_streams[0]->sample_rate(); }
    uint64_t ring_base(size_t chan) const override;
    size_t ring_bytes() const override { return d_streams[0]->ring_bytes(); }
    size_t ring_items() const override { return d_streams[0]->ring_items(); }
    bool hugepages() const override;
    std::map<std::string, uint64_t> read_counters(size_t chan) override;
    std::vector<rx_stream::injected_fault> read_injected_faults(size_t chan) override;
    std::string error() const override;
    std::string device_note() const override;
    std::string cpu_format() const override;
    std::string otw_format() const override;
    std::map<std::string, uint64_t> conversion_reads(size_t chan) const override;

    //! The rings in port order: GNU Radio asks for the output buffers one port after
    //! the other, each time it allocates them.
    provided_ring ring() const override;

    bool start() override;
    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    rx_stream& stream(size_t chan) const;
    void start_streams();
    size_t wait_for_items(size_t chan, uint64_t written);
    uint64_t released_items(size_t chan, uint64_t written);
    void convert(size_t chan, uint64_t written, size_t items, void* out);
    void prefault_outputs();
    void publish_events();
    void tag_share(size_t chan);
    void tag_time(size_t chan, uint64_t offset, uint64_t time_ns);
    void change_rate_if_asked();

    // Own the rings: allocated before any buffer.
    std::vector<std::unique_ptr<rx_stream>> d_streams;
    std::vector<std::shared_ptr<ring_buffer>> d_buffers; // this run's outputs (start())
    // Formats differ: work() converts from the ring into GNU Radio's buffers. Null:
    // zero copy, the rings are the buffers.
    const std::unique_ptr<const item_converter> d_converter;
    // Where the conversions read, per channel (conversion_reads()): written by work(),
    // read by tests from any thread.
    struct read_record {
        std::atomic<uint64_t> calls{ 0 };
        std::atomic<uint64_t> items{ 0 };
        std::atomic<uint64_t> lowest{ UINT64_MAX };
        std::atomic<uint64_t> end{ 0 };
    };
    const std::unique_ptr<read_record[]> d_reads;
    mutable size_t d_next_ring = 0; // ring() hands out port order
    uint64_t d_start_time = 0;      // 0: as soon as possible
    const pmt::pmt_t d_id;
    const std::chrono::microseconds d_wait_slice;
    // A rate change work() has yet to make (0: none). set_samp_rate runs on any thread;
    // work() looks at every call, so an atomic rather than a lock.
    std::atomic<double> d_asked_rate{ 0.0 };
};

} // namespace rdma
} // namespace gr

#endif
