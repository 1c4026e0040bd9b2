/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr::rdma::sdr, the public face of a device's radio_control: it takes the args an
// rx_stream takes (so that one args string names the device for both) and reads only
// the device's.

#include "../device/shared_device.h"
#include "../util/device_args.h"
#include "stream_args.h"
#include <gnuradio/rdma/sdr.h>

namespace gr {
namespace rdma {

class sdr::impl
{
public:
    explicit impl(const std::string& args) : d_device(open(args)) {}
    radio_control& radio() { return d_device->radio(); }
    rate_controller& rates() { return d_device->rates(); }

private:
    static std::shared_ptr<shared_device> open(const std::string& text)
    {
        const device_args args = device_args::parse(text);
        check_stream_arg_keys(args, rx_stream_arg_tables);
        return shared_device::open(args);
    }

    const std::shared_ptr<shared_device> d_device;
};

namespace {
unsigned channel(size_t chan)
{
    return static_cast<unsigned>(std::min<size_t>(chan, 1u << 16));
}
} // namespace

sdr::sdr(const std::string& args) : d_impl(std::make_unique<impl>(args)) {}
sdr::~sdr() = default;

size_t sdr::num_channels() const { return d_impl->radio().channels(); }

tune_result sdr::set_center_freq(double hz, size_t chan, uint64_t at_ns)
{
    return d_impl->radio().set_freq(channel(chan), hz, at_ns);
}
double sdr::get_center_freq(size_t chan) { return d_impl->radio().freq(channel(chan)); }
sdr_range sdr::get_freq_range(size_t chan)
{
    return d_impl->radio().freq_range(channel(chan));
}
tune_result sdr::set_gain(double db, size_t chan, uint64_t at_ns)
{
    return d_impl->radio().set_gain(channel(chan), db, at_ns);
}
double sdr::get_gain(size_t chan) { return d_impl->radio().gain(channel(chan)); }
sdr_range sdr::get_gain_range(size_t chan)
{
    return d_impl->radio().gain_range(channel(chan));
}
tune_result sdr::set_bandwidth(double hz, size_t chan, uint64_t at_ns)
{
    return d_impl->radio().set_bandwidth(channel(chan), hz, at_ns);
}
double sdr::get_bandwidth(size_t chan)
{
    return d_impl->radio().bandwidth(channel(chan));
}
sdr_range sdr::get_bandwidth_range(size_t chan)
{
    return d_impl->radio().bandwidth_range(channel(chan));
}
void sdr::set_antenna(const std::string& name, size_t chan, uint64_t at_ns)
{
    d_impl->radio().set_antenna(channel(chan), name, at_ns);
}
std::string sdr::get_antenna(size_t chan)
{
    return d_impl->radio().antenna(channel(chan));
}
std::vector<std::string> sdr::get_antennas(size_t chan)
{
    return d_impl->radio().antennas(channel(chan));
}

uint64_t sdr::get_time_now() { return d_impl->radio().time_now(); }
void sdr::set_time_now(uint64_t ns) { d_impl->radio().set_time_now(ns); }
void sdr::set_time_next_pps(uint64_t ns) { d_impl->radio().set_time_next_pps(ns); }
uint64_t sdr::get_time_last_pps() { return d_impl->radio().time_last_pps(); }
std::vector<std::string> sdr::get_clock_sources()
{
    return d_impl->radio().clock_sources();
}
void sdr::set_clock_source(const std::string& name)
{
    d_impl->radio().set_clock_source(name);
}
std::string sdr::get_clock_source() { return d_impl->radio().clock_source(); }
std::vector<std::string> sdr::get_time_sources()
{
    return d_impl->radio().time_sources();
}
void sdr::set_time_source(const std::string& name)
{
    d_impl->radio().set_time_source(name);
}
std::string sdr::get_time_source() { return d_impl->radio().time_source(); }
bool sdr::ref_locked() { return d_impl->radio().ref_locked(); }

void sdr::stop_rx_at(size_t stream, uint64_t at_ns)
{
    d_impl->radio().stop_rx_at(channel(stream), at_ns);
}
void sdr::clear_commands() { d_impl->radio().clear_commands(); }
std::map<std::string, uint64_t> sdr::command_counters()
{
    return d_impl->radio().command_counters();
}

std::vector<std::string> sdr::get_ctrl_policies() { return rate_controller::policies(); }
void sdr::set_ctrl_policy(const std::string& name) { d_impl->rates().set_policy(name); }
std::string sdr::get_ctrl_policy() { return d_impl->rates().policy(); }
void sdr::set_ctrl_period(double seconds) { d_impl->rates().set_period(seconds); }
double sdr::get_ctrl_period() { return d_impl->rates().period(); }

} // namespace rdma
} // namespace gr
