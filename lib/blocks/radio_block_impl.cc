/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pmt_keys.h"
#include "radio_block_impl.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

const char* const known_keys = "freq, gain, bandwidth, antenna, time, chan, tune, "
                               "lo_offset, direction, mboard, rate";

// The highest device time a uint64 of ns holds, in whole seconds.
constexpr uint64_t max_seconds = UINT64_MAX / 1000000000u - 1;

std::string text_of(const pmt::pmt_t& v) { return pmt::write_string(v); }

bool number_of(const pmt::pmt_t& v, double& out)
{
    if (pmt::is_integer(v))
        out = static_cast<double>(pmt::to_long(v));
    else if (pmt::is_uint64(v))
        out = static_cast<double>(pmt::to_uint64(v));
    else if (pmt::is_real(v))
        out = pmt::to_double(v);
    else
        return false;
    return std::isfinite(out);
}

bool integer_of(const pmt::pmt_t& v, int64_t& out)
{
    if (pmt::is_integer(v)) {
        out = pmt::to_long(v);
        return true;
    }
    if (pmt::is_uint64(v) && pmt::to_uint64(v) <= static_cast<uint64_t>(INT64_MAX)) {
        out = static_cast<int64_t>(pmt::to_uint64(v));
        return true;
    }
    return false;
}

// gr-uhd's timestamp, (uint64 seconds, double fraction) as a tuple or a pair, or a
// number of seconds; empty on a malformed one.
std::string time_of(const pmt::pmt_t& v, uint64_t& ns)
{
    const std::string expected =
        "time: " + text_of(v) +
        " is not a device time: give (uint64 seconds, double fraction in [0, 1)) as "
        "the rx_time tag has it, or a number of seconds";
    pmt::pmt_t secs_p, frac_p;
    if (pmt::is_tuple(v) && pmt::length(v) == 2) {
        secs_p = pmt::tuple_ref(v, 0);
        frac_p = pmt::tuple_ref(v, 1);
    } else if (pmt::is_pair(v)) {
        secs_p = pmt::car(v);
        frac_p = pmt::cdr(v);
    } else {
        double s;
        if (!number_of(v, s) || s < 0 || s > static_cast<double>(max_seconds))
            return expected;
        ns = static_cast<uint64_t>(std::llround(s * 1e9));
        return {};
    }
    int64_t secs;
    double frac;
    if (!integer_of(secs_p, secs) || secs < 0 ||
        static_cast<uint64_t>(secs) > max_seconds || !number_of(frac_p, frac) ||
        frac < 0 || frac >= 1)
        return expected;
    ns = static_cast<uint64_t>(secs) * 1000000000u +
         static_cast<uint64_t>(std::min(999999999.0, std::round(frac * 1e9)));
    return {};
}

// The message as a dict: gr-uhd takes a dict, a (key . value) pair, or its legacy
// tuple (key, value[, chan]). PMT_NIL is the empty dict.
pmt::pmt_t as_dict(const pmt::pmt_t& msg, std::string& error)
{
    if (pmt::is_tuple(msg)) {
        const size_t n = pmt::length(msg);
        if (n != 2 && n != 3) {
            error = "a command tuple is (key, value[, chan]), not " + text_of(msg);
            return pmt::PMT_NIL;
        }
        pmt::pmt_t d = pmt::dict_add(
            pmt::make_dict(), pmt::tuple_ref(msg, 0), pmt::tuple_ref(msg, 1));
        if (n == 3)
            d = pmt::dict_add(d, keys::chan(), pmt::tuple_ref(msg, 2));
        return as_dict(d, error);
    }
    if (pmt::is_pair(msg) && !pmt::is_pair(pmt::car(msg)))
        return as_dict(pmt::dict_add(pmt::make_dict(), pmt::car(msg), pmt::cdr(msg)),
                       error);
    // A dict is a list of (symbol . value) pairs.
    pmt::pmt_t rest = msg;
    for (; pmt::is_pair(rest); rest = pmt::cdr(rest)) {
        const pmt::pmt_t item = pmt::car(rest);
        if (!pmt::is_pair(item) || !pmt::is_symbol(pmt::car(item))) {
            error = "a command is a dict of symbol keys (gr-uhd's: " +
                    std::string(known_keys) + "), not " + text_of(msg);
            return pmt::PMT_NIL;
        }
    }
    if (!pmt::is_null(rest)) {
        error =
            "a command is a dict of symbol keys (gr-uhd's: " + std::string(known_keys) +
            "), not " + text_of(msg);
        return pmt::PMT_NIL;
    }
    return msg;
}

