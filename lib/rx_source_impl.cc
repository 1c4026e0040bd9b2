/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rx_source_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/rdma/sample_format.h>
#include <boost/thread/thread.hpp>
#include <chrono>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {
// How long one wait inside work() may block before it checks for a flowgraph stop.
constexpr std::chrono::microseconds wait_slice(20000);

size_t item_size_of(const std::string& format)
{
    return rdma::item_size(parse_sample_format(format));
}
} // namespace

rx_source::sptr rx_source::make(const std::string& args,
                                const std::string& format,
                                double sample_rate,
                                uint64_t num_samples)
{
    return gnuradio::make_block_sptr<rx_source_impl>(args, format, sample_rate, num_samples);
}

rx_source_impl::rx_source_impl(const std::string& args,
                               const std::string& format,
                               double sample_rate,
                               uint64_t num_samples)
    : gr::sync_block("rx_source",
                     gr::io_signature::make(0, 0, 0),
                     gr::io_signature::make(1, 1, item_size_of(format), ring_buffer::type)),
      d_stream(std::make_unique<rx_stream>(args, format, sample_rate, num_samples)),
      d_id(pmt::string_to_symbol(alias()))
{
    // GNU Radio caps work() at the size it asked the buffer factory for, not at what the
    // ring holds; let a call take up to half the ring, as a default buffer would.
    set_max_noutput_items(static_cast<int>(d_stream->ring_items() / 2));
}

uint64_t rx_source_impl::ring_base() const
{
    return reinterpret_cast<uintptr_t>(d_stream->ring_base());
}

provided_ring rx_source_impl::ring() const
{
    return { d_stream->ring_base(), d_stream->ring_items(), d_stream->item_size() };
}

bool rx_source_impl::start()
{
    const auto buffer = std::dynamic_pointer_cast<ring_buffer>(detail()->output(0));
    if (!buffer || buffer->base() != reinterpret_cast<const char*>(d_stream->ring_base()))
        throw std::logic_error("rx_source: the output buffer is not the RDMA ring");
    // Every start() begins a run at ring slot 0 (GNU Radio resets write indices).
    d_stream->start();
    d_tag_pending = true;
    return sync_block::start();
}

bool rx_source_impl::stop()
{
    d_stream->stop();
    return sync_block::stop();
}

uint64_t rx_source_impl::wait_for_items(uint64_t written)
{
    // Wait inside work(): a source that returns 0 is put to sleep for 250 ms by the
    // scheduler. Bounded slices with interruption points keep tb.stop() prompt.
    const uint64_t burst = d_stream->burst_items();
    uint64_t landed;
    while ((landed = d_stream->wait_landed(written, wait_slice)) == written) {
        if (burst && written == burst)
            break;
        boost::this_thread::interruption_point();
    }
    return landed;
}

void rx_source_impl::tag_run_start(uint64_t offset)
{
    const uint64_t t = d_stream->start_time_ns();
    add_item_tag(0,
                 offset,
                 pmt::mp("rx_time"),
                 pmt::make_tuple(pmt::from_uint64(t / 1000000000u),
                                 pmt::from_double((t % 1000000000u) * 1e-9)),
                 d_id);
    add_item_tag(0, offset, pmt::mp("rx_rate"), pmt::from_double(d_stream->sample_rate()), d_id);
    d_tag_pending = false;
}

int rx_source_impl::work(int noutput_items,
                         gr_vector_const_void_star&,
                         gr_vector_void_star& output_items)
{
    const uint64_t written = nitems_written(0);
    const auto* expected =
        d_stream->ring_base() + (written % d_stream->ring_items()) * d_stream->item_size();
    if (output_items[0] != expected)
        throw std::logic_error("rx_source: GNU Radio's write position left the RDMA ring");

    const uint64_t landed = wait_for_items(written);
    if (landed == written)
        return WORK_DONE; // the finite burst is complete
    if (d_tag_pending)
        tag_run_start(written);
    return static_cast<int>(std::min<uint64_t>(landed - written, noutput_items));
}

} // namespace rdma
} // namespace gr
