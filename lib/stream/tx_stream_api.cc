/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// tx_stream's public face: each call forwards to tx_stream::impl.

#include "sdr_impl.h"
#include "stream_args.h"
#include "tx_stream_impl.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {

const char* to_string(tx_event::kind k)
{
    switch (k) {
    case tx_event::kind::underflow:
        return "underflow";
    case tx_event::kind::late:
        return "late";
    case tx_event::kind::time_error:
        return "time_error";
    case tx_event::kind::burst_ack:
        return "burst_ack";
    case tx_event::kind::stream_failed:
        return "stream_failed";
    case tx_event::kind::nic_error:
        return "nic_error";
    case tx_event::kind::stream_stopped:
        return "stream_stopped";
    case tx_event::kind::seq_error:
        return "seq_error";
    case tx_event::kind::lead:
        return "lead";
    case tx_event::kind::device_lost:
        return "device_lost";
    }
    return "unknown";
}

tx_stream::tx_stream(const std::string& args,
                     const std::string& format,
                     double sample_rate,
                     uint64_t num_samples)
    : d_impl(sdr::impl(args, tx_stream_arg_tables)
                 .tx(format, sample_rate, num_samples, sdr::args_stream))
{
}
tx_stream::tx_stream(std::unique_ptr<impl> impl) : d_impl(std::move(impl)) {}

tx_stream::~tx_stream() = default;

void tx_stream::start() { d_impl->start(0); }
void tx_stream::start_at(uint64_t device_time_ns)
{
    if (device_time_ns == 0)
        throw std::invalid_argument("start_at: a device time of 0 means \"now\": use "
                                    "start()");
    d_impl->start(device_time_ns);
}
uint64_t tx_stream::device_time_now() { return d_impl->device_time_now(); }
void tx_stream::stop() { d_impl->stop(); }
bool tx_stream::running() const { return d_impl->running(); }

tx_stream::space tx_stream::wait_space(size_t min_items,
                                       std::chrono::microseconds timeout)
{
    return d_impl->wait_space(min_items, timeout);
}

void tx_stream::commit(size_t items) { d_impl->commit(items); }

size_t
tx_stream::send_copy(const void* items, size_t count, std::chrono::microseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const size_t item = item_size();
    const auto* from = static_cast<const uint8_t*>(items);
    size_t sent = 0;
    while (sent < count) {
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        const space s =
            d_impl->wait_space(1, std::max(left, std::chrono::microseconds(0)));
        if (s.items == 0)
            break;
        const size_t n = std::min(s.items, count - sent);
        std::memcpy(s.data, from + sent * item, n * item); // the copy its name says
        d_impl->commit(n);
        sent += n;
    }
    return sent;
}

bool tx_stream::wait_fetched(std::chrono::microseconds timeout)
{
    return d_impl->wait_fetched(timeout);
}
bool tx_stream::wait_played(std::chrono::microseconds timeout)
{
    return d_impl->wait_played(timeout);
}
void tx_stream::begin_burst(uint64_t time_ns) { d_impl->begin_burst(time_ns); }
void tx_stream::end_burst() { d_impl->end_burst(); }
bool tx_stream::in_burst() const { return d_impl->in_burst(); }
bool tx_stream::is_queued() const { return d_impl->plan().queued; }
uint64_t tx_stream::committed() const { return d_impl->committed(); }
uint64_t tx_stream::fetched() const { return d_impl->fetched(); }
tx_stream::accounting tx_stream::counts() { return d_impl->counts(); }
bool tx_stream::poll_event(tx_event& out) { return d_impl->poll_event(out); }
std::string tx_stream::error() const { return d_impl->error(); }
std::map<std::string, uint64_t> tx_stream::read_counters()
{
    return d_impl->read_counters();
}

uint8_t* tx_stream::ring_base() const { return d_impl->ring().base(); }
size_t tx_stream::ring_bytes() const { return d_impl->ring().bytes(); }
size_t tx_stream::ring_items() const { return d_impl->ring_items(); }
size_t tx_stream::item_size() const { return rdma::item_size(d_impl->plan().format); }
std::string tx_stream::format() const { return to_string(d_impl->plan().format); }
double tx_stream::sample_rate() const { return d_impl->plan().sample_rate; }
bool tx_stream::hugepages() const { return d_impl->ring().hugepages(); }
size_t tx_stream::payload_bytes() const { return d_impl->plan().payload_bytes; }
unsigned tx_stream::path_mtu() const { return d_impl->plan().path_mtu; }
unsigned tx_stream::max_reads() const { return d_impl->max_reads(); }
uint64_t tx_stream::start_time_ns() const { return d_impl->start_time_ns(); }

} // namespace rdma
} // namespace gr
