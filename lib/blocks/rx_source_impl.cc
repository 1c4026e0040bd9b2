/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pmt_keys.h"
#include "rx_source_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/rdma/sample_format.h>
#include <unistd.h>
#include <boost/thread/thread.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>

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

// The wire format: otw_format, or the CPU format when it is empty.
std::string wire_format_of(const std::string& format, const std::string& otw_format)
{
    return otw_format.empty() ? format : otw_format;
}

std::unique_ptr<const item_converter> converter_for(const std::string& format,
                                                    const std::string& otw_format)
{
    const sample_format cpu = parse_sample_format(format);
    const sample_format wire = parse_sample_format(wire_format_of(format, otw_format));
    if (cpu == wire)
        return nullptr;
    return std::make_unique<const item_converter>(wire, cpu);
}

// Zero copy (equal formats): the output buffer is the ring. Else an ordinary GNU Radio
// buffer, which work() fills from the ring.
gr::io_signature::sptr
outputs_of(size_t num_channels, const std::string& format, const std::string& otw_format)
{
    const int n = static_cast<int>(num_channels);
    const int item = static_cast<int>(rdma::item_size(parse_sample_format(format)));
    if (converter_for(format, otw_format))
        return gr::io_signature::make(n, n, item);
    return gr::io_signature::make(n, n, item, ring_buffer::type);
}

// Several channels start this long after the device's time at start(): time for the
// host to arm every stream before their common sample 0 (a START whose time has
// passed is refused), with room for a busy machine.
constexpr uint64_t channel_start_lead_ns = 200000000;

// The streams of the channels: RX streams s, s+1, ... of the device args' stream=s,
// handed out by the block's device.
std::vector<std::unique_ptr<rx_stream>> open_channels(sdr& device,
                                                      const std::string& format,
                                                      double sample_rate,
                                                      uint64_t num_samples,
                                                      size_t num_channels)
{
    if (num_channels < 1 || num_channels > 16)
        throw std::invalid_argument(
            "rx_source: num_channels=" + std::to_string(num_channels) +
            " is out of range 1..16 (RX streams of a device)");
    if (num_samples == rx_stream::queued)
        throw std::invalid_argument(
            "rx_source: num_samples=rx_stream::queued (queued bursts) is for rx_stream: "
            "GNU Radio's item k must be ring slot k, and bursts land in regions the host "
            "chooses, their last message leaving the rest of its slot empty; use "
            "gr::rdma::rx_stream (Python rdma.rx_stream) with recv() and release()");
    const size_t first = device.get_args_stream();
    if (first + num_channels > 16)
        throw std::invalid_argument(
            "rx_source: stream=" + std::to_string(first) + " with " +
            std::to_string(num_channels) +
            " channels needs RX streams beyond 15: lower stream= or num_channels");
    std::vector<std::unique_ptr<rx_stream>> streams;
    for (size_t c = 0; c < num_channels; c++) {
        streams.push_back(
            device.get_rx_stream(format, sample_rate, num_samples, first + c));
        streams.back()->keep_items_in_slots(); // the output buffer is the ring
    }
    return streams;
}

// Bits n of a links mask as a vector of link numbers (bit 31: -1, not known).
pmt::pmt_t link_list(uint32_t mask)
{
    size_t n = 0;
    for (int k = 0; k < 32; k++)
        n += (mask >> k) & 1u;
    pmt::pmt_t v = pmt::make_vector(n, pmt::PMT_NIL);
    size_t i = 0;
    for (int k = 0; k < 32; k++)
        if (mask & (1u << k))
            pmt::vector_set(v, i++, pmt::from_long(k == 31 ? -1 : k));
    return v;
}

// docs/links.md, "Reports": link_down / link_up name the link and the epoch;
// schedule the epoch and every destination's weight.
pmt::pmt_t add_link_fields(pmt::pmt_t d, const rx_event& e)
{
    d = pmt::dict_add(d, keys::epoch(), pmt::from_uint64(e.code));
    if (e.cause == rx_event::reason::schedule_changed) {
        pmt::pmt_t w = pmt::make_vector(8, pmt::PMT_NIL);
        for (size_t k = 0; k < 8; k++)
            pmt::vector_set(
                w,
                k,
                pmt::from_long(((k < 4 ? e.value : e.count) >> (16 * (k % 4))) & 0xFFFF));
        return pmt::dict_add(d, keys::weights(), w);
    }
    d = pmt::dict_add(d, keys::link(), pmt::from_uint64(e.value));
    if (e.cause == rx_event::reason::link_down)
        d = pmt::dict_add(d, keys::by(), pmt::mp(e.count == 2 ? "host" : "device"));
    return d;
}

