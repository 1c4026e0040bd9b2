/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RF_CHANNEL_H
#define INCLUDED_RDMA_EMU_RF_CHANNEL_H

#include "../regs/register_fields.h"
#include "../signal/rf_scene.h"
#include "device_clock.h"
#include <cstdint>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * What an emulated RF channel can do: its ranges and steps, and what it holds after
 * reset (docs/radio.md, "RF channel"). Frequencies in mHz, gains in milli-dB.
 */
struct rf_limits {
    uint64_t freq_min_mhz = 70000000000ull;    //!< 70 MHz
    uint64_t freq_max_mhz = 6000000000000ull;  //!< 6 GHz
    uint32_t freq_step_mhz = 1000;             //!< 1 Hz
    uint64_t freq_reset_mhz = 100000000000ull; //!< 100 MHz
    int32_t gain_min_mdb = 0;
    int32_t gain_max_mdb = 76000;
    uint32_t gain_step_mdb = 500;
    int32_t gain_reset_mdb = 0;
    uint32_t bandwidth_min_hz = 200000;
    uint32_t bandwidth_max_hz = 56000000;
    uint32_t bandwidth_reset_hz = 56000000;
    uint32_t antennas = 2;

    //! Throws std::invalid_argument naming the field when the limits cannot work (a
    //! step of 0, a minimum above its maximum, a reset outside its range, no antenna).
    void validate() const;
    //! \p mhz clipped to the range and rounded to the nearest step (halves up).
    uint64_t clip_freq(uint64_t mhz) const;
    //! \p mdb clipped to the range and rounded to the nearest min + n * step.
    int32_t clip_gain(int32_t mdb) const;
    uint32_t clip_bandwidth(uint32_t hz) const;
};

/*!
 * RF channel c of the emulator: the front end of RX stream c. It holds what the RF
 * block reads (frequency, gain, bandwidth, antenna, and since when each holds), and,
 * while the stream runs, the tuning of every sample: a list of rf_scene segments, each
 * from the sample at which a change took effect. The RX engine reads the list as it
 * computes samples; a change is never placed before the first sample the engine has
 * not computed yet, so samples already computed never change (an RC resend computes
 * them again, alike).
 *
 * A change at device time T (a timed command) takes effect from the first sample taken
 * at or after T, exactly (RF_*_TIME reads T); an untimed one from the first sample not
 * computed yet (RF_*_TIME reads that sample's time, rounded down to the ns). Without a
 * run, a change holds from T, or from the device time of the write.
 *
 * Thread-safe: the AXIoE thread writes, the command queue executes, the engine reads.
 */
class rf_channel
{
public:
    //! Tunings remembered per run: an RC resend needs the tuning of samples it sends
    //! again, however many retunes came since (at most the retransmit window's worth).
    static constexpr size_t max_segments = 1024;

    rf_channel(const rf_limits& limits, const device_clock& clock);
    rf_channel(const rf_channel&) = delete;
    rf_channel& operator=(const rf_channel&) = delete;

    const rf_limits& limits() const { return d_limits; }
    //! The RF block as read now.
    regs::rf_values read() const;

    //! Tune to \p mhz (clipped and rounded). \p at_ns: the device time it takes effect
    //! (a timed command's), 0 for an untimed write.
    void tune(uint64_t mhz, uint64_t at_ns);
    //! Set the gain to \p mdb (clipped and rounded), as tune().
    void set_gain(int32_t mdb, uint64_t at_ns);
    void set_bandwidth(uint32_t hz);
    //! False (nothing changes) for an antenna the channel does not have.
    bool set_antenna(uint32_t antenna);

    // ---- The RX engine of the channel's stream ----------------------------------
    //! A run starts: sample 0 at device time \p t0_ns, at rate_num / rate_den.
    void begin_run(uint64_t t0_ns, uint32_t rate_num, uint32_t rate_den);
    void end_run();
    //! Samples below \p end are about to be computed: later changes start at or after
    //! it.
    void advance(uint64_t end);
    /*!
     * The tuning of sample \p sample of the run, and the first sample of the next
     * tuning (UINT64_MAX: none yet; a later change starts at or after the computed
     * ones). False if the run has forgotten it (more than max_segments retunes since).
     */
    bool tuning_at(uint64_t sample, rf_scene::segment& out, uint64_t& next_first) const;

private:
    enum class field { freq, gain };
    void change(field f, uint64_t value, uint64_t at_ns);
    uint64_t first_sample_at(uint64_t device_ns) const; // with d_mutex held, in a run
    uint64_t time_of_sample(uint64_t sample) const;     // floor, in ns
    void rebuild_integrals(size_t from);                // with d_mutex held

    const rf_limits d_limits;
    const device_clock& d_clock;

    mutable std::mutex d_mutex;
    // All guarded by d_mutex.
    uint64_t d_freq_mhz;
    uint64_t d_freq_time_ns = 0;
    int32_t d_gain_mdb;
    uint64_t d_gain_time_ns = 0;
    uint32_t d_bandwidth_hz;
    uint32_t d_antenna = 0;
    bool d_running = false;
    uint64_t d_t0_ns = 0;
    uint32_t d_rate_num = 1;
    uint32_t d_rate_den = 1;
    uint64_t d_frontier = 0; // the first sample not computed yet
    // The run's tunings in sample order; reserved at construction, never reallocated.
    std::vector<rf_scene::segment> d_segments;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
