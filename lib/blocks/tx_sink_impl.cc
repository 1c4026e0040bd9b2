/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pmt_keys.h"
#include "tx_sink_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/sdr.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gr {
namespace rdma {

namespace {
// The wire format: otw_format, or the CPU format when it is empty.
std::string wire_format_of(const std::string& format, const std::string& otw_format)
{
    return otw_format.empty() ? format : otw_format;
}

std::unique_ptr<tx_conversion> conversion_for(const std::string& format,
                                              const std::string& otw_format)
{
    const sample_format cpu = parse_sample_format(format);
    const sample_format wire = parse_sample_format(wire_format_of(format, otw_format));
    if (cpu == wire)
        return nullptr;
    return std::make_unique<tx_conversion>(cpu, wire);
}

bool converts(const std::string& format, const std::string& otw_format)
{
    return conversion_for(format, otw_format) != nullptr;
}

// Zero copy (equal formats): the ring buffer type on the input, and on the output
// signature too: GNU Radio 3.10.5.1 takes the replacement type of the upstream's buffer
// from the downstream block's OUTPUT signature (notes: custom buffers, §1.8).
// Converting: ordinary GNU Radio buffers, which work() converts from.
gr::io_signature::sptr inputs_of(const std::string& format, const std::string& otw_format)
{
    const int item = static_cast<int>(item_size(parse_sample_format(format)));
    if (converts(format, otw_format))
        return gr::io_signature::make(1, 1, item);
    return gr::io_signature::make(1, 1, item, ring_buffer::type);
}

gr::io_signature::sptr outputs_of(const std::string& format,
                                  const std::string& otw_format)
{
    if (converts(format, otw_format))
        return gr::io_signature::make(0, 0, 0);
    return gr::io_signature::make(0, 0, 0, ring_buffer::type);
}
} // namespace

tx_sink::sptr tx_sink::make(const std::string& args,
                            const std::string& format,
                            double sample_rate,
                            const std::string& otw_format)
{
    return gnuradio::make_block_sptr<tx_sink_impl>(args, format, sample_rate, otw_format);
}

tx_sink_impl::tx_sink_impl(const std::string& args,
                           const std::string& format,
                           double sample_rate,
                           const std::string& otw_format)
    : gr::block("tx_sink", inputs_of(format, otw_format), outputs_of(format, otw_format)),
      // Timed bursts when the device has them (the tags become burst boundaries).
      d_stream(sdr(args).get_tx_stream(
          wire_format_of(format, otw_format), sample_rate, tx_stream::queued_if_able)),
      d_conversion(conversion_for(format, otw_format)),
      d_item(d_stream->item_size()),
      d_message_items(d_stream->payload_bytes() / d_stream->item_size()),
      d_queued(d_stream->is_queued()),
      d_tags(d_logger)
{
    message_port_register_out(keys::async_msgs());
}

std::string tx_sink_impl::cpu_format() const
{
    return d_conversion ? to_string(d_conversion->cpu()) : d_stream->format();
}

std::map<std::string, uint64_t> tx_sink_impl::conversion_writes() const
{
    if (d_conversion)
        return d_conversion->writes();
    return {
        { "calls", 0 }, { "items", 0 }, { "outside", 0 }, { "lowest", 0 }, { "end", 0 }
    };
}

provided_ring tx_sink_impl::ring() const
{
    return { d_stream->ring_base(), d_stream->ring_items(), d_stream->item_size() };
}

std::string tx_sink_impl::error() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_error;
}

void tx_sink_impl::set_error(const std::string& text)
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (!d_error.empty())
            return;
        d_error = text;
    }
    d_logger->error("{}; the flowgraph ends", text);
}

