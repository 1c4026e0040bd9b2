/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "device_clock.h"
#include <time.h>

namespace gr {
namespace rdma {
namespace emu {

int64_t monotonic_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000ll + ts.tv_nsec;
}

uint64_t realtime_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
           static_cast<uint64_t>(ts.tv_nsec);
}

device_clock::device_clock(oscillator osc) : device_clock(osc, realtime_ns()) {}

device_clock::device_clock(oscillator osc, uint64_t initial_ns) : d_oscillator(osc)
{
    const int64_t m = d_oscillator();
    d_offset_ns = static_cast<int64_t>(initial_ns) - m;
    // The edges before reset are not this device's: LAST_PPS reads 0 until the next.
    d_last_edge = edge_at_or_before(m);
    d_ref_selected = m;
}

int64_t device_clock::edge_at_or_before(int64_t m)
{
    const int64_t q = m / pps_period_ns;
    return (m % pps_period_ns < 0 ? q - 1 : q) * pps_period_ns;
}

void device_clock::settle(int64_t m) const
{
    const int64_t edge = edge_at_or_before(m);
    if (edge <= d_last_edge)
        return;
    if (d_armed && d_armed_edge <= edge) {
        // As of the armed edge: the device time read d_armed_ns there.
        d_offset_ns = static_cast<int64_t>(d_armed_ns) - d_armed_edge;
        d_armed = false;
    }
    d_last_pps = static_cast<uint64_t>(edge + d_offset_ns);
    d_last_edge = edge;
}

uint64_t device_clock::now() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    const int64_t m = d_oscillator();
    settle(m);
    return static_cast<uint64_t>(m + d_offset_ns);
}

int64_t device_clock::oscillator_at(uint64_t device_ns) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    settle(d_oscillator());
    return static_cast<int64_t>(device_ns) - d_offset_ns;
}

void device_clock::set_now(uint64_t device_ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    const int64_t m = d_oscillator();
    settle(m);
    d_offset_ns = static_cast<int64_t>(device_ns) - m;
}

void device_clock::set_at_next_pps(uint64_t device_ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    const int64_t m = d_oscillator();
    settle(m);
    d_armed = true;
    d_armed_edge = edge_at_or_before(m) + pps_period_ns;
    d_armed_ns = device_ns;
}

uint64_t device_clock::last_pps() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    settle(d_oscillator());
    return d_last_pps;
}

int64_t device_clock::next_pps_edge() const
{
    return edge_at_or_before(d_oscillator()) + pps_period_ns;
}

bool device_clock::pps_armed() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    settle(d_oscillator());
    return d_armed;
}

bool device_clock::set_clock_source(uint32_t source)
{
    if (source >= 32 || !(available_sources & (1u << source)))
        return false;
    std::lock_guard<std::mutex> lock(d_mutex);
    if (source != d_clock_source)
        d_ref_selected = d_oscillator(); // a reference switched to must lock first
    d_clock_source = source;
    return true;
}

bool device_clock::set_time_source(uint32_t source)
{
    if (source >= 32 || !(available_sources & (1u << source)))
        return false;
    std::lock_guard<std::mutex> lock(d_mutex);
    d_time_source = source;
    return true;
}

uint32_t device_clock::clock_source() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_clock_source;
}

uint32_t device_clock::time_source() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_time_source;
}

uint32_t device_clock::status() const
{
    namespace bits = regs::clock_set::status_bits;
    std::lock_guard<std::mutex> lock(d_mutex);
    const int64_t m = d_oscillator();
    settle(m);
    // The emulator has no inputs: its "external" reference locks after a while, and
    // edges come every second from either time source, so PPS is always present.
    const bool locked = d_clock_source == regs::clock_set::source::internal ||
                        m - d_ref_selected >= ref_lock_ns;
    return (locked ? bits::ref_locked : 0) | bits::pps_present |
           (d_armed ? bits::pps_armed : 0);
}

} // namespace emu
} // namespace rdma
} // namespace gr
