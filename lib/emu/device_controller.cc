/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "../util/thread_role.h"
#include "device_clock.h"
#include "device_controller.h"
#include "rx_engine.h"
#include "tx_engine.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace gr {
namespace rdma {
namespace emu {

namespace {

// The loop also wakes this often while streams run, to see runs that ended by
// themselves (a finite burst): their demand is gone.
constexpr int64_t housekeeping_ns = 10000000;

} // namespace

device_controller::device_controller(unsigned streams,
                                     unsigned links,
                                     unsigned tx_streams)
    : d_streams(std::min(streams, ctrl_max_streams)),
      d_links(std::min(links, ctrl_max_links)),
      d_tx_streams(std::min(tx_streams, ctrl_max_tx_streams))
{
    d_thread = std::thread([this] { loop(); });
}

device_controller::~device_controller()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_wake.notify_all();
    d_thread.join();
}

bool device_controller::set_policy(uint32_t policy)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_ctrl.set_policy(policy))
        return false;
    d_wake.notify_all();
    return true;
}

bool device_controller::set_period_us(uint32_t us)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_ctrl.set_period_us(us);
}

bool device_controller::set_rate_limit(unsigned s, uint32_t kib_per_s)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s >= d_streams)
        return false;
    d_limit_kib[s] = kib_per_s;
    // Host feedback: the stream's demand, in the links' bytes.
    const double bytes = double(kib_per_s) * regs::ctrl::rate_unit;
    if (!d_runs[s].engine) // the next run starts at it
        d_rate[s].store(uint64_t(bytes), std::memory_order_relaxed);
    post({ ctrl_kind::host,
           uint8_t(s),
           0,
           uint64_t(std::llround(bytes * d_runs[s].wire_per_byte)) });
    return true;
}

uint32_t device_controller::policy() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return uint32_t(d_ctrl.policy());
}

uint32_t device_controller::period_us() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_ctrl.period_us();
}

uint32_t device_controller::rate_limit(unsigned s) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return s < d_streams ? d_limit_kib[s] : 0;
}

uint32_t device_controller::kib_rounded_up(uint64_t bytes_per_s)
{
    const uint64_t kib =
        (bytes_per_s + regs::ctrl::rate_unit - 1) / regs::ctrl::rate_unit;
    return uint32_t(std::min<uint64_t>(kib, UINT32_MAX));
}

uint32_t device_controller::rate(unsigned s) const
{
    return s < d_streams ? kib_rounded_up(d_rate[s].load(std::memory_order_relaxed)) : 0;
}

bool device_controller::set_tx_rate_limit(unsigned t, uint32_t kib_per_s)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (t >= d_tx_streams)
        return false;
    d_tx_limit_kib[t] = kib_per_s;
    if (d_tx_runs[t].engine)
        post_tx(t); // a change of configuration: the next run takes it
    else            // the next run starts at it
        d_tx_rate[t].store(uint64_t(kib_per_s) * regs::ctrl::rate_unit,
                           std::memory_order_relaxed);
    return true;
}

uint32_t device_controller::tx_rate_limit(unsigned t) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return t < d_tx_streams ? d_tx_limit_kib[t] : 0;
}

uint32_t device_controller::tx_rate(unsigned t) const
{
    return t < d_tx_streams ? kib_rounded_up(d_tx_rate[t].load(std::memory_order_relaxed))
                            : 0;
}

device_controller::counts device_controller::counters() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    counts c;
    c.events = d_ctrl.queue().events();
    c.coalesced = d_ctrl.queue().coalesced();
    c.runs = d_ctrl.runs();
    c.nak_cuts = d_ctrl.backoff().cuts();
    c.tx_nak_cuts = d_ctrl.tx_backoff().cuts();
    return c;
}

void device_controller::set_capacity(unsigned link, uint64_t bytes_per_s)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (link >= d_links)
        return;
    d_ctrl.set_capacity(
        link, bytes_per_s ? double(bytes_per_s) * capacity_share : ctrl_model::unlimited);
    d_wake.notify_all();
}

void device_controller::link_changed(unsigned n, bool up)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    for (unsigned s = 0; s < d_streams; s++)
        for (uint8_t l : d_runs[s].link)
            if (l == n) {
                post({ ctrl_kind::link, uint8_t(s), uint8_t(n), up ? 1u : 0u });
                break;
            }
}

void device_controller::weight_written(unsigned s, unsigned d, uint32_t w)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s >= d_streams || d >= destination_table::max_destinations)
        return;
    const uint8_t l = d_runs[s].link[d];
    post({ ctrl_kind::weight, uint8_t(s), l == ctrl_run::no_link ? uint8_t(0) : l, w });
}

