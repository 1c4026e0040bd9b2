/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_IMPL_H
#define INCLUDED_RDMA_DEVICE_IMPL_H

#include "radio_commands.h"
#include <gnuradio/rdma/device.h>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace gr {
namespace rdma {

class device_impl : public device
{
public:
    device_impl(const std::string& args,
                size_t num_channels,
                const std::string& clock_source,
                const std::string& time_source,
                const std::string& time_at_start,
                double report_interval);
    ~device_impl() override;

    size_t num_channels() const override { return d_radio.channels(); }

    tune_result set_center_freq(double freq, size_t chan) override
    {
        return d_radio.set_center_freq(freq, chan);
    }
    double get_center_freq(size_t chan) override;
    sdr_range get_freq_range(size_t chan) override;
    tune_result set_gain(double gain, size_t chan) override
    {
        return d_radio.set_gain(gain, chan);
    }
    double get_gain(size_t chan) override;
    sdr_range get_gain_range(size_t chan) override;
    tune_result set_bandwidth(double bandwidth, size_t chan) override
    {
        return d_radio.set_bandwidth(bandwidth, chan);
    }
    double get_bandwidth(size_t chan) override;
    sdr_range get_bandwidth_range(size_t chan) override;
    void set_antenna(const std::string& name, size_t chan) override
    {
        d_radio.set_antenna(name, chan);
    }
    std::string get_antenna(size_t chan) override;
    std::vector<std::string> get_antennas(size_t chan) override;

    uint64_t get_time_now() override { return sdr().get_time_now(); }
    void set_time_now(uint64_t time_ns) override { sdr().set_time_now(time_ns); }
    void set_time_next_pps(uint64_t time_ns) override
    {
        sdr().set_time_next_pps(time_ns);
    }
    uint64_t get_time_last_pps() override { return sdr().get_time_last_pps(); }
    void set_clock_source(const std::string& name) override
    {
        sdr().set_clock_source(name);
    }
    std::string get_clock_source() override { return sdr().get_clock_source(); }
    std::vector<std::string> get_clock_sources() override
    {
        return sdr().get_clock_sources();
    }
    void set_time_source(const std::string& name) override
    {
        sdr().set_time_source(name);
    }
    std::string get_time_source() override { return sdr().get_time_source(); }
    std::vector<std::string> get_time_sources() override
    {
        return sdr().get_time_sources();
    }

    void set_ctrl_policy(const std::string& name) override
    {
        sdr().set_ctrl_policy(name);
    }
    std::string get_ctrl_policy() override { return sdr().get_ctrl_policy(); }
    std::vector<std::string> get_ctrl_policies() override
    {
        return sdr::get_ctrl_policies();
    }
    void set_ctrl_period(double seconds) override { sdr().set_ctrl_period(seconds); }
    double get_ctrl_period() override { return sdr().get_ctrl_period(); }

    void set_command_time(uint64_t time_ns) override
    {
        d_radio.set_command_time(time_ns);
    }
    void clear_command_time() override { d_radio.clear_command_time(); }

    bool start() override;
    bool stop() override;

private:
    gr::rdma::sdr& sdr() { return d_radio.radio(); }
    void set_time_at_start(const std::string& how);
    void on_command(const pmt::pmt_t& msg);
    void report_time_until_stopped();
    void stop_reporter();

    radio_commands d_radio;
    const double d_report_interval;
    std::mutex d_mutex; // guards d_stopping
    std::condition_variable d_wake;
    bool d_stopping = false;
    std::thread d_reporter;
};

} // namespace rdma
} // namespace gr

#endif
