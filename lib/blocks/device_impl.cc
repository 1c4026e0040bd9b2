/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_impl.h"
#include "pmt_keys.h"
#include <gnuradio/io_signature.h>
#include <pthread.h>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

uint64_t host_now_ns()
{
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
}

// What a PPS edge may take: the time source's period (1 s) and room for a busy host.
constexpr auto pps_wait = std::chrono::milliseconds(1500);

} // namespace

device::sptr device::make(const std::string& args,
                          size_t num_channels,
                          const std::string& clock_source,
                          const std::string& time_source,
                          const std::string& time_at_start,
                          double report_interval)
{
    return gnuradio::make_block_sptr<device_impl>(
        args, num_channels, clock_source, time_source, time_at_start, report_interval);
}

device_impl::device_impl(const std::string& args,
                         size_t num_channels,
                         const std::string& clock_source,
                         const std::string& time_source,
                         const std::string& time_at_start,
                         double report_interval)
    : gr::block(
          "device", gr::io_signature::make(0, 0, 0), gr::io_signature::make(0, 0, 0)),
      radio_block_impl(args, first_channel::zero, num_channels, rate_key::not_applicable),
      d_report_interval(report_interval)
{
    if (!std::isfinite(report_interval) || report_interval < 0)
        throw std::invalid_argument(
            "rdma.device: report_interval=" + std::to_string(report_interval) +
            " is invalid: give seconds >= 0 (0: no reports)");
    const size_t available = radio().num_channels();
    if (num_channels > available)
        throw std::invalid_argument(
            "rdma.device: num_channels=" + std::to_string(num_channels) +
            " but the device has " + std::to_string(available) + " RF channel(s)" +
            (available ? ": give 1.." + std::to_string(available)
                       : " (no RF front end): give num_channels=0"));
    if (time_at_start != "" && time_at_start != "now" && time_at_start != "pps")
        throw std::invalid_argument("rdma.device: time_at_start='" + time_at_start +
                                    "' is invalid: expected '' (leave the device time), "
                                    "'now' or 'pps'");
    // The time base first, then the time: a PPS from a new source sets it.
    if (!clock_source.empty())
        radio().set_clock_source(clock_source);
    if (!time_source.empty())
        radio().set_time_source(time_source);
    set_time_at_start(time_at_start);

    message_port_register_in(keys::command());
    set_msg_handler(keys::command(), [this](const pmt::pmt_t& msg) {
        answer(msg, *d_logger, [this](const pmt::pmt_t& report) {
            message_port_pub(keys::reports(), report);
        });
    });
    message_port_register_out(keys::reports());
}

device_impl::~device_impl() { stop_reporter(); }

void device_impl::set_time_at_start(const std::string& how)
{
    if (how == "now") {
        radio().set_time_now(host_now_ns());
        return;
    }
    if (how != "pps")
        return;
    // As gr-uhd's "PC Clock on Next PPS": wait for an edge, so that the host's next
    // whole second is the one the following edge marks, then set it for that edge.
    auto wait_edge = [this](auto done, const char* what) {
        const auto end = std::chrono::steady_clock::now() + pps_wait;
        while (!done()) {
            if (std::chrono::steady_clock::now() > end)
                throw std::runtime_error(
                    std::string("rdma.device: time_at_start=pps: ") + what +
                    " within 1.5 s from time source '" + radio().get_time_source() +
                    "': check its PPS input, or use time_at_start=now");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    };
    const uint64_t before = radio().get_time_last_pps();
    wait_edge([&] { return radio().get_time_last_pps() != before; }, "no PPS edge");
    const uint64_t next = (host_now_ns() / 1000000000u + 1) * 1000000000u;
    radio().set_time_next_pps(next);
    wait_edge([&] { return radio().get_time_last_pps() == next; },
              "the device time set for the next PPS edge was not applied");
}

bool device_impl::start()
{
    stop_reporter();
    if (d_report_interval > 0) {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stopping = false;
        }
        d_reporter = std::thread([this] { report_time_until_stopped(); });
    }
    return block::start();
}

bool device_impl::stop()
{
    stop_reporter();
    return block::stop();
}

void device_impl::stop_reporter()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stopping = true;
    }
    d_wake.notify_all();
    if (d_reporter.joinable())
        d_reporter.join();
}

void device_impl::report_time_until_stopped()
{
    pthread_setname_np(pthread_self(), "rdma-dev-report");
    const auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(d_report_interval));
    std::unique_lock<std::mutex> lock(d_mutex);
    while (!d_wake.wait_for(lock, interval, [this] { return d_stopping; })) {
        lock.unlock();
        pmt::pmt_t report = pmt::make_dict();
        try {
            report =
                pmt::dict_add(report, keys::device_time(), time_tuple(get_time_now()));
        } catch (const std::exception& e) {
            d_logger->warn("device time not read: {}", e.what());
            report = pmt::dict_add(
                report, keys::error(), pmt::mp(std::string("device_time: ") + e.what()));
        }
        message_port_pub(keys::reports(), report);
        lock.lock();
    }
}

} // namespace rdma
} // namespace gr