pmt::pmt_t error_report(const std::string& text, const pmt::pmt_t& command)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, keys::error(), pmt::mp(text));
    d = pmt::dict_add(d, keys::command(), command);
    return d;
}

} // namespace

radio_block_impl::radio_block_impl(const std::string& args,
                                   first_channel first,
                                   size_t channels,
                                   rate_key rate)
    : d_sdr(args),
      d_first(first == first_channel::args_stream
                  ? static_cast<unsigned>(d_sdr.get_args_stream())
                  : 0),
      d_channels(channels),
      d_rate(rate)
{
}

unsigned radio_block_impl::rf_channel(size_t chan) const
{
    if (chan >= d_channels)
        throw std::invalid_argument(
            "chan=" + std::to_string(chan) +
            (d_channels ? " is out of range 0.." + std::to_string(d_channels - 1)
                        : " does not exist") +
            " (the block's num_channels=" + std::to_string(d_channels) + ")");
    return d_first + static_cast<unsigned>(chan);
}

void radio_block_impl::set_command_time(uint64_t ns)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_command_time = ns;
}

uint64_t radio_block_impl::command_time() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_command_time;
}

tune_result radio_block_impl::set_center_freq(double hz, size_t chan)
{
    return d_sdr.set_center_freq(hz, rf_channel(chan), command_time());
}

tune_result radio_block_impl::set_gain(double db, size_t chan)
{
    return d_sdr.set_gain(db, rf_channel(chan), command_time());
}

tune_result radio_block_impl::set_bandwidth(double hz, size_t chan)
{
    return d_sdr.set_bandwidth(hz, rf_channel(chan), command_time());
}

void radio_block_impl::set_antenna(const std::string& name, size_t chan)
{
    d_sdr.set_antenna(name, rf_channel(chan), command_time());
}

double radio_block_impl::get_center_freq(size_t chan)
{
    return d_sdr.get_center_freq(rf_channel(chan));
}

sdr_range radio_block_impl::get_freq_range(size_t chan)
{
    return d_sdr.get_freq_range(rf_channel(chan));
}

double radio_block_impl::get_gain(size_t chan)
{
    return d_sdr.get_gain(rf_channel(chan));
}

sdr_range radio_block_impl::get_gain_range(size_t chan)
{
    return d_sdr.get_gain_range(rf_channel(chan));
}

double radio_block_impl::get_bandwidth(size_t chan)
{
    return d_sdr.get_bandwidth(rf_channel(chan));
}

sdr_range radio_block_impl::get_bandwidth_range(size_t chan)
{
    return d_sdr.get_bandwidth_range(rf_channel(chan));
}

std::string radio_block_impl::get_antenna(size_t chan)
{
    return d_sdr.get_antenna(rf_channel(chan));
}

std::vector<std::string> radio_block_impl::get_antennas(size_t chan)
{
    return d_sdr.get_antennas(rf_channel(chan));
}

void radio_block_impl::answer(const pmt::pmt_t& msg,
                              gr::logger& logger,
                              const std::function<void(const pmt::pmt_t&)>& publish)
{
    // handle() catches the device's refusals; what is left is a bug or a dead device.
    try {
        for (const pmt::pmt_t& report : handle(msg)) {
            const pmt::pmt_t error = pmt::dict_ref(report, keys::error(), pmt::PMT_NIL);
            if (!pmt::is_null(error))
                logger.warn("command refused: {}", pmt::symbol_to_string(error));
            publish(report);
        }
    } catch (const std::exception& e) {
        logger.warn("command {} failed: {}", pmt::write_string(msg), e.what());
    }
}

pmt::pmt_t radio_block_impl::time_tuple(uint64_t ns)
{
    return pmt::make_tuple(pmt::from_uint64(ns / 1000000000u),
                           pmt::from_double((ns % 1000000000u) * 1e-9));
}

