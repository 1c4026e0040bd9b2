/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "../util/thread_role.h"
#include "command_queue.h"
#include "rf_channel.h"
#include <algorithm>
#include <chrono>

namespace gr {
namespace rdma {
namespace emu {

namespace err = regs::cmd::error;

command_queue::command_queue(const device_clock& clock,
                             std::vector<rf_channel*> channels,
                             unsigned streams)
    : d_clock(clock), d_channels(std::move(channels)), d_streams(streams, nullptr)
{
    d_thread = std::thread([this] { loop(); });
}

command_queue::~command_queue()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_shutdown = true;
    }
    d_wake.notify_all();
    d_thread.join();
}

uint32_t command_queue::check(const command& c, unsigned& stream) const
{
    const uint32_t a = c.address;
    const uint32_t rf_end = regs::rf_base + regs::rf_stride * d_channels.size();
    if (a >= regs::rf_base && a < rf_end) {
        stream = (a - regs::rf_base) / regs::rf_stride;
        switch ((a - regs::rf_base) % regs::rf_stride) {
        case regs::rf::freq_lo:
        case regs::rf::gain:
        case regs::rf::bandwidth:
            return err::none;
        case regs::rf::antenna:
            return c.data < d_channels[stream]->limits().antennas ? err::none
                                                                  : err::bad_value;
        default:
            return err::not_timeable;
        }
    }
    const uint32_t rx_end = regs::rx_base + regs::rx_stride * d_streams.size();
    if (a >= regs::rx_base && a < rx_end &&
        (a - regs::rx_base) % regs::rx_stride == regs::rx::command) {
        stream = (a - regs::rx_base) / regs::rx_stride;
        // START cannot be timed here: RX_START_TIME does that.
        return c.data == regs::command::stop ? err::none : err::bad_value;
    }
    return err::not_timeable;
}

uint32_t command_queue::push(const command& c)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    unsigned stream = 0;
    uint32_t error = d_queued == capacity ? err::full : check(c, stream);
    const uint64_t now = d_clock.now();
    const bool late = c.time_ns != 0 && c.time_ns < now;
    if (error == err::full && (c.time_ns == 0 || late))
        error = check(c, stream); // executes at once: takes no room
    d_error = error;
    if (error != err::none)
        return error;
    if (c.time_ns == 0 || late) {
        // At once, as an untimed write, after what was due before it.
        run(all_streams, now);
        execute(c, stream, false);
        d_late += late ? 1 : 0;
        return err::none;
    }
    entry e;
    e.c = c;
    e.stream = stream;
    e.sequence = d_next_sequence++;
    auto end = d_queue.begin() + d_queued;
    auto at =
        std::upper_bound(d_queue.begin(), end, e, [](const entry& a, const entry& b) {
            return a.c.time_ns < b.c.time_ns ||
                   (a.c.time_ns == b.c.time_ns && a.sequence < b.sequence);
        });
    std::move_backward(at, end, end + 1);
    *at = e;
    d_queued++;
    d_poked = true;
    d_wake.notify_all();
    return err::none;
}

void command_queue::clear(uint32_t streams)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    auto end = std::remove_if(
        d_queue.begin(), d_queue.begin() + d_queued, [streams](const entry& e) {
            return e.stream < 32 && (streams >> e.stream) & 1;
        });
    d_queued = static_cast<unsigned>(end - d_queue.begin());
}

void command_queue::refuse(uint32_t error)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_error = error;
}

void command_queue::connect(unsigned s, stoppable_stream* stream)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_streams.at(s) = stream;
}

void command_queue::clock_changed()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_poked = true;
    d_wake.notify_all();
}

uint32_t command_queue::status() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_queued | (capacity << 8) | (d_error << 16);
}

uint32_t command_queue::executed() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_executed;
}

uint32_t command_queue::late() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_late;
}

void command_queue::run_due(unsigned stream, uint64_t upto_ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_queued == 0)
        return;
    run(stream, std::min(upto_ns, d_clock.now()));
}

void command_queue::run(unsigned stream_or_all, uint64_t upto_ns)
{
    // In queue order; a command left in place keeps its rank among the others.
    unsigned kept = 0;
    for (unsigned i = 0; i < d_queued; i++) {
        const entry e = d_queue[i];
        const bool due = e.c.time_ns <= upto_ns &&
                         (stream_or_all == all_streams || e.stream == stream_or_all);
        if (due)
            execute(e.c, e.stream, true);
        else
            d_queue[kept++] = e;
    }
    d_queued = kept;
}

void command_queue::execute(const command& c, unsigned stream, bool timed)
{
    // A timed command acts as a write of its value at its time; an untimed (or late)
    // one as a write now.
    const uint64_t at = timed ? c.time_ns : 0;
    d_executed++;
    if (c.address >= regs::rx_base && c.address < regs::rx_base + 0x1000) {
        if (d_streams[stream])
            d_streams[stream]->stop_at(timed ? c.time_ns : d_clock.now());
        return;
    }
    rf_channel& ch = *d_channels[stream];
    const uint32_t low = regs::low_word(c.data);
    switch ((c.address - regs::rf_base) % regs::rf_stride) {
    case regs::rf::freq_lo:
        ch.tune(c.data, at);
        break;
    case regs::rf::gain:
        ch.set_gain(static_cast<int32_t>(low), at);
        break;
    case regs::rf::bandwidth:
        ch.set_bandwidth(low);
        break;
    case regs::rf::antenna:
        ch.set_antenna(low); // checked at push
        break;
    }
}

void command_queue::loop()
{
    thread_role_scope role(thread_role::device, "emu-cmd");
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_shutdown) {
        run(all_streams, d_clock.now());
        // Until the first command's time as the clock says now, or the next PPS edge
        // if a set waits for it (the edge moves the time under the queue), or a poke.
        int64_t wake = INT64_MAX;
        if (d_queued)
            wake = d_clock.oscillator_at(d_queue[0].c.time_ns);
        if (d_queued && d_clock.pps_armed())
            wake = std::min(wake, d_clock.next_pps_edge());
        const auto woken = [this] { return d_poked || d_shutdown; };
        if (wake == INT64_MAX)
            d_wake.wait(lock, woken);
        else
            d_wake.wait_for(lock,
                            std::chrono::nanoseconds(
                                std::max<int64_t>(wake - d_clock.oscillator_now(), 0)),
                            woken);
        d_poked = false;
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
