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
#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {
// How long one wait inside work() may block before it looks again at what the readers
// released (slots are re-armed only after that) and checks for a flowgraph stop: a
// sixteenth of the ring's duration, within [1 ms, 20 ms].
std::chrono::microseconds wait_slice_for(size_t ring_items, double sample_rate)
{
    const double us = 1e6 * static_cast<double>(ring_items) / sample_rate / 16;
    return std::chrono::microseconds(
        static_cast<int64_t>(std::min(20000.0, std::max(1000.0, us))));
}

size_t item_size_of(const std::string& format)
{
    return rdma::item_size(parse_sample_format(format));
}

// A gap or overrun report as gr-uhd reports asynchronous events: a PMT dict.
pmt::pmt_t report_dict(const rx_event& e)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, pmt::mp("type"), pmt::mp(to_string(e.type)));
    d = pmt::dict_add(d, pmt::mp("cause"), pmt::mp(to_string(e.cause)));
    d = pmt::dict_add(d, pmt::mp("first_sample"), pmt::from_uint64(e.item));
    d = pmt::dict_add(d, pmt::mp("device_sample"), pmt::from_uint64(e.device_item));
    d = pmt::dict_add(d, pmt::mp("count"), pmt::from_uint64(e.count));
    d = pmt::dict_add(
        d,
        pmt::mp("rx_time"),
        pmt::make_tuple(pmt::from_uint64(e.time_ns / 1000000000u),
                        pmt::from_double((e.time_ns % 1000000000u) * 1e-9)));
    // docs/metadata.md: a device event, as the device sent it.
    if (e.type == rx_event::kind::device) {
        d = pmt::dict_add(d, pmt::mp("code"), pmt::from_uint64(e.code));
        d = pmt::dict_add(d, pmt::mp("value"), pmt::from_uint64(e.value));
    }
    return d;
}
} // namespace

rx_source::sptr rx_source::make(const std::string& args,
                                const std::string& format,
                                double sample_rate,
                                uint64_t num_samples)
{
    return gnuradio::make_block_sptr<rx_source_impl>(
        args, format, sample_rate, num_samples);
}

rx_source_impl::rx_source_impl(const std::string& args,
                               const std::string& format,
                               double sample_rate,
                               uint64_t num_samples)
    : gr::sync_block(
          "rx_source",
          gr::io_signature::make(0, 0, 0),
          gr::io_signature::make(1, 1, item_size_of(format), ring_buffer::type)),
      d_stream(std::make_unique<rx_stream>(args, format, sample_rate, num_samples)),
      d_id(pmt::string_to_symbol(alias())),
      d_wait_slice(wait_slice_for(d_stream->ring_items(), d_stream->sample_rate()))
{
    message_port_register_out(pmt::mp("async_msgs"));
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
    d_buffer = std::dynamic_pointer_cast<ring_buffer>(detail()->output(0));
    if (!d_buffer ||
        d_buffer->base() != reinterpret_cast<const char*>(d_stream->ring_base()))
        throw std::logic_error("rx_source: the output buffer is not the RDMA ring");
    // Every start() begins a run at ring slot 0 (GNU Radio resets write indices).
    try {
        d_stream->start();
    } catch (const std::exception& e) {
        // GNU Radio calls start() on the block's own thread: an exception would end that
        // thread alone and leave the blocks downstream waiting for ever. Say why, and
        // let work() end the flowgraph instead.
        d_logger->error("{}; the stream did not start, the flowgraph ends", e.what());
    }
    return sync_block::start();
}

bool rx_source_impl::stop()
{
    d_stream->stop();
    d_buffer.reset();
    return sync_block::stop();
}

size_t rx_source_impl::wait_for_items(uint64_t written)
{
    // Wait inside work(): a source that returns 0 is put to sleep for 250 ms by the
    // scheduler. Bounded slices with interruption points keep tb.stop() prompt.
    size_t ready;
    while ((ready = d_stream->wait_items(
                written, d_buffer->released_items(), d_wait_slice)) == 0) {
        if (d_stream->end_of_stream(written))
            break;
        boost::this_thread::interruption_point();
    }
    return ready;
}

void rx_source_impl::tag_time(uint64_t offset, uint64_t time_ns)
{
    add_item_tag(0,
                 offset,
                 pmt::mp("rx_time"),
                 pmt::make_tuple(pmt::from_uint64(time_ns / 1000000000u),
                                 pmt::from_double((time_ns % 1000000000u) * 1e-9)),
                 d_id);
}

void rx_source_impl::publish_events()
{
    rx_event e;
    while (d_stream->poll_event(e)) {
        if (e.type == rx_event::kind::time) {
            tag_time(e.item, e.time_ns);
            if (e.item == 0)
                add_item_tag(0,
                             0,
                             pmt::mp("rx_rate"),
                             pmt::from_double(d_stream->sample_rate()),
                             d_id);
        } else {
            const pmt::pmt_t info = report_dict(e);
            // Tags reach readers that have not passed the item yet; the message always
            // arrives. Device events and notices are no loss: the message alone.
            const bool loss =
                e.type == rx_event::kind::gap || e.type == rx_event::kind::overrun;
            if (loss)
                add_item_tag(0,
                             e.item,
                             pmt::mp(e.type == rx_event::kind::gap ? "rx_gap" : "rx_overrun"),
                             info,
                             d_id);
            message_port_pub(pmt::mp("async_msgs"),
                             pmt::cons(pmt::mp("rdma_rx_event"), info));
        }
    }
}

int rx_source_impl::work(int noutput_items,
                         gr_vector_const_void_star&,
                         gr_vector_void_star& output_items)
{
    if (!d_stream->running())
        return WORK_DONE; // start() failed (logged), or the flowgraph is stopping
    const uint64_t written = nitems_written(0);
    const size_t ready = wait_for_items(written);
    if (ready == 0) {
        publish_events(); // the last reports of the burst
        return WORK_DONE;
    }
    // Item k lives in slot k mod N for GNU Radio and for the device alike (overruns
    // skip whole rings): the write pointer must be the slot the device wrote.
    const auto* expected = d_stream->ring_base() +
                           (written % d_stream->ring_items()) * d_stream->item_size();
    if (output_items[0] != expected)
        throw std::logic_error(
            "rx_source: GNU Radio's write position left the RDMA ring slot");
    const size_t n = std::min<size_t>(ready, noutput_items);
    d_stream->commit(written, n);
    publish_events();
    return static_cast<int>(n);
}

} // namespace rdma
} // namespace gr