void device_controller::path_written(unsigned s, unsigned d, uint32_t ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s >= d_streams || d >= destination_table::max_destinations)
        return;
    // Not running: START takes the register's value. A destination whose requester
    // measures its RTT (RC) goes by the device's measure, not the host's.
    const uint8_t l = d_runs[s].link[d];
    if (d_runs[s].engine && l < d_links && !(d_device_rtt[s] >> d & 1))
        post({ ctrl_kind::rtt, uint8_t(s), l, ns });
}

void device_controller::rtt(unsigned s, unsigned d, unsigned link, uint32_t ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s >= d_streams || d >= destination_table::max_destinations || link >= d_links ||
        !d_runs[s].engine)
        return;
    d_device_rtt[s] |= 1u << d;
    post({ ctrl_kind::rtt, uint8_t(s), uint8_t(link), ns });
}

void device_controller::naks(unsigned s, unsigned link, uint64_t count)
{
    // One requester per destination, one destination per link: the queue (s, link).
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s < d_streams && link < d_links)
        post({ ctrl_kind::nak, uint8_t(s), uint8_t(link), count });
}

void device_controller::rereads(unsigned t, uint64_t count)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (t < d_tx_streams)
        post({ ctrl_kind::reread, uint8_t(t), 0, count });
}

void device_controller::stream_started(unsigned s, const ctrl_run& run)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s >= d_streams)
        return;
    d_runs[s] = run;
    d_device_rtt[s] = 0;
    uint32_t mask = 0;
    for (uint8_t l : run.link)
        if (l != ctrl_run::no_link && l < d_links)
            mask |= 1u << l;
    d_ctrl.set_links(s, mask);
    // Its destinations start up: a link that was cut before START is not in epoch 0's
    // schedule and comes as an event when it changes.
    for (unsigned l = 0; l < d_links; l++)
        if (mask >> l & 1)
            post({ ctrl_kind::link, uint8_t(s), uint8_t(l), 1 });
    // Its links' RTTs as the host last measured them (an earlier run's are gone).
    for (unsigned l = 0; l < d_links; l++)
        if (mask >> l & 1)
            post({ ctrl_kind::rtt, uint8_t(s), uint8_t(l), 0 });
    for (unsigned d = 0; d < run.link.size(); d++)
        if (run.link[d] < d_links && run.path_ns[d])
            post({ ctrl_kind::rtt, uint8_t(s), run.link[d], run.path_ns[d] });
    post({ ctrl_kind::demand,
           uint8_t(s),
           0,
           uint64_t(std::llround(run.demand * run.wire_per_byte)) });
    const double limit = double(d_limit_kib[s]) * regs::ctrl::rate_unit;
    post({ ctrl_kind::host,
           uint8_t(s),
           0,
           uint64_t(std::llround(limit * run.wire_per_byte)) });
    d_rate[s].store(uint64_t(limit), std::memory_order_relaxed);
}

void device_controller::stream_stopped(unsigned s)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (s >= d_streams)
        return;
    forget_run(s);
    d_wake.notify_all();
}

void device_controller::forget_run(unsigned s)
{
    // No demand: its share goes to the others at the next run; its next run starts
    // at the host's limit.
    d_runs[s] = ctrl_run();
    d_ctrl.set_links(s, 0);
    d_rate[s].store(uint64_t(d_limit_kib[s]) * regs::ctrl::rate_unit,
                    std::memory_order_relaxed);
}

void device_controller::tx_stream_started(unsigned t, const ctrl_tx_run& run)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (t >= d_tx_streams || run.link >= d_links)
        return;
    d_tx_runs[t] = run;
    post_tx(t);
    // The run's requester counts its re-reads from 0: the last run's are not new ones.
    post({ ctrl_kind::reread, uint8_t(t), 0, 0 });
    d_tx_rate[t].store(uint64_t(d_tx_limit_kib[t]) * regs::ctrl::rate_unit,
                       std::memory_order_relaxed);
}

void device_controller::tx_stream_stopped(unsigned t)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (t < d_tx_streams)
        forget_tx_run(t);
}

void device_controller::forget_tx_run(unsigned t)
{
    d_tx_runs[t] = ctrl_tx_run();
    d_ctrl.set_tx(t, ctrl_tx_state());
    d_tx_rate[t].store(uint64_t(d_tx_limit_kib[t]) * regs::ctrl::rate_unit,
                       std::memory_order_relaxed);
    d_wake.notify_all();
}

void device_controller::post_tx(unsigned t)
{
    // With the mutex held. A TX stream's state is configuration (it changes at START,
    // STOP and the host's writes only), so it makes the next run due, as a stream's
    // links do, rather than queueing an event.
    const ctrl_tx_run& r = d_tx_runs[t];
    ctrl_tx_state st;
    st.link = r.link;
    st.demand = uint64_t(std::llround(r.demand * r.wire_per_byte));
    st.host_limit = uint64_t(std::llround(double(d_tx_limit_kib[t]) *
                                          regs::ctrl::rate_unit * r.wire_per_byte));
    d_ctrl.set_tx(t, st);
    d_wake.notify_all();
}

