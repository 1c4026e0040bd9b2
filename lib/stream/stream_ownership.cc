/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/parse_number.h"
#include "stream_ownership.h"
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

const arg_table& stream_ownership::arg_keys()
{
    // clang-format off
    static const arg_table t("ownership", {
        arg_key::number("lease", regs::lease::min_ms / 1000.0, regs::lease::max_ms / 1000.0, format_number(regs::lease::default_ms / 1000.0), "seconds", "seconds of silence after which the device stops and frees this host's stream").hinted("of silence after which the device stops the stream and lets another host take it"),
        arg_key::flag("take_over", false, "start even if another host owns the stream (the device stops its run)"),
    });
    // clang-format on
    return t;
}

stream_ownership::settings stream_ownership::settings::from_args(const device_args& args)
{
    settings s;
    s.lease_ms =
        static_cast<uint32_t>(std::lround(args.get_double(arg_keys()["lease"]) * 1000));
    s.take_over = args.get_flag(arg_keys()["take_over"]);
    return s;
}

stream_ownership::stream_ownership(device_controller& device,
                                   stream_direction direction,
                                   unsigned stream,
                                   bool has_ownership,
                                   bool in_process,
                                   const settings& asked,
                                   const logger_ptr& logger)
    : d_device(device), d_direction(direction), d_stream(stream), d_logger(logger)
{
    d_lease_ms = asked.lease_ms;
    d_take_over = asked.take_over;
    d_enabled = has_ownership;
    // A device of this process (the benchmarks' stand-in) needs no owners.
    if (!d_enabled && !in_process)
        d_logger->warn("the device at {} does not support stream ownership: any host on "
                       "its network can reconfigure this stream",
                       d_device.address().to_string());
}

void stream_ownership::claim()
{
    if (!d_enabled)
        return;
    if (d_share) {
        d_device.claim_share(
            d_stream, d_share, random_owner_token(), d_lease_ms, d_take_over);
        return;
    }
    // A run nobody owns was started by a host that does not claim streams: claiming
    // would make that run this host's, and releasing it after a failure would stop it.
    const bool running =
        d_device.read_status(d_direction, d_stream) & regs::status::running;
    if (running && !d_take_over &&
        d_device.read_owner(d_direction, d_stream) == stream_owner::none)
        throw std::runtime_error(
            "device at " + d_device.address().to_string() + ": " +
            to_string(d_direction) + " stream " + std::to_string(d_stream) +
            " is running for a host that does not claim its streams; stop it there, or "
            "add take_over=1 to stop it from here");
    d_device.claim(d_direction, d_stream, random_owner_token(), d_lease_ms, d_take_over);
    // A take-over claim stops another owner's run; this stops one nobody owned.
    if (d_take_over)
        d_device.stop(d_direction, d_stream);
}

void stream_ownership::release_quietly()
{
    if (!d_enabled)
        return;
    try {
        if (d_share)
            d_device.release_share(d_stream, d_share);
        else
            d_device.release(d_direction, d_stream);
    } catch (const std::exception& e) {
        d_logger->warn("could not release {} stream {} of the device at {}: {}; the "
                       "device frees it after {} s of silence",
                       to_string(d_direction),
                       d_stream,
                       d_device.address().to_string(),
                       e.what(),
                       d_lease_ms / 1000.0);
    }
}

const char* stream_ownership::lost_note()
{
    return "the stream belongs to another host now (taken over, or this host was silent "
           "for its lease): its counters are that host's";
}

} // namespace rdma
} // namespace gr