std::string tx_sink_impl::input_problem() const
{
    // The upstream's output buffer must be our ring: not behind a block whose output
    // is a ring of its own (rx_source: the edge keeps the upstream's buffer type).
    const auto ring =
        std::dynamic_pointer_cast<ring_buffer>(detail()->input(0)->buffer());
    if (!ring || ring->base() != reinterpret_cast<const char*>(d_stream->ring_base()))
        return "rdma tx_sink: the buffer of its input is not its TX ring: the upstream "
               "block has an RDMA ring of its own (rx_source); put a blocks.copy in "
               "front of the sink";
    // The ring must be the sink's alone. Another consumer of the edge reads the ring
    // too (GNU Radio connected it after the sink) or the buffer the ring replaced
    // (connected before), which nothing writes; another tx_sink's ring replaced this
    // one (notes: custom buffers, §1.8).
    const gr::buffer_sptr original = ring->replaced();
    if (ring->nreaders() > 1 || (original && original->nreaders() > 0) ||
        !ring->writers_output())
        return "rdma tx_sink: the upstream block's output fans out to the sink and to "
               "another block, but the sink's input buffer is its TX ring and must be "
               "its alone (GNU Radio 3.10.5.1 cannot share a replaced buffer); put a "
               "blocks.copy in front of the sink (upstream -> copy -> tx_sink) and "
               "connect the other consumers to the upstream, before the copy";
    return {};
}

void tx_sink_impl::end_orphaned_readers()
{
    // Readers left on the buffer the ring replaced would wait for ever for items no
    // block writes: mark it done, so each ends once it sees no input, and wake it now
    // rather than at its next 250 ms poll.
    const auto ring =
        std::dynamic_pointer_cast<ring_buffer>(detail()->input(0)->buffer());
    const gr::buffer_sptr original = ring ? ring->replaced() : nullptr;
    if (!original)
        return;
    original->set_done(true);
    for (size_t i = 0; i < original->nreaders(); i++) {
        const gr::block_sptr reader = original->reader(i)->link();
        if (reader && reader->detail())
            reader->detail()->d_tpb.notify_msg();
    }
}

bool tx_sink_impl::start()
{
    // Converting, the input is an ordinary buffer: any upstream, any fan-out.
    const std::string problem = d_conversion ? std::string() : input_problem();
    if (!problem.empty()) {
        // work() ends the flowgraph; the other consumers end with it.
        set_error(problem);
        end_orphaned_readers();
        return block::start();
    }
    // The device starts at the first work() call: the upstream has written its first
    // items by then (they are committed before START, so the converter has samples from
    // its first tick), and a tx_time tag on item 0 gives the start time.
    d_started = false;
    return block::start();
}

bool tx_sink_impl::prime_and_start(const void* in, uint64_t read, uint64_t written)
{
    // A tx_time on item 0 starts the device at that time: the run's time grid is then
    // anchored at it, so later tx_times on that grid play to the sample. One already
    // past (or too near to start at) is a late burst as any other: queued, the device
    // drops it (time_error) and plays on; without bursts the device refuses the START.
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, 0, 1);
    uint64_t at_ns = d_tags.time_at_0(tags);
    bool skip = at_ns != 0;
    if (at_ns && d_queued && at_ns <= d_stream->device_time_now() + start_margin_ns) {
        skip = false; // a burst boundary at item 0: START(0, T), late
        at_ns = 0;
    }
    d_tags.reset(skip);
    // What the upstream wrote by now is committed before START (the converter has
    // samples from its first tick): its first burst, so that no more than its entries
    // wait for the device.
    make_available(in, read, written, true);
    return start_stream(at_ns);
}

bool tx_sink_impl::start_stream(uint64_t at_ns)
{
    // GNU Radio starts every buffer at index 0: item k is ring slot k mod N, as the
    // fresh stream's item k.
    d_started = true;
    try {
        if (at_ns)
            d_stream->start_at(at_ns);
        else
            d_stream->start();
    } catch (const std::exception& e) {
        publish_reports(); // a start time already past: time_error
        set_error(std::string("rdma tx_sink: the stream did not start: ") + e.what());
        return false;
    }
    return true;
}

bool tx_sink_impl::stop()
{
    d_stream->stop();
    publish_reports();
    return block::stop();
}

void tx_sink_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // Holding the last item alone, everything before it let go (consumable()): nothing
    // to do until the upstream writes more or ends. One item would make work() spin.
    const gr::buffer_reader_sptr& input = detail()->input(0);
    const uint64_t read = nitems_read(0);
    const uint64_t written = read + static_cast<uint64_t>(input->items_available());
    const bool idle = written == read + 1 && releasable() >= written && !input->done();
    ninput_items_required[0] = idle ? 2 : 1;
}

void tx_sink_impl::check_pointer(const void* in)
{
    if (d_conversion)
        return; // the input is an ordinary buffer: conversion_writes() checks the ring
    const uint8_t* expected =
        d_stream->ring_base() + (nitems_read(0) % d_stream->ring_items()) * d_item;
    if (in != expected)
        d_pointer_mismatches++;
}