// A gap or overrun report as gr-uhd reports asynchronous events: a PMT dict.
pmt::pmt_t report_dict(const rx_event& e, size_t chan)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, keys::chan(), pmt::from_uint64(chan));
    d = pmt::dict_add(d, keys::type(), pmt::mp(to_string(e.type)));
    d = pmt::dict_add(d, keys::cause(), pmt::mp(to_string(e.cause)));
    d = pmt::dict_add(d, keys::first_sample(), pmt::from_uint64(e.item));
    d = pmt::dict_add(d, keys::device_sample(), pmt::from_uint64(e.device_item));
    d = pmt::dict_add(d, keys::count(), pmt::from_uint64(e.count));
    d = pmt::dict_add(
        d,
        keys::rx_time(),
        pmt::make_tuple(pmt::from_uint64(e.time_ns / 1000000000u),
                        pmt::from_double((e.time_ns % 1000000000u) * 1e-9)));
    // docs/metadata.md: a device event, as the device sent it.
    if (e.type == rx_event::kind::device) {
        d = pmt::dict_add(d, keys::code(), pmt::from_uint64(e.code));
        d = pmt::dict_add(d, keys::value(), pmt::from_uint64(e.value));
    }
    if (e.type == rx_event::kind::gap && e.code) // several links: which carried it
        d = pmt::dict_add(d, keys::links(), link_list(e.code));
    if (e.type == rx_event::kind::link)
        d = add_link_fields(d, e);
    return d;
}
} // namespace

rx_source::sptr rx_source::make(const std::string& args,
                                const std::string& format,
                                double sample_rate,
                                uint64_t num_samples,
                                size_t num_channels,
                                const std::string& otw_format)
{
    return gnuradio::make_block_sptr<rx_source_impl>(
        args, format, sample_rate, num_samples, num_channels, otw_format);
}

rx_source_impl::rx_source_impl(const std::string& args,
                               const std::string& format,
                               double sample_rate,
                               uint64_t num_samples,
                               size_t num_channels,
                               const std::string& otw_format)
    : gr::sync_block("rx_source",
                     gr::io_signature::make(0, 0, 0),
                     outputs_of(num_channels, format, otw_format)),
      radio_block_impl(
          args, first_channel::args_stream, num_channels, rate_key::block_applies),
      d_streams(open_channels(radio(),
                              wire_format_of(format, otw_format),
                              sample_rate,
                              num_samples,
                              num_channels)),
      d_converter(converter_for(format, otw_format)),
      d_reads(std::make_unique<read_record[]>(num_channels)),
      d_id(pmt::string_to_symbol(alias())),
      d_wait_slice(
          wait_slice_for(d_streams[0]->ring_items(), d_streams[0]->sample_rate()))
{
    message_port_register_out(keys::async_msgs());
    message_port_register_in(keys::command());
    set_msg_handler(keys::command(), [this](const pmt::pmt_t& msg) {
        answer(msg, *d_logger, [this](const pmt::pmt_t& report) {
            message_port_pub(keys::async_msgs(), pmt::cons(keys::rdma_command(), report));
        });
    });
    on_rate([this](double rate) { set_samp_rate(rate); });
    // GNU Radio caps work() at the size it asked the buffer factory for, not at what the
    // ring holds; let a call take up to half the ring, as a default buffer would.
    set_max_noutput_items(static_cast<int>(d_streams[0]->ring_items() / 2));
    // Converting, the output is an ordinary buffer: GNU Radio's default (some 8192
    // items) would cost a work() call, and a wake-up of every block downstream, per few
    // thousand items, and with work_interval= (one hand-out per interval) would cap the
    // rate at a buffer per interval. The same room as zero copy: half the ring's items.
    if (d_converter)
        set_min_output_buffer(static_cast<long>(d_streams[0]->ring_items() / 2));
}

