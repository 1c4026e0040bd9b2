/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's signal and faults as device args describe them (docs/device-args.md,
// "Emulator signal", "Emulator impairments"): one parser for the stream that programs
// the emulator and for the checkers that recompute what it sends.

#include "../regs/register_map.h"
#include "../util/parse_number.h"
#include "emulator_args.h"
#include <gnuradio/rdma/test_signal.h>
#include <string_view>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
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

const arg_table& test_signal_arg_keys()
{
    static const std::vector<std::string> kinds = [] {
        std::vector<std::string> names;
        for (uint32_t k = 0; k < test_signal_kinds; k++)
            names.emplace_back(to_string(static_cast<test_signal_kind>(k)));
        return names;
    }();
    // clang-format off
    static const arg_table t("emulator signal", {
        arg_key::choice("signal", kinds, "ramp", "what the emulator sends"),
        arg_key::number("freq", -2e9, 2e9, "100e3", "Hz", "the tone's frequency, relative to the RF frequency").depending("−rate/2…rate/2").hinted("within half the sample rate"),
        arg_key::number("amplitude", 0, 1, "0.5", "a fraction of full scale", "the signal's amplitude, a fraction of full scale"),
        arg_key::integer("seed", 0, UINT32_MAX, "1", "", "the noise's seed"),
        arg_key::text("scene", "the RF scene: pairs F:A of RF frequency (Hz) and amplitude").depending("1…" + std::to_string(max_scene_tones) + " pairs"),
        arg_key::number("scene_noise", 0, max_scene_level, "0", "a standard deviation", "the RF scene's noise, a standard deviation").hinted("full scale 1 at 0 dB gain"),
    });
    // clang-format on
    return t;
}

test_signal_request test_signal_request::from_args(const device_args& args)
{
    const arg_table& k = test_signal_arg_keys();
    test_signal_request r;
    for (const auto& key : k.keys())
        r.given = r.given || args.has(key);
    test_signal_config& c = r.config;
    std::string names;
    for (const auto& name : k["signal"].choices)
        names += (names.empty() ? "" : "|") + name;
    const std::string kind = args.get(k["signal"].name, k["signal"].fallback);
    try {
        c.kind = parse_test_signal_kind(kind);
    } catch (const std::invalid_argument&) {
        throw std::invalid_argument("device args: signal=" + kind +
                                    " is invalid: expected one of " + names);
    }
    // Within the widest rate's half here; within this stream's in for_stream().
    r.freq_text = args.get(k["freq"].name, k["freq"].fallback);
    c.freq_hz = std::trunc(args.get_double(k["freq"]));
    c.amplitude = static_cast<float>(args.get_double(k["amplitude"]));
    c.seed = static_cast<uint32_t>(args.get_uint(k["seed"]));
    // The RF scene is the device's (docs/radio.md): given either key, the host writes
    // all of it before START; tones not given are none.
    c.scene_given = args.has("scene") || args.has("scene_noise");
    if (args.has("scene"))
        parse_scene(args.get("scene", ""), c);
    c.scene_noise = static_cast<float>(args.get_double(k["scene_noise"]));
    return r;
}

test_signal_config test_signal_request::for_stream(sample_format format,
                                                   double sample_rate) const
{
    // Complex samples: a frequency is unambiguous within +-rate/2, which the device's
    // int32 Hz register holds for every rate up to 4e9. Above full scale a converter
    // only clips (the clipped_* signals overdrive it on purpose).
    const double nyquist = sample_rate / 2;
    if (std::fabs(config.freq_hz) > nyquist)
        device_args::refuse("freq",
                            freq_text,
                            "Hz " + format_number(-nyquist) + ".." +
                                format_number(nyquist) + "; " +
                                test_signal_arg_keys()["freq"].hint);
    test_signal_config c = config;
    c.format = format;
    c.sample_rate = sample_rate;
    return c;
}

test_signal_config
parse_test_signal_args(const device_args& args, sample_format format, double sample_rate)
{
    return test_signal_request::from_args(args).for_stream(format, sample_rate);
}

test_signal_config
parse_test_signal_args(const std::string& args, sample_format format, double sample_rate)
{
    return parse_test_signal_args(device_args::parse(args), format, sample_rate);
}


namespace {

// drop=3:17:200 drops exactly those WRITE messages; the others inject their fault into
// exactly the messages listed (the emulator's fault table).
const std::pair<const char*, uint32_t> targeted[] = {
    { "drop", regs::fault::drop },
    { "corrupt_icrc", regs::fault::corrupt_icrc },
    { "corrupt_payload", regs::fault::corrupt_payload },
    { "bad_rkey", regs::fault::bad_rkey },
    { "bad_va", regs::fault::bad_va },
};

} // namespace

const arg_table& impairment_arg_keys()
{
    // clang-format off
    static const arg_table t("emulator impairments", [] {
        std::vector<arg_key> keys = {
            arg_key::integer("fault_seed", 0, UINT32_MAX, "1", "", "the random faults' seed"),
            arg_key::number("loss", 0, 1, "0", "a probability", "probability that a WRITE message is lost"),
            arg_key::integer("loss_burst", 1, 4096, "1", "messages", "messages lost in a row, each time one is lost"),
            arg_key::number("duplicate", 0, 1, "0", "a probability", "probability that a message is sent twice"),
            arg_key::number("corrupt", 0, 1, "0", "a probability", "probability that a packet's payload is corrupted"),
            arg_key::number("delay", 0, 1, "0", "a probability", "probability that a message is sent late"),
            arg_key::integer("delay_messages", 0, 31, "4", "messages", "messages by which a delayed message is late"),
        };
        for (const auto& [key, kind] : targeted)
            keys.push_back(arg_key::list(key, 0, UINT64_MAX, "message indices", "the messages to inject into").depending("0…2⁶⁴−1"));
        return keys;
    }());
    // clang-format on
    return t;
}

emulated_impairments parse_impairment_args(const device_args& args)
{
    const arg_table& k = impairment_arg_keys();
    auto ppm = [&args, &k](const char* key) {
        return static_cast<uint32_t>(std::lround(args.get_double(k[key]) * 1e6));
    };
    emulated_impairments im;
    im.seed = static_cast<uint32_t>(args.get_uint(k["fault_seed"]));
    im.loss_ppm = ppm("loss");
    im.loss_burst = static_cast<uint32_t>(args.get_uint(k["loss_burst"]));
    im.duplicate_ppm = ppm("duplicate");
    im.corrupt_ppm = ppm("corrupt");
    im.delay_ppm = ppm("delay");
    im.delay_messages = static_cast<uint32_t>(args.get_uint(k["delay_messages"]));
    for (const auto& [key, kind] : targeted)
        for (const uint64_t message : args.get_uint_list(k[key]))
            im.faults.emplace_back(message, kind);
    if (im.faults.size() > regs::emu::max_faults)
        throw std::invalid_argument(
            "device args: drop=, corrupt_icrc=, corrupt_payload=, "
            "bad_rkey= and bad_va= list at most " +
            std::to_string(regs::emu::max_faults) + " messages in all");
    return im;
}

emulator_request emulator_request::from_args(const device_args& args)
{
    return { test_signal_request::from_args(args), parse_impairment_args(args) };
}

} // namespace rdma
} // namespace gr