radio_block_impl::parsed radio_block_impl::parse(const pmt::pmt_t& dict) const
{
    parsed p;
    bool has_chan = false;
    int64_t chan = -1;
    auto number =
        [&](const std::string& key, const pmt::pmt_t& v, const char* unit, double& out) {
            if (number_of(v, out))
                return true;
            p.errors.push_back(key + ": " + text_of(v) + " is not a number (" + unit +
                               ")");
            return false;
        };
    bool has_freq = false;
    for (pmt::pmt_t rest = dict; pmt::is_pair(rest); rest = pmt::cdr(rest)) {
        const std::string key = pmt::symbol_to_string(pmt::car(pmt::car(rest)));
        const pmt::pmt_t v = pmt::cdr(pmt::car(rest));
        setting s;
        if (key == "freq" || key == "tune") {
            // tune: gr-uhd's (freq, lo_offset); the device has no DSP stage to offset.
            pmt::pmt_t f = v, lo = pmt::PMT_NIL;
            if (key == "tune" && pmt::is_tuple(v) && pmt::length(v) == 2) {
                f = pmt::tuple_ref(v, 0);
                lo = pmt::tuple_ref(v, 1);
            } else if (key == "tune" && pmt::is_pair(v)) {
                f = pmt::car(v);
                lo = pmt::cdr(v);
            }
            double lo_hz = 0;
            if (!pmt::is_null(lo)) {
                if (!number(key + " lo_offset", lo, "Hz", lo_hz))
                    continue;
                if (lo_hz != 0) {
                    p.errors.push_back(key + ": an LO offset of " + text_of(lo) +
                                       " Hz is not supported (the device tunes its LO "
                                       "only): give the frequency alone");
                    continue;
                }
            }
            if (has_freq) {
                p.errors.push_back("freq and tune both given: give one");
                continue;
            }
            has_freq = true;
            s.key = setting::what::freq;
            if (number(key, f, "Hz", s.number))
                p.settings.push_back(s);
        } else if (key == "gain") {
            s.key = setting::what::gain;
            if (number(key, v, "dB", s.number))
                p.settings.push_back(s);
        } else if (key == "bandwidth") {
            s.key = setting::what::bandwidth;
            if (number(key, v, "Hz", s.number))
                p.settings.push_back(s);
        } else if (key == "antenna") {
            if (!pmt::is_symbol(v)) {
                p.errors.push_back("antenna: " + text_of(v) +
                                   " is not a name (a symbol: ANT0, ANT1, ...)");
                continue;
            }
            s.key = setting::what::antenna;
            s.name = pmt::symbol_to_string(v);
            p.settings.push_back(s);
        } else if (key == "time") {
            p.has_time = true;
            if (pmt::is_null(v)) {
                p.time_ns = 0; // gr-uhd: no command time
                continue;
            }
            const std::string e = time_of(v, p.time_ns);
            if (!e.empty())
                p.errors.push_back(e);
        } else if (key == "chan") {
            has_chan = true;
            if (!integer_of(v, chan) || chan < -1 ||
                chan >= static_cast<int64_t>(d_channels))
                p.errors.push_back(
                    "chan: " + text_of(v) +
                    (d_channels ? " is out of range 0.." + std::to_string(d_channels - 1)
                                : " names no channel") +
                    " (the block's num_channels=" + std::to_string(d_channels) +
                    "; -1 or no chan: all of them)");
        } else if (key == "lo_offset") {
            double lo_hz = 0;
            if (number(key, v, "Hz", lo_hz) && lo_hz != 0)
                p.errors.push_back("lo_offset: " + text_of(v) +
                                   " Hz is not supported (the device tunes its LO "
                                   "only): give freq alone");
        } else if (key == "direction") {
            const std::string d = pmt::is_symbol(v) ? pmt::symbol_to_string(v) : "";
            if (d != "RX" && d != "rx")
                p.errors.push_back("direction: " + text_of(v) +
                                   " is not supported: the device only receives (RX)");
        } else if (key == "mboard") {
            int64_t m = 0;
            if (!integer_of(v, m) || (m != 0 && m != -1))
                p.errors.push_back("mboard: " + text_of(v) +
                                   " does not exist: a block speaks for one device "
                                   "(mboard 0)");
        } else if (key == "rate") {
            if (d_rate == rate_key::not_applicable) {
                p.errors.push_back(
                    "rate: not applicable to an RDMA Device block: the rate "
                    "is rx_source's (its set_samp_rate or command port)");
            } else if (number(key, v, "S/s", p.rate)) {
                if (!(p.rate > 0) || !std::isfinite(p.rate))
                    p.errors.push_back("rate: " + text_of(v) +
                                       " S/s is not a sample rate: give one > 0");
                else
                    p.has_rate = true;
            }
        } else {
            p.errors.push_back("unknown key '" + key + "': the keys are " + known_keys);
        }
    }
    if (!p.errors.empty())
        return p;
    if (has_chan && chan >= 0) {
        p.chans.push_back(static_cast<size_t>(chan));
    } else {
        for (size_t c = 0; c < d_channels; c++)
            p.chans.push_back(c);
    }
    if (p.has_rate && p.has_time)
        p.errors.push_back("rate: a timed rate change is not supported: send rate "
                           "without time (it takes effect at the next message boundary "
                           "far enough ahead, tagged rx_rate and rx_time)");
    else if (p.settings.empty() && !p.has_rate)
        p.errors.push_back(
            d_rate == rate_key::block_applies
                ? "nothing to set: give freq, gain, bandwidth, antenna or rate"
                : "nothing to set: give freq, gain, bandwidth or antenna");
    else if (!p.settings.empty() && p.chans.empty())
        p.errors.push_back("the block speaks for no RF channel (num_channels=0)");
    std::stable_sort(p.settings.begin(),
                     p.settings.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    return p;
}

uint64_t radio_block_impl::time_now_or_zero()
{
    // Bandwidth and antenna have no time of effect on the device: an untimed change
    // took effect by the time the device answers this read. The setting is made
    // already; a read that fails must not report it refused.
    try {
        return d_sdr.get_time_now();
    } catch (const std::exception&) {
        return 0;
    }
}

tune_result radio_block_impl::apply(const setting& s, size_t chan, uint64_t at_ns)
{
    const unsigned rf = rf_channel(chan);
    switch (s.key) {
    case setting::what::freq:
        return d_sdr.set_center_freq(s.number, rf, at_ns);
    case setting::what::gain:
        return d_sdr.set_gain(s.number, rf, at_ns);
    case setting::what::bandwidth:
        return d_sdr.set_bandwidth(s.number, rf, at_ns);
    case setting::what::antenna:
        d_sdr.set_antenna(s.name, rf, at_ns);
        return {};
    }
    return {};
}

std::vector<pmt::pmt_t> radio_block_impl::handle(const pmt::pmt_t& msg)
{
    std::vector<pmt::pmt_t> reports;
    std::string malformed;
    const pmt::pmt_t dict = as_dict(msg, malformed);
    if (!malformed.empty()) {
        reports.push_back(error_report(malformed, msg));
        return reports;
    }
    const parsed p = parse(dict);
    if (!p.errors.empty()) {
        for (const auto& e : p.errors)
            reports.push_back(
                error_report(e + " (nothing of this command was applied)", msg));
        return reports;
    }
    const uint64_t at_ns = p.has_time ? p.time_ns : command_time();
    if (p.has_rate) {
        // The block changes the rate in its own thread; the ack says it was taken up,
        // the rx_rate tag where it took effect.
        try {
            if (!d_rate_handler)
                throw std::logic_error("this block takes no rate");
            d_rate_handler(p.rate);
            pmt::pmt_t report = pmt::make_dict();
            report = pmt::dict_add(report, keys::ack(), msg);
            report = pmt::dict_add(report, keys::key(), keys::rate());
            report = pmt::dict_add(report, keys::requested(), pmt::from_double(p.rate));
            reports.push_back(report);
        } catch (const std::exception& e) {
            pmt::pmt_t report = error_report(std::string("rate: ") + e.what(), msg);
            reports.push_back(pmt::dict_add(report, keys::key(), keys::rate()));
        }
    }
    static const char* const names[] = { "freq", "gain", "bandwidth", "antenna" };
    for (size_t chan : p.chans) {
        for (const setting& s : p.settings) {
            const char* key = names[static_cast<int>(s.key)];
            tune_result r;
            try {
                r = apply(s, chan, at_ns);
            } catch (const std::exception& e) {
                pmt::pmt_t report = error_report(
                    "chan " + std::to_string(chan) + ": " + key + ": " + e.what(), msg);
                report = pmt::dict_add(report, keys::chan(), pmt::from_uint64(chan));
                report = pmt::dict_add(report, keys::key(), pmt::mp(key));
                reports.push_back(report);
                continue;
            }
            if (r.time_ns == 0)
                r.time_ns = at_ns ? at_ns : time_now_or_zero();
            const bool named = s.key == setting::what::antenna;
            pmt::pmt_t report = pmt::make_dict();
            report = pmt::dict_add(report, keys::ack(), msg);
            report = pmt::dict_add(report, keys::chan(), pmt::from_uint64(chan));
            report = pmt::dict_add(report, keys::key(), pmt::mp(key));
            report = pmt::dict_add(report,
                                   keys::requested(),
                                   named ? pmt::mp(s.name) : pmt::from_double(s.number));
            report = pmt::dict_add(report,
                                   keys::actual(),
                                   named ? pmt::mp(s.name) : pmt::from_double(r.actual));
            report = pmt::dict_add(report, keys::time(), time_tuple(r.time_ns));
            report = pmt::dict_add(report, keys::clipped(), pmt::from_bool(r.clipped));
            reports.push_back(report);
        }
    }
    return reports;
}

} // namespace rdma
} // namespace gr