void rx_source_impl::set_samp_rate(double rate)
{
    if (!(rate > 0) || !std::isfinite(rate))
        throw std::invalid_argument("rx_source: set_samp_rate(" + std::to_string(rate) +
                                    "): give a sample rate > 0");
    d_asked_rate.store(rate, std::memory_order_relaxed);
}

void rx_source_impl::change_rate_if_asked()
{
    if (d_asked_rate.load(std::memory_order_relaxed) == 0)
        return;
    const double rate = d_asked_rate.exchange(0.0, std::memory_order_relaxed);
    if (rate == 0)
        return;
    // Channel 0 chooses the item and the time; the others change at the same ones, so
    // that item k stays one device instant on every output.
    size_t changed = 0;
    try {
        const rx_stream::rate_change at = d_streams[0]->change_rate(rate);
        for (changed = 1; changed < d_streams.size(); changed++)
            d_streams[changed]->change_rate(rate, at.item, at.time_ns);
    } catch (const std::exception& e) {
        const std::string what =
            (changed ? "channel " + std::to_string(changed) + ": " : std::string()) +
            e.what() +
            (changed ? " (channels before it changed: they are out of step now)" : "");
        d_logger->error("set_samp_rate({}): {}", rate, what);
        pmt::pmt_t report = pmt::make_dict();
        report = pmt::dict_add(report, keys::error(), pmt::mp("rate: " + what));
        report = pmt::dict_add(report, keys::key(), keys::rate());
        report = pmt::dict_add(report, keys::requested(), pmt::from_double(rate));
        message_port_pub(keys::async_msgs(), pmt::cons(keys::rdma_command(), report));
    }
}

rx_stream& rx_source_impl::stream(size_t chan) const
{
    if (chan >= d_streams.size())
        throw std::invalid_argument(
            "rx_source: channel " + std::to_string(chan) +
            " does not exist (num_channels=" + std::to_string(d_streams.size()) + ")");
    return *d_streams[chan];
}

uint64_t rx_source_impl::ring_base(size_t chan) const
{
    return reinterpret_cast<uintptr_t>(stream(chan).ring_base());
}

bool rx_source_impl::hugepages() const
{
    for (const auto& s : d_streams)
        if (!s->hugepages())
            return false;
    return true;
}

std::map<std::string, uint64_t> rx_source_impl::read_counters(size_t chan)
{
    return stream(chan).read_counters();
}

std::vector<rx_stream::injected_fault> rx_source_impl::read_injected_faults(size_t chan)
{
    return stream(chan).read_injected_faults();
}

std::string rx_source_impl::error() const
{
    for (size_t c = 0; c < d_streams.size(); c++) {
        const std::string e = d_streams[c]->error();
        if (!e.empty())
            return d_streams.size() == 1 ? e : "channel " + std::to_string(c) + ": " + e;
    }
    return {};
}

std::string rx_source_impl::device_note() const
{
    std::string out;
    for (size_t c = 0; c < d_streams.size(); c++) {
        const std::string n = d_streams[c]->device_note();
        if (!n.empty())
            out +=
                (out.empty() ? "" : "; ") +
                (d_streams.size() == 1 ? n : "channel " + std::to_string(c) + ": " + n);
    }
    return out;
}

std::string rx_source_impl::cpu_format() const
{
    return d_converter ? to_string(d_converter->to()) : d_streams[0]->format();
}

std::string rx_source_impl::otw_format() const { return d_streams[0]->format(); }

std::map<std::string, uint64_t> rx_source_impl::conversion_reads(size_t chan) const
{
    stream(chan); // checks chan
    const read_record& r = d_reads[chan];
    return { { "calls", r.calls.load() },
             { "items", r.items.load() },
             { "lowest", r.calls.load() ? r.lowest.load() : 0 },
             { "end", r.end.load() } };
}

provided_ring rx_source_impl::ring() const
{
    const rx_stream& s = *d_streams[d_next_ring++ % d_streams.size()];
    return { s.ring_base(), s.ring_items(), s.item_size() };
}

