/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TX_SINK_IMPL_H
#define INCLUDED_RDMA_TX_SINK_IMPL_H

#include "ring_buffer.h"
#include "tx_conversion.h"
#include <gnuradio/rdma/tx_sink.h>
#include <gnuradio/rdma/tx_stream.h>
#include <pmt/pmt.h>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace gr {
namespace rdma {

class tx_sink_impl : public tx_sink, public ring_provider
{
public:
    tx_sink_impl(const std::string& args,
                 const std::string& format,
                 double sample_rate,
                 const std::string& otw_format);

    std::string cpu_format() const override;
    std::string otw_format() const override { return d_stream->format(); }
    std::map<std::string, uint64_t> conversion_writes() const override;

    uint64_t ring_base() const override
    {
        return reinterpret_cast<uintptr_t>(d_stream->ring_base());
    }
    size_t ring_bytes() const override { return d_stream->ring_bytes(); }
    size_t ring_items() const override { return d_stream->ring_items(); }
    uint64_t pointer_mismatches() const override { return d_pointer_mismatches; }
    uint64_t work_calls() const override { return d_work_calls; }
    std::string error() const override;
    uint64_t get_time_now() override { return d_stream->device_time_now(); }
    std::map<std::string, uint64_t> read_counters() override;

    provided_ring ring() const override;

    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void set_error(const std::string& text);
    std::string input_problem() const;
    void end_orphaned_readers();
    bool start_stream(uint64_t read);
    static uint64_t time_of(const pmt::pmt_t& t);
    void check_pointer(const void* in);
    void make_available(const void* in, uint64_t read, uint64_t written);
    uint64_t releasable() const;
    uint64_t consumable(uint64_t written) const;
    void commit_new(uint64_t written);
    void publish_reports();
    uint64_t short_tail(uint64_t read);

    std::unique_ptr<tx_stream> d_stream;
    // Formats differ: work() converts the input into the ring. Null: zero copy, the
    // ring is the input buffer.
    const std::unique_ptr<tx_conversion> d_conversion;
    const size_t d_item;
    const uint64_t d_message_items; // the device fetches whole messages
    // A wait in work() is bounded by this, so that stop() is prompt.
    const std::chrono::microseconds d_wait_slice{ 10000 };
    const pmt::pmt_t d_port;
    const pmt::pmt_t d_time_key;
    bool d_started = false;     // the device started (at the first work() call)
    mutable std::mutex d_mutex; // d_error: read from other threads
    std::string d_error;
    std::atomic<uint64_t> d_pointer_mismatches{ 0 };
    std::atomic<uint64_t> d_work_calls{ 0 };
    std::atomic<uint64_t> d_short_tail{ 0 }; // items of a last partial message let go
};

} // namespace rdma
} // namespace gr

#endif