void tx_sink_impl::fill_to(const void* in, uint64_t read, uint64_t to)
{
    // Zero copy, the upstream wrote the items into the ring; else they are converted
    // into it, as far as it has room.
    if (d_conversion)
        d_conversion->fill(*d_stream, in, read, to);
    else
        commit_new(to);
}

void tx_sink_impl::make_available(const void* in,
                                  uint64_t read,
                                  uint64_t written,
                                  bool first_burst)
{
    if (!d_queued) {
        warn_unused_tags(d_stream->committed(), written);
        fill_to(in, read, written);
        return;
    }
    // Burst boundary by boundary: each entry goes to the stream at its commit
    // position, before the items after it (tx_stream lets the device see them only
    // once it has the END before them). The item before the first uncommitted one may
    // carry a tx_eob not acted on yet.
    const uint64_t committed = d_stream->committed();
    get_tags_in_range(
        d_tag_buffer, 0, committed > read ? committed - 1 : committed, written);
    d_tags.scan(d_tag_buffer);
    for (;;) {
        const uint64_t at = d_stream->committed();
        tx_burst_tags::action a;
        const uint64_t b = d_tags.next(at, written, a);
        if (b > at) {
            fill_to(in, read, b);
            if (d_stream->committed() < b)
                return; // the ring is full (converting): the rest at the next call
        }
        if (a.end)
            d_stream->end_burst();
        if (a.begin)
            d_stream->begin_burst(a.time_ns);
        d_tags.applied(b, a);
        if (b >= written || (first_burst && a.any() && b > 0))
            return;
    }
}

void tx_sink_impl::warn_unused_tags(uint64_t from, uint64_t to)
{
    if (d_warned_tags || from >= to)
        return;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, from, to);
    for (const gr::tag_t& t : tags) {
        const std::string key = pmt::is_symbol(t.key) ? pmt::symbol_to_string(t.key) : "";
        if (key == "tx_sob" || key == "tx_eob" || (key == "tx_time" && t.offset > 0)) {
            d_warned_tags = true;
            d_logger->warn("the device has no TX bursts (CAP_TX_BURSTS, register map "
                           "1.4): {} and every tx_sob, tx_eob and tx_time after item 0 "
                           "are ignored; the input streams continuously",
                           key);
            return;
        }
    }
}

uint64_t tx_sink_impl::releasable() const
{
    // Zero copy, what the device fetched: until consumed, the upstream cannot overwrite
    // it. Converting, what is converted: the ring holds the copies.
    return d_conversion ? d_stream->committed() : d_stream->fetched();
}

uint64_t tx_sink_impl::consumable(uint64_t written) const
{
    // All that may go but the last item: GNU Radio calls work() only while input is
    // left, and work() is where the stream ends (short_tail(): play every whole
    // message, then stop, while the blocks taking the last reports still run). With
    // nothing left, GNU Radio would end the sink as soon as the upstream ends.
    const uint64_t ready = releasable();
    return ready < written ? ready : written - 1;
}

void tx_sink_impl::commit_new(uint64_t written)
{
    // The items beyond those committed are new: make them available to the device.
    const uint64_t committed = d_stream->committed();
    if (written > committed)
        d_stream->commit(static_cast<size_t>(written - committed));
}

void tx_sink_impl::publish_reports()
{
    tx_event e;
    while (d_stream->poll_event(e)) {
        const uint64_t secs = e.time_ns / 1000000000u;
        const double frac = (e.time_ns % 1000000000u) * 1e-9;
        pmt::pmt_t msg = pmt::make_dict();
        msg = pmt::dict_add(msg, keys::event_code(), pmt::mp(to_string(e.type)));
        msg = pmt::dict_add(msg, keys::count(), pmt::from_uint64(e.count));
        msg = pmt::dict_add(msg, keys::item(), pmt::from_uint64(e.item));
        msg = pmt::dict_add(msg, keys::value(), pmt::from_uint64(e.value));
        msg = pmt::dict_add(msg, keys::bursts(), pmt::from_uint64(e.bursts));
        msg = pmt::dict_add(msg, keys::unattributed(), pmt::from_bool(e.unattributed));
        msg = pmt::dict_add(
            msg,
            keys::time_spec(),
            pmt::make_tuple(pmt::from_uint64(secs), pmt::from_double(frac)));
        msg = pmt::dict_add(msg, keys::channel(), pmt::from_long(0));
        message_port_pub(keys::async_msgs(), msg);
    }
}