void rx_source_impl::start_streams()
{
    if (d_streams.size() == 1) {
        d_streams[0]->start_at(d_start_time);
        return;
    }
    // One sample 0 for all: item k of every channel is the same device instant.
    const uint64_t t0 =
        d_start_time ? d_start_time : get_time_now() + channel_start_lead_ns;
    size_t started = 0;
    try {
        for (; started < d_streams.size(); started++)
            d_streams[started]->start_at(t0);
    } catch (...) {
        for (size_t c = 0; c < started; c++)
            d_streams[c]->stop();
        throw;
    }
}

bool rx_source_impl::start()
{
    d_buffers.clear();
    if (d_converter)
        prefault_outputs();
    for (size_t c = 0; d_converter == nullptr && c < d_streams.size(); c++) {
        auto buffer = std::dynamic_pointer_cast<ring_buffer>(detail()->output(c));
        if (!buffer ||
            buffer->base() != reinterpret_cast<const char*>(d_streams[c]->ring_base()))
            throw std::logic_error("rx_source: output " + std::to_string(c) +
                                   "'s buffer is not its RDMA ring");
        d_buffers.push_back(buffer);
    }
    // Every start() begins a run at ring slot 0 (GNU Radio resets write indices).
    try {
        start_streams();
    } catch (const std::exception& e) {
        // GNU Radio calls start() on the block's own thread: an exception would end that
        // thread alone and leave the blocks downstream waiting for ever. Say why, and
        // let work() end the flowgraph instead.
        d_logger->error("{}; the stream did not start, the flowgraph ends", e.what());
    }
    return sync_block::start();
}

void rx_source_impl::prefault_outputs()
{
    // A converting source writes GNU Radio's buffers, half a ring each, that nothing
    // has touched yet: the first lap would take a page fault per page on the data path
    // and fall behind the device by tens of ms at high rates. Touch every page now,
    // before the stream starts (one mapping of the double-mapped buffer holds them all).
    for (size_t c = 0; c < d_streams.size(); c++) {
        const gr::buffer_sptr out = detail()->output(c);
        auto* base = const_cast<char*>(out->base());
        const size_t bytes =
            static_cast<size_t>(out->bufsize()) * rdma::item_size(d_converter->to());
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        for (size_t at = 0; at < bytes; at += page)
            base[at] = 0;
    }
}

bool rx_source_impl::stop()
{
    for (auto& s : d_streams)
        s->stop();
    d_buffers.clear();
    return sync_block::stop();
}

size_t rx_source_impl::wait_for_items(size_t chan, uint64_t written)
{
    // Wait inside work(): a source that returns 0 is put to sleep for 250 ms by the
    // scheduler. Bounded slices with interruption points keep tb.stop() prompt.
    rx_stream& s = *d_streams[chan];
    size_t ready;
    while ((ready = s.wait_items(written, released_items(chan, written), d_wait_slice)) ==
           0) {
        if (s.end_of_stream(written))
            break;
        boost::this_thread::interruption_point();
        // The other channels advance in their wait_items() only: a rate change restarts
        // each at one device time, which must not pass while this one waits.
        for (size_t c = 0; c < d_streams.size(); c++)
            if (c != chan)
                d_streams[c]->wait_items(
                    written, released_items(c, written), std::chrono::microseconds(0));
    }
    return ready;
}

uint64_t rx_source_impl::released_items(size_t chan, uint64_t written)
{
    // Zero copy: the readers of the ring hold items. Converting: the block itself is
    // the ring's only reader, and it converted every item before the one it writes.
    return d_converter ? written : d_buffers[chan]->released_items();
}

void rx_source_impl::convert(size_t chan, uint64_t written, size_t items, void* out)
{
    // In place in the ring: items [written, written + items) are contiguous from their
    // slot (the ring is mapped twice), and the device leaves them alone until the next
    // wait_items() releases them.
    const rx_stream& s = *d_streams[chan];
    const uint8_t* in = s.ring_base() + (written % s.ring_items()) * s.item_size();
    d_converter->convert(in, out, items);
    read_record& r = d_reads[chan];
    const auto begin = reinterpret_cast<uintptr_t>(in);
    r.calls.fetch_add(1, std::memory_order_relaxed);
    r.items.fetch_add(items, std::memory_order_relaxed);
    if (begin < r.lowest.load(std::memory_order_relaxed))
        r.lowest.store(begin, std::memory_order_relaxed);
    if (begin + items * s.item_size() > r.end.load(std::memory_order_relaxed))
        r.end.store(begin + items * s.item_size(), std::memory_order_relaxed);
}

