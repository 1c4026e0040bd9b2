/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_RADIO_CONTROL_H
#define INCLUDED_RDMA_DEVICE_RADIO_CONTROL_H

#include "device_controller.h"
#include <gnuradio/rdma/sdr.h>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

//! A change of a channel's RF settings, as the streams of the channel hear of it.
struct rf_change {
    enum class what { freq, gain };
    what setting = what::freq;
    double value = 0;     //!< Hz, or dB
    uint64_t time_ns = 0; //!< device time from which samples have it
};

/*!
 * The radio of a device as the host drives it (docs/radio.md): RF channels, device
 * time and its sources, timed commands. One per device object (shared_device), so every
 * block and stream of the process that names the device tunes the same radio, and the
 * streams of a channel hear of every change made here (subscribe()), to tag the sample
 * where it took effect.
 *
 * A change "at" a device time goes through the device's command queue; one whose time
 * has passed (or 0) is written at once and read back. Values outside a range are
 * clipped (and rounded to the step) by the device, as UHD does; the result says what was
 * set and logs a warning when it differs from the request by more than a step.
 */
class radio_control
{
public:
    radio_control(device_controller& device, const device_info& info);
    radio_control(const radio_control&) = delete;
    radio_control& operator=(const radio_control&) = delete;

    unsigned channels() const { return d_channels; }

    sdr_range freq_range(unsigned chan);
    tune_result set_freq(unsigned chan, double hz, uint64_t at_ns);
    double freq(unsigned chan);
    sdr_range gain_range(unsigned chan);
    tune_result set_gain(unsigned chan, double db, uint64_t at_ns);
    double gain(unsigned chan);
    sdr_range bandwidth_range(unsigned chan);
    tune_result set_bandwidth(unsigned chan, double hz, uint64_t at_ns);
    double bandwidth(unsigned chan);
    std::vector<std::string> antennas(unsigned chan);
    void set_antenna(unsigned chan, const std::string& name, uint64_t at_ns);
    std::string antenna(unsigned chan);

    uint64_t time_now();
    void set_time_now(uint64_t ns);
    void set_time_next_pps(uint64_t ns);
    uint64_t time_last_pps();
    std::vector<std::string> clock_sources();
    void set_clock_source(const std::string& name);
    std::string clock_source();
    std::vector<std::string> time_sources();
    void set_time_source(const std::string& name);
    std::string time_source();
    bool ref_locked();

    //! End RX stream \p stream's run before its first sample at or after \p at_ns.
    void stop_rx_at(unsigned stream, uint64_t at_ns);
    void clear_commands();
    //! "commands.executed", "commands.late", "commands.queued".
    std::map<std::string, uint64_t> command_counters();

    //! Hear of every change of channel \p chan made through this object, until the
    //! returned handle goes.
    using listener = std::function<void(const rf_change&)>;
    std::shared_ptr<void> subscribe(unsigned chan, listener l);
    //! The frequency and gain in effect, and since when (no listener is told).
    rf_change current(unsigned chan, rf_change::what setting);
    /*!
     * Whether a frequency change of channel \p chan is under way: from before it is
     * sent until its listeners were told where it took effect. An untimed change takes
     * effect at the first sample the device has not taken yet, which a stream may be
     * about to hand out: streams of the channel hand out nothing new meanwhile, so that
     * the tag of that sample is never behind what the consumer already has.
     */
    bool freq_change_under_way(unsigned chan) const;

private:
    struct limits {
        uint64_t freq_min = 0, freq_max = 0, freq_step = 1; // mHz
        int32_t gain_min = 0, gain_max = 0;                 // milli-dB
        uint32_t gain_step = 1;
        uint32_t bw_min = 0, bw_max = 0; // Hz
        uint32_t antennas = 1;
    };
    const limits& limits_of(unsigned chan);
    void check_channel(unsigned chan) const;
    void require(uint32_t capability, const char* what) const;
    //! Write \p value to \p addr now, or push it to the command queue for \p at_ns.
    //! Returns the device time from which it is in effect, when known now (an untimed
    //! write), else \p at_ns.
    uint64_t write_or_push(uint32_t addr, uint64_t value, bool wide, uint64_t at_ns);
    void notify(unsigned chan, const rf_change& c);
    tune_result finish(const char* what,
                       unsigned chan,
                       double requested,
                       double actual,
                       double step,
                       uint64_t time_ns);

    device_controller& d_device;
    const device_info d_info;
    const unsigned d_channels;
    // Per channel: frequency changes sent and not yet told (freq_change_under_way()).
    const std::unique_ptr<std::atomic<unsigned>[]> d_freq_changes;
    std::mutex d_mutex; // guards the caches and the listeners
    std::map<unsigned, limits> d_limits;
    struct subscription {
        unsigned chan;
        listener call;
    };
    std::vector<std::weak_ptr<subscription>> d_listeners;
};

} // namespace rdma
} // namespace gr

#endif
