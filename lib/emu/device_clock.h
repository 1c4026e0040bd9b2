/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_DEVICE_CLOCK_H
#define INCLUDED_RDMA_EMU_DEVICE_CLOCK_H

#include <cstdint>
#include <mutex>

namespace gr {
namespace rdma {
namespace emu {

//! A monotonic clock for pacing, immune to wall-clock steps: the emulator's oscillator.
int64_t monotonic_ns();
//! The host's wall clock (CLOCK_REALTIME), ns since the Unix epoch.
uint64_t realtime_ns();

/*!
 * The device clock of one emulator (docs/radio.md, "Clock"): its oscillator
 * (CLOCK_MONOTONIC) plus an offset. The offset starts as the host's wall clock minus
 * the oscillator, so that an emulator nobody sets keeps the time of a GPS-disciplined
 * SDR; CLOCK_SET_NOW and CLOCK_SET_PPS change it. Samples are paced by the oscillator,
 * never by this clock: setting the time moves the time base, not the beat.
 *
 * PPS edges, of the internal and of the emulated external time source alike, come at
 * whole seconds of the oscillator. A set armed for the next edge is applied lazily, by
 * whatever reads the clock first after the edge, as of the edge: the result is the one a
 * thread waking exactly at the edge would give, with no thread.
 *
 * Thread-safe: the AXIoE thread, the RX engines and the command queue all read it.
 */
class device_clock
{
public:
    using oscillator = int64_t (*)();
    static constexpr int64_t pps_period_ns = 1000000000;
    //! How long an external frequency reference takes to lock once selected.
    static constexpr int64_t ref_lock_ns = 100000000;
    //! The sources the emulator has (CLOCK_SOURCES, TIME_SOURCES): internal, external.
    static constexpr uint32_t available_sources = 0x3;

    //! \p osc: the oscillator (tests give their own); the device time starts as the
    //! host's wall clock.
    explicit device_clock(oscillator osc = monotonic_ns);
    //! As above, the device time starting at \p initial_ns.
    device_clock(oscillator osc, uint64_t initial_ns);
    device_clock(const device_clock&) = delete;
    device_clock& operator=(const device_clock&) = delete;

    //! Device time now, ns since the epoch.
    uint64_t now() const;
    //! The oscillator now.
    int64_t oscillator_now() const { return d_oscillator(); }
    //! The oscillator instant at which the device time reads \p device_ns, with the
    //! offset in effect now (a later set moves it: waiters must ask again).
    int64_t oscillator_at(uint64_t device_ns) const;

    //! CLOCK_SET_NOW: the device time becomes \p device_ns now.
    void set_now(uint64_t device_ns);
    //! CLOCK_SET_PPS: at the next PPS edge the device time becomes \p device_ns. A
    //! second call before that edge replaces the value.
    void set_at_next_pps(uint64_t device_ns);
    //! CLOCK_LAST_PPS: device time at the last PPS edge since reset (0: none yet).
    uint64_t last_pps() const;
    //! The oscillator instant of the next PPS edge.
    int64_t next_pps_edge() const;
    //! Whether a CLOCK_SET_PPS waits for its edge.
    bool pps_armed() const;

    //! CLOCK_SOURCE / TIME_SOURCE; false (nothing changes) for a source not available.
    bool set_clock_source(uint32_t source);
    bool set_time_source(uint32_t source);
    uint32_t clock_source() const;
    uint32_t time_source() const;
    //! CLOCK_STATUS: REF_LOCKED, PPS_PRESENT, PPS_ARMED (regs::clock_set::status_bits).
    uint32_t status() const;

private:
    // Apply what the edges up to oscillator instant \p m did. With d_mutex held.
    void settle(int64_t m) const;
    static int64_t edge_at_or_before(int64_t m);

    const oscillator d_oscillator;
    mutable std::mutex d_mutex;
    // All guarded by d_mutex; mutable: a read applies the edges that passed.
    mutable int64_t d_offset_ns;     // device time = oscillator + offset
    mutable int64_t d_last_edge = 0; // oscillator instant of the last edge settled
    mutable uint64_t d_last_pps = 0; // device time at it; 0 before the first
    mutable bool d_armed = false;
    mutable int64_t d_armed_edge = 0; // the edge the armed set waits for
    mutable uint64_t d_armed_ns = 0;  // and the device time it sets there
    uint32_t d_clock_source = 0;
    uint32_t d_time_source = 0;
    int64_t d_ref_selected = 0; // oscillator instant the reference was selected
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