void rx_source_impl::tag_time(size_t chan, uint64_t offset, uint64_t time_ns)
{
    add_item_tag(static_cast<unsigned>(chan),
                 offset,
                 keys::rx_time(),
                 pmt::make_tuple(pmt::from_uint64(time_ns / 1000000000u),
                                 pmt::from_double((time_ns % 1000000000u) * 1e-9)),
                 d_id);
}

void rx_source_impl::tag_share(size_t chan)
{
    // One share of a stream split over several hosts: where this output's samples sit
    // in the stream (docs/links.md, "Several hosts").
    const rx_stream& s = *d_streams[chan];
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, keys::share(), pmt::from_uint64(s.share_index()));
    d = pmt::dict_add(d, keys::shares(), pmt::from_uint64(s.share_count()));
    d = pmt::dict_add(d, keys::block_items(), pmt::from_uint64(s.share_block_items()));
    add_item_tag(static_cast<unsigned>(chan), 0, keys::rx_share(), d, d_id);
}

void rx_source_impl::publish_events()
{
    for (size_t c = 0; c < d_streams.size(); c++) {
        const unsigned port = static_cast<unsigned>(c);
        rx_event e;
        while (d_streams[c]->poll_event(e)) {
            if (e.type == rx_event::kind::time) {
                if (e.item == 0 && d_streams[c]->share_count() > 1)
                    tag_share(c);
                tag_time(c, e.item, e.time_ns);
                if (e.item == 0 || e.cause == rx_event::reason::rate_changed)
                    add_item_tag(
                        port,
                        e.item,
                        keys::rx_rate(),
                        pmt::from_double(e.cause == rx_event::reason::rate_changed
                                             ? static_cast<double>(e.value) / 1e3
                                             : d_streams[c]->sample_rate()),
                        d_id);
                continue;
            }
            if (e.type == rx_event::kind::tune) { // as gr-uhd: the new center frequency
                add_item_tag(port,
                             e.item,
                             keys::rx_freq(),
                             pmt::from_double(static_cast<double>(e.value) / 1e3),
                             d_id);
                continue;
            }
            const pmt::pmt_t info = report_dict(e, c);
            // Tags reach readers that have not passed the item yet; the message always
            // arrives. Device events and notices are no loss: the message alone.
            const bool loss =
                e.type == rx_event::kind::gap || e.type == rx_event::kind::overrun;
            if (loss)
                add_item_tag(
                    port,
                    e.item,
                    pmt::mp(e.type == rx_event::kind::gap ? "rx_gap" : "rx_overrun"),
                    info,
                    d_id);
            message_port_pub(keys::async_msgs(), pmt::cons(keys::rdma_rx_event(), info));
        }
    }
}

int rx_source_impl::work(int noutput_items,
                         gr_vector_const_void_star&,
                         gr_vector_void_star& output_items)
{
    for (const auto& s : d_streams)
        if (!s->running())
            return WORK_DONE; // start() failed (logged), or the flowgraph is stopping
    change_rate_if_asked();
    // The channels are in step: item k of every output is the same instant, and the
    // block hands out as many items on each as the slowest has.
    const uint64_t written = nitems_written(0);
    size_t ready = static_cast<size_t>(noutput_items);
    for (size_t c = 0; c < d_streams.size() && ready > 0; c++)
        ready = std::min(ready, wait_for_items(c, written));
    if (ready == 0) {
        publish_events(); // the last reports of the burst
        return WORK_DONE;
    }
    for (size_t c = 0; c < d_streams.size(); c++) {
        // Item k lives in slot k mod N for GNU Radio and for the device alike (overruns
        // skip whole rings): the write pointer must be the slot the device wrote.
        const rx_stream& s = *d_streams[c];
        const auto* expected = s.ring_base() + (written % s.ring_items()) * s.item_size();
        if (!d_converter && output_items[c] != expected)
            throw std::logic_error(
                "rx_source: GNU Radio's write position left the RDMA ring slot");
        d_streams[c]->commit(written, ready);
        if (d_converter)
            convert(c, written, ready, output_items[c]);
    }
    publish_events();
    return static_cast<int>(ready);
}

} // namespace rdma
} // namespace gr
