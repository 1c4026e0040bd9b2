/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr::rdma::sdr, the device as the root object: the args parsed once, the device opened
// once, its streams handed out (get_rx_stream, get_tx_stream) and its radio_control.

#include "sdr_impl.h"
#include "stream_args.h"

namespace gr {
namespace rdma {

sdr::impl::impl(const std::string& text, tables_fn tables)
    : d_args([&text, tables] {
          const device_args args = device_args::parse(text);
          check_stream_arg_keys(args, tables);
          return args;
      }()),
      d_device(shared_device::open(d_args))
{
}

unsigned sdr::impl::args_stream() const
{
    return static_cast<unsigned>(d_args.get_uint(stream_keys()["stream"]));
}

device_args sdr::impl::stream_args(size_t stream, tables_fn tables) const
{
    check_stream_arg_keys(d_args, tables);
    if (stream == sdr::args_stream)
        return d_args;
    const arg_key& key = stream_keys()["stream"];
    if (stream > key.max_int)
        throw std::invalid_argument("sdr: stream " + std::to_string(stream) +
                                    " is out of range 0.." + std::to_string(key.max_int) +
                                    " (streams of a device)");
    return d_args.with(key.name, std::to_string(stream));
}

std::unique_ptr<rx_stream::impl> sdr::impl::rx(const std::string& format,
                                               double rate,
                                               uint64_t num_samples,
                                               size_t stream) const
{
    return std::make_unique<rx_stream::impl>(
        d_device,
        rx_stream_config::parse(stream_args(stream, rx_stream_arg_tables),
                                d_device->kind()),
        format,
        rate,
        num_samples);
}

std::unique_ptr<tx_stream::impl> sdr::impl::tx(const std::string& format,
                                               double rate,
                                               uint64_t num_samples,
                                               size_t stream) const
{
    return std::make_unique<tx_stream::impl>(
        d_device,
        tx_stream_config::parse(stream_args(stream, tx_stream_arg_tables),
                                d_device->kind()),
        format,
        rate,
        num_samples);
}

namespace {
unsigned channel(size_t chan)
{
    return static_cast<unsigned>(std::min<size_t>(chan, 1u << 16));
}
} // namespace

sdr::sdr(const std::string& args)
    : d_impl(std::make_unique<impl>(args, device_arg_tables))
{
}
sdr::~sdr() = default;

std::unique_ptr<rx_stream> sdr::get_rx_stream(const std::string& format,
                                              double sample_rate,
                                              uint64_t num_samples,
                                              size_t stream)
{
    return std::unique_ptr<rx_stream>(
        new rx_stream(d_impl->rx(format, sample_rate, num_samples, stream)));
}

std::unique_ptr<tx_stream> sdr::get_tx_stream(const std::string& format,
                                              double sample_rate,
                                              uint64_t num_samples,
                                              size_t stream)
{
    return std::unique_ptr<tx_stream>(
        new tx_stream(d_impl->tx(format, sample_rate, num_samples, stream)));
}

size_t sdr::get_args_stream() const { return d_impl->args_stream(); }

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
