/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's signal as device args describe it (docs/device-args.md, "Emulator
// signal"): one parser for the stream that programs the emulator and for the checkers
// that recompute what it sends.

#include "signal_args.h"
#include <gnuradio/rdma/test_signal.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

const std::set<std::string>& test_signal_arg_keys()
{
    static const std::set<std::string> keys = { "signal", "freq", "amplitude", "seed" };
    return keys;
}

test_signal_config parse_test_signal_args(const device_args& args,
                                          sample_format format,
                                          double sample_rate)
{
    test_signal_config c;
    c.format = format;
    c.sample_rate = sample_rate;
    std::string names;
    for (uint32_t k = 0; k < test_signal_kinds; k++)
        names += (names.empty() ? "" : "|") +
                 std::string(to_string(static_cast<test_signal_kind>(k)));
    const std::string kind = args.get("signal", "ramp");
    try {
        c.kind = parse_test_signal_kind(kind);
    } catch (const std::invalid_argument&) {
        throw std::invalid_argument("device args: signal=" + kind +
                                    " is invalid: expected one of " + names);
    }
    // Complex samples: a frequency is unambiguous within +-rate/2, which the device's
    // int32 Hz register holds for every rate up to 4e9. Above full scale a converter
    // only clips (the clipped_* signals overdrive it on purpose).
    const double nyquist = sample_rate / 2;
    c.freq_hz = std::trunc(args.get_double(
        "freq", 100e3, -nyquist, nyquist, "Hz", "within half the sample rate"));
    c.amplitude =
        static_cast<float>(args.get_double("amplitude", 0.5, 0, 1, "a fraction of full scale"));
    c.seed = static_cast<uint32_t>(args.get_uint("seed", 1, 0, UINT32_MAX));
    return c;
}

test_signal_config
parse_test_signal_args(const std::string& args, sample_format format, double sample_rate)
{
    return parse_test_signal_args(device_args::parse(args), format, sample_rate);
}

} // namespace rdma
} // namespace gr
