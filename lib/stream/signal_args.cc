/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's signal as device args describe it (docs/device-args.md, "Emulator
// signal"): one parser for the stream that programs the emulator and for the checkers
// that recompute what it sends.

#include "../util/parse_number.h"
#include "signal_args.h"
#include <gnuradio/rdma/test_signal.h>
#include <string_view>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gr {
namespace rdma {

namespace {

// The scene's ranges: an RF frequency (the device's register holds mHz in 64 bits) and
// an amplitude or a noise deviation (full scale 1.0 at 0 dB gain; above it sc16
// saturates, and a low gain setting may bring a strong tone back into range).
constexpr double max_scene_freq_hz = 1e12;
constexpr double max_scene_level = 1000;

// scene=F:A[:F:A...]: pairs of RF frequency (Hz) and amplitude, at most max_scene_tones.
void parse_scene(const std::string& text, test_signal_config& c)
{
    const auto bad = [&text] {
        throw std::invalid_argument(
            "device args: scene=" + text + " is invalid: expected 1.." +
            std::to_string(max_scene_tones) +
            " pairs F:A separated by ':', F an RF frequency 0.." +
            format_number(max_scene_freq_hz) + " Hz and A an amplitude 0.." +
            format_number(max_scene_level) +
            " (full scale 1 at 0 dB gain), e.g. "
            "scene=100.25e6:0.25:101e6:0.01");
    };
    std::vector<double> values;
    // An empty item ("1e6:", "1e6::0.5", or the key given empty) is a typo, not "none".
    for (size_t at = 0; at <= text.size();) {
        const size_t colon = std::min(text.find(':', at), text.size());
        const auto v = parse_double(std::string_view(text).substr(at, colon - at));
        if (!v)
            bad();
        values.push_back(*v);
        at = colon + 1;
    }
    if (values.size() % 2 || values.size() / 2 > max_scene_tones)
        bad();
    c.scene_tones = static_cast<unsigned>(values.size() / 2);
    for (unsigned i = 0; i < c.scene_tones; i++) {
        const double f = values[2 * i], a = values[2 * i + 1];
        if (f < 0 || f > max_scene_freq_hz || a < 0 || a > max_scene_level)
            bad();
        c.scene[i] = { f, static_cast<float>(a) };
    }
}

} // namespace

const std::set<std::string>& test_signal_arg_keys()
{
    static const std::set<std::string> keys = { "signal", "freq",  "amplitude",
                                                "seed",   "scene", "scene_noise" };
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
    // The RF scene is the device's (docs/radio.md): given either key, the host writes
    // all of it before START; tones not given are none.
    c.scene_given = args.has("scene") || args.has("scene_noise");
    if (args.has("scene"))
        parse_scene(args.get("scene", ""), c);
    c.scene_noise = static_cast<float>(args.get_double("scene_noise",
                                                       0,
                                                       0,
                                                       max_scene_level,
                                                       "a standard deviation",
                                                       "full scale 1 at 0 dB gain"));
    return c;
}

test_signal_config
parse_test_signal_args(const std::string& args, sample_format format, double sample_rate)
{
    return parse_test_signal_args(device_args::parse(args), format, sample_rate);
}

} // namespace rdma
} // namespace gr