void device_controller::post(const ctrl_event& e)
{
    // With the mutex held. O(1): the loop, not the poster, does the work.
    const bool was_idle = d_ctrl.queue().pending() == 0;
    d_ctrl.post(e);
    if (was_idle)
        d_wake.notify_all();
}

void device_controller::notice_ended_runs()
{
    for (unsigned s = 0; s < d_streams; s++) {
        const ctrl_run& r = d_runs[s];
        if (r.engine && !(r.engine->status() & regs::status::running))
            forget_run(s);
    }
    for (unsigned t = 0; t < d_tx_streams; t++) {
        const ctrl_tx_run& r = d_tx_runs[t];
        if (r.engine && !(r.engine->status() & regs::status::running))
            forget_tx_run(t);
    }
}

void device_controller::loop()
{
    thread_role_scope role(thread_role::device, "emu-ctrl");
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_stop) {
        notice_ended_runs();
        const int64_t now = monotonic_ns();
        if (d_ctrl.tick(now)) {
            apply();
            continue;
        }
        const bool streaming = std::any_of(d_runs.begin(),
                                           d_runs.end(),
                                           [](const ctrl_run& r) { return r.engine; }) ||
                               std::any_of(d_tx_runs.begin(),
                                           d_tx_runs.end(),
                                           [](const ctrl_tx_run& r) { return r.engine; });
        const int64_t next = d_ctrl.next_run_ns();
        int64_t wait = next == INT64_MAX ? INT64_MAX : next - now;
        if (streaming)
            wait = std::min(wait, housekeeping_ns);
        if (wait == INT64_MAX)
            d_wake.wait(lock);
        else
            d_wake.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(wait, 0)));
    }
}

void device_controller::apply()
{
    for (unsigned s = 0; s < d_streams; s++) {
        const ctrl_run& r = d_runs[s];
        if (!r.engine)
            continue;
        const ctrl_output& o = d_ctrl.output(s);
        uint64_t rate = d_limit_kib[s] * regs::ctrl::rate_unit; // the host's, as written
        if (d_ctrl.writes() && o.limited) {
            const uint64_t fair = uint64_t(std::max(o.rate, 0.0) / r.wire_per_byte);
            rate = rate ? std::min(rate, fair) : std::max<uint64_t>(fair, 1);
        }
        d_rate[s].store(rate, std::memory_order_relaxed);
        if (d_ctrl.writes())
            apply_weights(s, o);
    }
    for (unsigned t = 0; t < d_tx_streams; t++) {
        const ctrl_tx_run& r = d_tx_runs[t];
        if (!r.engine)
            continue;
        const ctrl_output& o = d_ctrl.tx_output(t);
        uint64_t rate = uint64_t(d_tx_limit_kib[t]) * regs::ctrl::rate_unit;
        if (d_ctrl.writes() && o.limited) {
            const uint64_t fair = uint64_t(std::max(o.rate, 0.0) / r.wire_per_byte);
            rate = rate ? std::min(rate, fair) : std::max<uint64_t>(fair, 1);
        }
        d_tx_rate[t].store(rate, std::memory_order_relaxed);
    }
}

void device_controller::apply_weights(unsigned s, const ctrl_output& o)
{
    // The policy's weights are per link; a link's weight is split among the stream's
    // destinations on it, then all are divided by their greatest common divisor (1:1
    // rather than 512:512: the schedule's period stays short).
    const ctrl_run& r = d_runs[s];
    if (!r.routes || !r.routes->routing())
        return; // one destination: nothing to weigh
    std::array<unsigned, ctrl_max_links> on_link{};
    for (uint8_t l : r.link)
        if (l < ctrl_max_links)
            on_link[l]++;
    std::array<uint16_t, destination_table::max_destinations> w{};
    unsigned divisor = 0;
    for (unsigned d = 0; d < w.size(); d++) {
        const uint8_t l = r.link[d];
        if (l >= ctrl_max_links)
            continue;
        w[d] = uint16_t(o.weight[l] / on_link[l]);
        divisor = std::gcd(divisor, unsigned(w[d]));
    }
    if (divisor == 0)
        return; // no usable link: the schedule keeps what it has
    bool same = true;
    for (unsigned d = 0; d < w.size(); d++) {
        w[d] = uint16_t(w[d] / divisor);
        same = same && (r.link[d] == ctrl_run::no_link || r.routes->weight(d) == w[d]);
    }
    if (!same)
        r.routes->set_weights(w);
}

} // namespace emu
} // namespace rdma
} // namespace gr
