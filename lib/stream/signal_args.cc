/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's signal as device args describe it (docs/device-args.md, "Emulator
// signal"): one parser for the stream that programs the emulator and for the checkers
// that recompute what it sends.

#include "device_args.h"
#include <gnuradio/rdma/test_signal.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {
// EMU_TONE_FREQ_HZ is an int32 of Hz.
constexpr double max_freq_hz = 2147483647.0;
// Above 1 the converter saturates (that is what the clipped signals are for).
constexpr double max_amplitude = 16.0;
} // namespace

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
    const double freq = args.get_double("freq", 100e3);
    if (std::fabs(freq) > max_freq_hz)
        throw std::invalid_argument("device args: freq=" + args.get("freq", "") +
                                    " is invalid: expected Hz -2147483647..2147483647");
    c.freq_hz = std::round(freq); // the register holds whole Hz
    const double amplitude = args.get_double("amplitude", 0.5);
    if (!(amplitude >= 0 && amplitude <= max_amplitude))
        throw std::invalid_argument(
            "device args: amplitude=" + args.get("amplitude", "") +
            " is invalid: expected 0..16 of full scale (above 1 the converter saturates)");
    c.amplitude = static_cast<float>(amplitude);
    const uint64_t seed = args.get_uint("seed", 1);
    if (seed > UINT32_MAX)
        throw std::invalid_argument("device args: seed=" + args.get("seed", "") +
                                    " is invalid: expected an integer 0..4294967295");
    c.seed = static_cast<uint32_t>(seed);
    return c;
}

test_signal_config
parse_test_signal_args(const std::string& args, sample_format format, double sample_rate)
{
    return parse_test_signal_args(device_args::parse(args), format, sample_rate);
}

} // namespace rdma
} // namespace gr
