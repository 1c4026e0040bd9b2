/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_watch.h"
#include "../regs/ctrl_registers.h"
#include <exception>

namespace gr {
namespace rdma {

device_watch::device_watch(device_controller& device,
                           unsigned stream,
                           std::chrono::milliseconds period,
                           std::chrono::milliseconds lost_after)
    : d_device(device),
      d_stream(stream),
      d_liveness(lost_after),
      d_worker(thread_role::host, "rdma-watch", period, [this] { beat(); })
{
}

device_watch::~device_watch() = default;

void device_watch::start(bool owned)
{
    d_liveness.reset(now_ns());
    d_status = regs::status::running;
    d_owned = owned;
    d_taken = false;
    d_stop_cause = no_cause;
    d_longest_silence_ns = 0;
    d_last_beat_ns = now_ns();
    d_unanswered_ns = 0;
    if (d_hold.held()) // a hold of the run before ends with it
        d_holds_ended++;
    d_hold = rate_hold(d_rate_need.load());
    d_worker.start();
}

void device_watch::stop() { d_worker.stop(); }

device_watch::state device_watch::current(int64_t now) const
{
    if (d_liveness.lost(now))
        return state::lost;
    if (d_taken.load(std::memory_order_relaxed))
        return state::taken_over;
    const uint32_t status = d_status.load(std::memory_order_relaxed);
    if (status & regs::status::error)
        return state::stream_failed;
    if (!(status & (regs::status::running | regs::status::done)))
        return state::stream_stopped;
    return state::ok;
}

void device_watch::beat()
{
    // How long this host asked nothing: its own silence, whatever the device did.
    // Time spent waiting for answers that never came (a network down, a device gone)
    // was spent asking: not silence (else a lease lapsed for the network's sake would
    // be blamed on this host).
    const int64_t began = now_ns();
    const int64_t silence = began - d_last_beat_ns.load() - d_unanswered_ns;
    if (silence > d_longest_silence_ns.load())
        d_longest_silence_ns = silence;
    d_last_beat_ns = began;
    d_unanswered_ns = 0;
    d_beat_unanswered = false;
    beat_exchanges();
    if (d_beat_unanswered)
        d_unanswered_ns = now_ns() - began;
}

void device_watch::beat_exchanges()
{
    try {
        // The status word, and for an owned stream its owner: each exchange costs the
        // host a few tens of microseconds.
        const uint32_t status =
            d_device.client().read32(regs::rx_reg(d_stream, regs::rx::status));
        // Read after the status: still this host's then, the status was its run's.
        // Once another host's, it stays so for this run (nobody gives a stream back).
        if (d_owned && d_device.read_owner(stream_direction::rx, d_stream) ==
                           stream_owner::another_host)
            d_taken = true;
        read_stop_cause(status);
        d_status = status;
        d_liveness.answered(now_ns());
    } catch (const axioe::error&) {
        // An answer, if not the one asked for: the device is there.
        d_liveness.answered(now_ns());
    } catch (const std::exception& e) {
        d_liveness.failed(e.what());
        d_beat_unanswered = true;
        return;
    }
    read_rate();
}

void device_watch::read_stop_cause(uint32_t status)
{
    const bool over = (status & regs::status::error) ||
                      !(status & (regs::status::running | regs::status::done));
    if (!over || d_stop_cause.load() != no_cause ||
        !d_device.has(regs::cap::stop_cause))
        return;
    try { // latched by the device as RUNNING cleared: the same whenever read
        d_stop_cause = d_device.client().read32(regs::rx_reg(d_stream, regs::rx::stop_cause));
    } catch (const axioe::error&) {
        // Answered, if not as asked: no cause (a device that says DECERR has none).
    } catch (const std::exception&) {
        d_beat_unanswered = true;
        // Unknown: the stream is reported stopped all the same, without the cause.
    }
}

void device_watch::read_rate()
{
    const uint64_t need = d_rate_need.load();
    if (need != d_hold.need_bytes_per_s()) { // a new run at another rate: afresh
        if (d_hold.held())
            d_holds_ended++;
        d_hold = rate_hold(need);
    }
    if (need == 0)
        return;
    uint32_t kib = 0;
    try {
        kib = d_device.client().read32(regs::ctrl_rate_reg(d_stream));
    } catch (const axioe::error&) {
        return; // answered: the register is not this device's to give
    } catch (const std::exception&) {
        d_beat_unanswered = true;
        return; // the liveness is the status read's to judge; the next beat reads again
    }
    switch (d_hold.feed(kib)) {
    case rate_hold::change::began:
        d_held_bytes = d_hold.held_bytes_per_s();
        d_holds_begun++;
        break;
    case rate_hold::change::ended:
        d_holds_ended++;
        break;
    case rate_hold::change::none:
        if (d_hold.held())
            d_held_bytes = d_hold.held_bytes_per_s();
        break;
    }
}

} // namespace rdma
} // namespace gr
