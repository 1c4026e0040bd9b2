/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_IMPL_H
#define INCLUDED_RDMA_DEVICE_IMPL_H

#include "radio_block_impl.h"
#include <gnuradio/rdma/device.h>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace gr {
namespace rdma {

//! The radio controls are radio_block_impl's; this block adds the device's time, clock
//! and controller settings, and the command and report ports.
class device_impl : public device, public radio_block_impl
{
public:
    device_impl(const std::string& args,
                size_t num_channels,
                const std::string& clock_source,
                const std::string& time_source,
                const std::string& time_at_start,
                double report_interval);
    ~device_impl() override;

    void set_time_now(uint64_t time_ns) override { radio().set_time_now(time_ns); }
    void set_time_next_pps(uint64_t time_ns) override
    {
        radio().set_time_next_pps(time_ns);
    }
    uint64_t get_time_last_pps() override { return radio().get_time_last_pps(); }
    void set_clock_source(const std::string& name) override
    {
        radio().set_clock_source(name);
    }
    std::string get_clock_source() override { return radio().get_clock_source(); }
    std::vector<std::string> get_clock_sources() override
    {
        return radio().get_clock_sources();
    }
    void set_time_source(const std::string& name) override
    {
        radio().set_time_source(name);
    }
    std::string get_time_source() override { return radio().get_time_source(); }
    std::vector<std::string> get_time_sources() override
    {
        return radio().get_time_sources();
    }

    void set_ctrl_policy(const std::string& name) override
    {
        radio().set_ctrl_policy(name);
    }
    std::string get_ctrl_policy() override { return radio().get_ctrl_policy(); }
    std::vector<std::string> get_ctrl_policies() override
    {
        return sdr::get_ctrl_policies();
    }
    void set_ctrl_period(double seconds) override { radio().set_ctrl_period(seconds); }
    double get_ctrl_period() override { return radio().get_ctrl_period(); }

    bool start() override;
    bool stop() override;

private:
    void set_time_at_start(const std::string& how);
    void report_time_until_stopped();
    void stop_reporter();

    const double d_report_interval;
    std::mutex d_mutex; // guards d_stopping
    std::condition_variable d_wake;
    bool d_stopping = false;
    std::thread d_reporter;
};

} // namespace rdma
} // namespace gr

#endif
