/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// tx_stream in queued mode (docs/transmit.md, "Bursts and time"): the burst boundaries
// the producer marks become TX burst queue entries (tx_burst_plan), pushed as the
// device takes them, and the device sees an item only once it knows the burst's END
// before it.

#include "../util/host_time.h"
#include "tx_stream_impl.h"
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace gr {
namespace rdma {

namespace {

int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// A push the device refused as full is tried again this much later at the soonest.
constexpr int64_t retry_ns = 1000000;
// How far the device's clock must be past the earliest time of a late START: its
// take-up (at the next step of its engine) and the clock estimate's own error.
constexpr uint64_t late_margin_ns = 1000000;

} // namespace

void tx_stream::impl::check_queued(const char* what) const
{
    if (!d_plan.queued)
        throw std::logic_error(std::string(what) +
                               ": the stream was not made in queued mode "
                               "(num_samples = tx_stream::queued)");
}

void tx_stream::impl::begin_burst(uint64_t time_ns)
{
    check_queued("begin_burst");
    if (!d_running && !d_fresh)
        begin_fresh(); // marking the next run's first burst
    make_room();
    d_bursts.begin(d_committed, time_ns);
    if (d_running)
        push_bursts();
}

void tx_stream::impl::end_burst()
{
    check_queued("end_burst");
    if (!d_running && !d_fresh)
        begin_fresh();
    make_room();
    d_bursts.end(d_committed);
    if (d_running)
        push_bursts(); // the device may play the burst's last items now
    publish();
}

void tx_stream::impl::make_room()
{
    if (!d_plan.queued || d_bursts.has_room())
        return;
    // The device's queue is full and the host's list too: the producer waits, bounded.
    const auto deadline = std::chrono::steady_clock::now() + tx_stream::burst_patience;
    while (d_running && d_error.empty() && !d_bursts.has_room() &&
           std::chrono::steady_clock::now() < deadline) {
        pump_completions();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        push_bursts();
    }
    if (d_bursts.has_room())
        return;
    if (d_error.empty())
        fail(tx_event::kind::stream_failed,
             0,
             std::to_string(d_bursts.waiting()) +
                 " burst entries wait on the host for room in the device's TX burst "
                 "queue (" +
                 (d_running ? "full for " +
                                  std::to_string(tx_stream::burst_patience.count()) + " s"
                            : std::string("the stream is not running")) +
                 "): bursts timed far ahead fill it; begin fewer bursts ahead of time");
    throw std::runtime_error("TX stream " + std::to_string(d_plan.stream_index) + ": " +
                             d_error);
}

uint64_t tx_stream::impl::device_now_low() const
{
    const int64_t t =
        host_time_ns() + d_clock.offset_ns - static_cast<int64_t>(d_clock.error_ns);
    return t > 0 ? static_cast<uint64_t>(t) : 0;
}

void tx_stream::impl::push_bursts()
{
    if (!d_plan.queued || !d_error.empty() || !d_qp)
        return;
    const int64_t now = steady_ns();
    if (d_refused_since && now - d_last_try < retry_ns)
        return;
    const uint64_t tick_ns = static_cast<uint64_t>(1e9 / d_plan.sample_rate) + 1;
    const uint64_t margin = late_margin_ns + tick_ns + 2 * d_clock.error_ns;
    while (const tx_burst_entry* e = d_bursts.front()) {
        const tx_burst_plan::decision d = d_bursts.resolve(device_now_low(), margin);
        if (!d.now)
            break; // a late START waits until the device's clock has passed its time
        if (!push_one(*e, d))
            break;
    }
    publish();
}

bool tx_stream::impl::push_one(const tx_burst_entry& e, const tx_burst_plan::decision& d)
{
    const unsigned t = d_plan.stream_index;
    auto logged = e.start ? d_log.will_start(e.item, e.time_ns, d.time_ns)
                          : d_log.will_end(e.item);
    try {
        if (e.start)
            d_device->push_tx_start(t, e.item, d.time_ns);
        else
            d_device->push_tx_end(t, e.item);
    } catch (const tx_burst_refused& x) {
        d_refusals++;
        if (x.code() == regs::tbq::error::full) {
            note_refused(std::string("the device's TX burst queue stayed full for ") +
                         std::to_string(tx_stream::burst_patience.count()) +
                         " s: bursts timed far ahead fill it (TBQ_STATUS.CAPACITY "
                         "entries); begin fewer bursts ahead of time");
            return false;
        }
        fail(tx_event::kind::stream_failed, x.code(), x.what());
        return false;
    } catch (const stream_owned_error& x) {
        fail(tx_event::kind::stream_stopped, 0, x.what());
        return false;
    } catch (const std::exception& x) {
        // The device did not answer: try again, as for a full queue.
        note_refused(std::string("the device did not take a TX burst entry for ") +
                     std::to_string(tx_stream::burst_patience.count()) +
                     " s: " + x.what());
        return false;
    }
    logged.keep();
    d_refused_since = 0;
    d_pushes++;
    if (e.start) {
        d_open_timed = d.time_ns != 0;
        d_open_first = e.item;
        if (d.late) {
            d_late_starts++;
            d_logger->debug("TX stream {}: the burst at item {} was asked for {} ns, "
                            "before {} ns, the earliest the device takes it: it goes "
                            "late, to be dropped",
                            t,
                            e.item,
                            e.time_ns,
                            d.time_ns);
        }
    } else {
        if (d_open_timed)
            d_timed_items += e.item - d_open_first;
        d_open_timed = false;
    }
    d_bursts.pushed(d.time_ns);
    return true;
}

void tx_stream::impl::note_refused(const std::string& why)
{
    const int64_t now = steady_ns();
    d_last_try = now;
    if (!d_refused_since)
        d_refused_since = now;
    else if (now - d_refused_since >
             std::chrono::nanoseconds(tx_stream::burst_patience).count())
        fail(tx_event::kind::stream_failed, 0, why);
}

void tx_stream::impl::publish()
{
    publish_items(d_plan.queued ? d_bursts.publish_limit(d_committed) : d_committed);
}

void tx_stream::impl::publish_items(uint64_t n)
{
    if (n == d_published)
        return;
    d_published = n;
    // The log first: a record about these items may come as soon as the page says them.
    d_log.published(n);
    d_page.publish(n); // release: the samples are visible before the count
}

uint64_t tx_stream::impl::playable() const
{
    // Continuous: the device fetches whole messages only, so it plays every whole one.
    // Queued: every burst up to the last END it has, and the whole messages of an open
    // burst after it.
    const uint64_t spm = d_plan.message_items;
    if (!d_plan.queued)
        return d_committed / spm * spm;
    const uint64_t whole = d_published / spm * spm;
    const uint64_t end = d_bursts.last_end_pushed();
    return d_bursts.open_pushed() ? std::max(end, whole) : end;
}

} // namespace rdma
} // namespace gr