bool tx_sink_impl::take_input(const void* in, uint64_t read, uint64_t written)
{
    try {
        if (!d_started && !prime_and_start(in, read, written))
            return false;
        make_available(in, read, written);
        if (consumable(written) <= read && d_stream->committed() > d_stream->fetched()) {
            // Nothing new to let go: wait (bounded) until the device frees more of the
            // ring.
            const size_t in_use = d_stream->committed() - d_stream->fetched();
            d_stream->wait_space(d_stream->ring_items() - in_use + 1, d_wait_slice);
            make_available(in, read, written); // into the space freed
        }
    } catch (const std::exception& e) { // a burst entry the device would not take
        publish_reports();
        set_error(std::string("rdma tx_sink: ") + e.what());
        return false;
    }
    return true;
}

int tx_sink_impl::general_work(int,
                               gr_vector_int& ninput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star&)
{
    d_work_calls++;
    if (!error().empty())
        return WORK_DONE;
    check_pointer(input_items[0]);
    const uint64_t read = nitems_read(0);
    const uint64_t written = read + static_cast<uint64_t>(ninput_items[0]);
    if (!take_input(input_items[0], read, written))
        return WORK_DONE;
    publish_reports();
    if (!d_stream->error().empty()) {
        set_error("rdma tx_sink: " + d_stream->error());
        return WORK_DONE;
    }
    const uint64_t tail = short_tail(read);
    if (!error().empty())
        return WORK_DONE;
    const uint64_t upto = std::max(consumable(written), tail);
    const int n = upto > read ? static_cast<int>(upto - read) : 0;
    consume(0, n);
    if (tail) {
        // Everything is played: stop the device now, so that its last reports go out
        // while the blocks that take them still run.
        d_stream->stop();
        publish_reports();
        return WORK_DONE;
    }
    return n;
}

uint64_t tx_sink_impl::short_tail(uint64_t read)
{
    // The end of the stream: the upstream is done. The device tells what it fetched
    // every notify= messages and fetches whole messages only, so the last items may
    // never be reported: once it has played every whole message (its counters), let
    // them all go. STOP counts what was not played, so the accounting still holds.
    // Done first, then what is written: the upstream sets done after its last write,
    // so items written after this call's ninput_items show up here, and the end waits
    // for the next call, which commits them.
    const gr::buffer_reader_sptr& input = detail()->input(0);
    if (!input->done())
        return 0;
    const uint64_t written = read + static_cast<uint64_t>(input->items_available());
    const uint64_t committed = d_stream->committed();
    if (written != committed || committed <= read)
        return 0;
    // Queued, the open burst ends here: the device plays every item of it, the last
    // partial message too (the END cuts it into a piece).
    if (d_queued && d_stream->in_burst()) {
        try {
            d_stream->end_burst();
        } catch (const std::exception& e) { // no room for the END: the stream ended
            set_error(std::string("rdma tx_sink: ") + e.what());
            return 0;
        }
    }
    if (!d_stream->wait_played(d_wait_slice))
        return 0;
    d_short_tail = d_queued ? 0 : committed % d_message_items;
    return committed;
}

std::map<std::string, uint64_t> tx_sink_impl::read_counters()
{
    std::map<std::string, uint64_t> out = d_stream->read_counters();
    out["host.start_time_ns"] = d_stream->start_time_ns();
    const tx_stream::accounting a = d_stream->counts();
    out["acct.host_committed"] = a.host_committed;
    out["acct.played"] = a.played;
    out["acct.late"] = a.late;
    out["acct.dropped"] = a.dropped;
    out["acct.not_played"] = a.not_played;
    out["acct.idle"] = a.idle;
    out["acct.bursts_done"] = a.bursts_done;
    out["acct.time_errors"] = a.time_errors;
    out["host.queued"] = d_queued;
    out["acct.underflow"] = a.underflow;
    out["acct.final"] = a.final;
    out["acct.identity_holds"] = a.identity_holds();
    out["host.work_calls"] = d_work_calls;
    out["host.pointer_mismatches"] = d_pointer_mismatches;
    out["host.short_tail"] = d_short_tail;
    return out;
}

} // namespace rdma
} // namespace gr
