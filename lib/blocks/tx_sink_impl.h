/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TX_SINK_IMPL_H
#define INCLUDED_RDMA_TX_SINK_IMPL_H

#include "ring_buffer.h"
#include "tx_burst_tags.h"
#include "tx_conversion.h"
#include <gnuradio/rdma/tx_sink.h>
#include <gnuradio/rdma/tx_stream.h>
#include <pmt/pmt.h>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

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
    //! Commit what is new of input items [read, written) at \p in (the first call
    //! starts the device), waiting a slice for the device when nothing can go; false:
    //! the flowgraph ends (error()).
    bool take_input(const void* in, uint64_t read, uint64_t written);
    bool prime_and_start(const void* in, uint64_t read, uint64_t written);
    bool start_stream(uint64_t at_ns);
    void check_pointer(const void* in);
    //! Input items [read, written) are at \p in: commit what is new (queued: burst
    //! boundary by boundary; \p first_burst: only up to the first boundary).
    void make_available(const void* in,
                        uint64_t read,
                        uint64_t written,
                        bool first_burst = false);
    void fill_to(const void* in, uint64_t read, uint64_t to);
    void warn_unused_tags(uint64_t from, uint64_t to);
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
    // A tx_time on item 0 at least this far ahead starts the device at it (its time
    // grid anchored there); a nearer one is a burst START of a run started now: the
    // device's set-up takes a few exchanges, and a START at a past time is refused.
    static constexpr uint64_t start_margin_ns = 50000000;
    const bool d_queued; // the device takes bursts: the tags become burst boundaries
    tx_burst_tags d_tags;
    std::vector<gr::tag_t> d_tag_buffer; // reused: the input's tags of one call
    bool d_started = false;              // the device started (at the first work() call)
    bool d_warned_tags = false;          // no bursts: the tags are ignored, said once
    mutable std::mutex d_mutex;          // d_error: read from other threads
    std::string d_error;
    std::atomic<uint64_t> d_pointer_mismatches{ 0 };
    std::atomic<uint64_t> d_work_calls{ 0 };
    std::atomic<uint64_t> d_short_tail{ 0 }; // items of a last partial message let go
};

} // namespace rdma
} // namespace gr

#endif
