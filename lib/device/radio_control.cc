/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/log.h"
#include "radio_control.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

const char* const source_names[] = { "internal", "external", "gpsdo" };

std::vector<std::string> names_in(uint32_t mask)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < 3; i++)
        if (mask & (1u << i))
            out.push_back(source_names[i]);
    return out;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "none" : out;
}

// The device's words of a channel's limits: RF_FREQ_MIN_LO .. RF_ANTENNAS.
constexpr uint32_t limit_words = (regs::rf::antennas - regs::rf::freq_min_lo) / 4 + 1;

uint32_t word_at(const uint32_t* words, uint32_t offset)
{
    return words[(offset - regs::rf::freq_min_lo) / 4];
}

uint64_t wide_at(const uint32_t* words, uint32_t offset)
{
    return regs::join_words(word_at(words, offset), word_at(words, offset + 4));
}

} // namespace

radio_control::radio_control(device_controller& device, const device_info& info)
    : d_device(device),
      d_info(info),
      d_channels(info.has(regs::cap::rf)
                     ? d_device.client().read32(regs::id_num_rf_channels)
                     : 0),
      d_freq_changes(new std::atomic<unsigned>[std::max(d_channels, 1u)]())
{
}

bool radio_control::freq_change_under_way(unsigned chan) const
{
    return chan < d_channels && d_freq_changes[chan].load(std::memory_order_acquire);
}

void radio_control::require(uint32_t capability, const char* what) const
{
    if (!d_info.has(capability))
        throw std::runtime_error("the device at " + d_device.address().to_string() +
                                 " has no " + what + " (docs/radio.md, capabilities)");
}

void radio_control::check_channel(unsigned chan) const
{
    require(regs::cap::rf, "RF front end");
    if (chan >= d_channels)
        throw std::invalid_argument(
            "RF channel " + std::to_string(chan) + " does not exist: the device at " +
            d_device.address().to_string() + " has " + std::to_string(d_channels));
}

const radio_control::limits& radio_control::limits_of(unsigned chan)
{
    check_channel(chan);
    std::lock_guard<std::mutex> lock(d_mutex);
    const auto it = d_limits.find(chan);
    if (it != d_limits.end())
        return it->second;
    uint32_t w[limit_words];
    d_device.client().read(regs::rf_reg(chan, regs::rf::freq_min_lo), w, limit_words);
    limits l;
    l.freq_min = wide_at(w, regs::rf::freq_min_lo);
    l.freq_max = wide_at(w, regs::rf::freq_max_lo);
    l.freq_step = std::max<uint64_t>(1, word_at(w, regs::rf::freq_step));
    l.gain_min = static_cast<int32_t>(word_at(w, regs::rf::gain_min));
    l.gain_max = static_cast<int32_t>(word_at(w, regs::rf::gain_max));
    l.gain_step = std::max<uint32_t>(1, word_at(w, regs::rf::gain_step));
    l.bw_min = word_at(w, regs::rf::bandwidth_min);
    l.bw_max = word_at(w, regs::rf::bandwidth_max);
    l.antennas = std::max<uint32_t>(1, word_at(w, regs::rf::antennas));
    return d_limits.emplace(chan, l).first->second;
}

uint64_t
radio_control::write_or_push(uint32_t addr, uint64_t value, bool wide, uint64_t at_ns)
{
    axioe::client& c = d_device.client();
    if (at_ns == 0 || at_ns <= d_device.device_time_ns()) {
        // Now, or a time already past: a write (a late command would do the same).
        if (wide)
            c.write64(addr, value);
        else
            c.write32(addr, static_cast<uint32_t>(value));
        return 0;
    }
    require(regs::cap::command_queue, "command queue (timed commands)");
    const uint32_t words[regs::cmd::push_words] = {
        regs::low_word(at_ns), regs::high_word(at_ns), addr,
        regs::low_word(value), regs::high_word(value), regs::cmd::op::push
    };
    try {
        c.write_atomic(regs::cmd::time_lo, words, regs::cmd::push_words);
    } catch (const axioe::error& e) {
        uint32_t status = 0;
        try {
            status = c.read32(regs::cmd::status);
        } catch (const axioe::error&) {
        }
        switch (regs::cmd::last_error(status)) {
        case regs::cmd::error::full:
            throw std::runtime_error(
                "the device's command queue is full (" +
                std::to_string(regs::cmd::capacity(status)) +
                " commands): wait for them to execute, or clear_commands()");
        case regs::cmd::error::bad_value:
            throw std::invalid_argument("the device refused the timed command's value");
        case regs::cmd::error::not_owner:
            throw std::runtime_error(
                "another host owns the stream of this channel: it alone may command it");
        default:
            throw std::runtime_error(
                std::string("the device refused the timed command: ") + e.what());
        }
    }
    return at_ns;
}

tune_result radio_control::finish(const char* what,
                                  unsigned chan,
                                  double requested,
                                  double actual,
                                  double step,
                                  uint64_t time_ns)
{
    tune_result r;
    r.requested = requested;
    r.actual = actual;
    r.time_ns = time_ns;
    r.clipped = std::abs(actual - requested) > step;
    if (r.clipped) {
        static const logger_ptr log = make_logger("rdma radio");
        log->warn("RF channel {}: {} {} requested, {} set (outside the device's range; "
                  "get_*_range() says what it is)",
                  chan,
                  what,
                  requested,
                  actual);
    }
    return r;
}

sdr_range radio_control::freq_range(unsigned chan)
{
    const limits& l = limits_of(chan);
    return { l.freq_min / 1e3, l.freq_max / 1e3, l.freq_step / 1e3 };
}

tune_result radio_control::set_freq(unsigned chan, double hz, uint64_t at_ns)
{
    const limits l = limits_of(chan);
    if (!std::isfinite(hz))
        throw std::invalid_argument("center frequency " + std::to_string(hz) +
                                    " Hz is not a number");
    const uint64_t mhz = hz <= 0 ? 0 : static_cast<uint64_t>(std::llround(hz * 1e3));
    const uint32_t addr = regs::rf_reg(chan, regs::rf::freq_lo);
    // The device clips and rounds: the same rule here.
    const uint64_t clipped = std::min(std::max(mhz, l.freq_min), l.freq_max);
    const uint64_t expected = (clipped + l.freq_step / 2) / l.freq_step * l.freq_step;
    // Under way from before the write until the listeners know where it took effect
    // (freq_change_under_way()), however this ends.
    struct under_way {
        std::atomic<unsigned>& count;
        explicit under_way(std::atomic<unsigned>& c) : count(c) { count.fetch_add(1); }
        ~under_way() { count.fetch_sub(1, std::memory_order_release); }
    } fence(d_freq_changes[chan]);
    uint64_t time = write_or_push(addr, mhz, true, at_ns);
    uint64_t actual = expected;
    if (time == 0) {
        uint32_t w[4];
        d_device.client().read_atomic(addr, w, 4); // RF_FREQ and RF_FREQ_TIME at once
        actual = regs::join_words(w[0], w[1]);
        time = regs::join_words(w[2], w[3]);
        if (actual != expected) {
            // Another change (a timed command, another host) came between the write and
            // its read-back: what was read is that change's, not when this one took
            // effect. No tag rather than one at the wrong sample.
            static const logger_ptr log = make_logger("rdma radio");
            log->warn("RF channel {}: {} Hz was changed again (to {} Hz) before it "
                      "could be read back: the sample it took effect at is not known, "
                      "and has no rx_freq tag",
                      chan,
                      expected / 1e3,
                      actual / 1e3);
            return finish(
                "center frequency (Hz)", chan, hz, expected / 1e3, l.freq_step / 1e3, 0);
        }
    }
    notify(chan, { rf_change::what::freq, actual / 1e3, time });
    return finish(
        "center frequency (Hz)", chan, hz, actual / 1e3, l.freq_step / 1e3, time);
}

double radio_control::freq(unsigned chan)
{
    return current(chan, rf_change::what::freq).value;
}

sdr_range radio_control::gain_range(unsigned chan)
{
    const limits& l = limits_of(chan);
    return { l.gain_min / 1e3, l.gain_max / 1e3, l.gain_step / 1e3 };
}

tune_result radio_control::set_gain(unsigned chan, double db, uint64_t at_ns)
{
    const limits l = limits_of(chan);
    if (!std::isfinite(db))
        throw std::invalid_argument("gain " + std::to_string(db) + " dB is not a number");
    const double mdb_wide = std::min(std::max(db * 1e3, -2.0e9), 2.0e9);
    const int32_t mdb = static_cast<int32_t>(std::lround(mdb_wide));
    const uint32_t addr = regs::rf_reg(chan, regs::rf::gain);
    uint64_t time = write_or_push(addr, static_cast<uint32_t>(mdb), false, at_ns);
    int64_t actual;
    if (time == 0) {
        uint32_t w[3];
        d_device.client().read_atomic(addr, w, 3); // RF_GAIN and RF_GAIN_TIME at once
        actual = static_cast<int32_t>(w[0]);
        time = regs::join_words(w[1], w[2]);
    } else {
        const int64_t clipped =
            std::min<int64_t>(std::max<int64_t>(mdb, l.gain_min), l.gain_max);
        const int64_t steps = (clipped - l.gain_min + l.gain_step / 2) / l.gain_step;
        actual = std::min<int64_t>(l.gain_min + steps * l.gain_step, l.gain_max);
    }
    notify(chan, { rf_change::what::gain, actual / 1e3, time });
    return finish("gain (dB)", chan, db, actual / 1e3, l.gain_step / 1e3, time);
}

double radio_control::gain(unsigned chan)
{
    return current(chan, rf_change::what::gain).value;
}

sdr_range radio_control::bandwidth_range(unsigned chan)
{
    const limits& l = limits_of(chan);
    return { double(l.bw_min), double(l.bw_max), 0 };
}

tune_result radio_control::set_bandwidth(unsigned chan, double hz, uint64_t at_ns)
{
    const limits l = limits_of(chan);
    if (!std::isfinite(hz))
        throw std::invalid_argument("bandwidth " + std::to_string(hz) +
                                    " Hz is not a number");
    const uint32_t value =
        static_cast<uint32_t>(std::llround(std::min(std::max(hz, 0.0), 4294967295.0)));
    const uint32_t addr = regs::rf_reg(chan, regs::rf::bandwidth);
    const uint64_t time = write_or_push(addr, value, false, at_ns);
    const uint32_t actual = time == 0 ? d_device.client().read32(addr)
                                      : std::min(std::max(value, l.bw_min), l.bw_max);
    return finish("bandwidth (Hz)", chan, hz, actual, 1, time);
}

double radio_control::bandwidth(unsigned chan)
{
    check_channel(chan);
    return d_device.client().read32(regs::rf_reg(chan, regs::rf::bandwidth));
}

std::vector<std::string> radio_control::antennas(unsigned chan)
{
    std::vector<std::string> out;
    for (uint32_t i = 0; i < limits_of(chan).antennas; i++)
        out.push_back("ANT" + std::to_string(i));
    return out;
}

void radio_control::set_antenna(unsigned chan, const std::string& name, uint64_t at_ns)
{
    const std::vector<std::string> names = antennas(chan);
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
        throw std::invalid_argument("antenna '" + name + "' of RF channel " +
                                    std::to_string(chan) + " does not exist: it has " +
                                    joined(names));
    write_or_push(regs::rf_reg(chan, regs::rf::antenna),
                  static_cast<uint64_t>(it - names.begin()),
                  false,
                  at_ns);
}

std::string radio_control::antenna(unsigned chan)
{
    check_channel(chan);
    return "ANT" + std::to_string(
                       d_device.client().read32(regs::rf_reg(chan, regs::rf::antenna)));
}

rf_change radio_control::current(unsigned chan, rf_change::what setting)
{
    check_channel(chan);
    rf_change c;
    c.setting = setting;
    const bool freq = setting == rf_change::what::freq;
    const uint32_t value_addr =
        regs::rf_reg(chan, freq ? regs::rf::freq_lo : regs::rf::gain);
    const uint32_t time_addr =
        regs::rf_reg(chan, freq ? regs::rf::freq_time_lo : regs::rf::gain_time_lo);
    const size_t value_words = freq ? 2 : 1;
    auto& client = d_device.client();
    uint32_t w[4];
    if (client.max_burst_words() >= value_words + 2) {
        // The value and its time follow each other: one burst reads both at one instant.
        client.read_atomic(value_addr, w, value_words + 2);
    } else {
        // A device taking shorter bursts: time, value, time again, until no change
        // came between (the setting's time changes with every setting made).
        // Bounded: a device whose setting time never holds still must not hang us.
        constexpr int attempts = 8;
        uint64_t before = client.read64(time_addr);
        int attempt = 0;
        for (; attempt < attempts; attempt++) {
            client.read_atomic(value_addr, w, value_words);
            const uint64_t after = client.read64(time_addr);
            if (after == before)
                break;
            before = after;
        }
        if (attempt == attempts)
            throw std::runtime_error(
                "the device at " + d_device.address().to_string() + ": RF channel " +
                std::to_string(chan) + "'s setting time changed on each of " +
                std::to_string(attempts) + " reads: its setting cannot be read whole");
        w[value_words] = static_cast<uint32_t>(before);
        w[value_words + 1] = static_cast<uint32_t>(before >> 32);
    }
    c.value =
        freq ? regs::join_words(w[0], w[1]) / 1e3 : static_cast<int32_t>(w[0]) / 1e3;
    c.time_ns = regs::join_words(w[value_words], w[value_words + 1]);
    return c;
}

uint64_t radio_control::time_now() { return d_device.device_time_ns(); }

void radio_control::set_time_now(uint64_t ns)
{
    require(regs::cap::time_set, "settable time");
    d_device.client().write64(regs::clock_set::now_lo, ns);
}

void radio_control::set_time_next_pps(uint64_t ns)
{
    require(regs::cap::time_set, "settable time");
    d_device.client().write64(regs::clock_set::pps_lo, ns);
}

uint64_t radio_control::time_last_pps()
{
    require(regs::cap::time_set, "PPS");
    return d_device.client().read64(regs::clock_set::last_pps_lo);
}

std::vector<std::string> radio_control::clock_sources()
{
    if (!d_info.has(regs::cap::time_set))
        return { "internal" };
    return names_in(d_device.client().read32(regs::clock_set::clock_sources));
}

void radio_control::set_clock_source(const std::string& name)
{
    const std::vector<std::string> names = clock_sources();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
        throw std::invalid_argument("clock source '" + name +
                                    "' is not available: the "
                                    "device at " +
                                    d_device.address().to_string() + " has " +
                                    joined(names));
    if (!d_info.has(regs::cap::time_set))
        return; // the only one there is
    const uint32_t index = static_cast<uint32_t>(
        std::find(std::begin(source_names), std::end(source_names), name) -
        std::begin(source_names));
    d_device.client().write32(regs::clock_set::clock_source, index);
}

std::string radio_control::clock_source()
{
    if (!d_info.has(regs::cap::time_set))
        return "internal";
    return source_names[std::min<uint32_t>(
        2, d_device.client().read32(regs::clock_set::clock_source))];
}

std::vector<std::string> radio_control::time_sources()
{
    if (!d_info.has(regs::cap::time_set))
        return { "internal" };
    return names_in(d_device.client().read32(regs::clock_set::time_sources));
}

void radio_control::set_time_source(const std::string& name)
{
    const std::vector<std::string> names = time_sources();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
        throw std::invalid_argument("time source '" + name +
                                    "' is not available: the "
                                    "device at " +
                                    d_device.address().to_string() + " has " +
                                    joined(names));
    if (!d_info.has(regs::cap::time_set))
        return;
    const uint32_t index = static_cast<uint32_t>(
        std::find(std::begin(source_names), std::end(source_names), name) -
        std::begin(source_names));
    d_device.client().write32(regs::clock_set::time_source, index);
}

std::string radio_control::time_source()
{
    if (!d_info.has(regs::cap::time_set))
        return "internal";
    return source_names[std::min<uint32_t>(
        2, d_device.client().read32(regs::clock_set::time_source))];
}

bool radio_control::ref_locked()
{
    if (!d_info.has(regs::cap::time_set))
        return true; // its own oscillator: nothing to follow
    return d_device.client().read32(regs::clock_set::status) &
           regs::clock_set::status_bits::ref_locked;
}

void radio_control::stop_rx_at(unsigned stream, uint64_t at_ns)
{
    if (stream >= d_info.num_rx_streams)
        throw std::invalid_argument("RX stream " + std::to_string(stream) +
                                    " does not exist: the device has " +
                                    std::to_string(d_info.num_rx_streams));
    write_or_push(
        regs::rx_reg(stream, regs::rx::command), regs::command::stop, false, at_ns);
}

void radio_control::clear_commands()
{
    require(regs::cap::command_queue, "command queue (timed commands)");
    d_device.client().write32(regs::cmd::push, regs::cmd::op::clear);
}

std::map<std::string, uint64_t> radio_control::command_counters()
{
    require(regs::cap::command_queue, "command queue (timed commands)");
    uint32_t w[3];
    d_device.client().read(regs::cmd::status, w, 3);
    return { { "commands.queued", regs::cmd::queued(w[0]) },
             { "commands.executed", w[1] },
             { "commands.late", w[2] } };
}

std::shared_ptr<void> radio_control::subscribe(unsigned chan, listener l)
{
    auto s = std::make_shared<subscription>(subscription{ chan, std::move(l) });
    std::lock_guard<std::mutex> lock(d_mutex);
    d_listeners.erase(std::remove_if(d_listeners.begin(),
                                     d_listeners.end(),
                                     [](const auto& w) { return w.expired(); }),
                      d_listeners.end());
    d_listeners.push_back(s);
    return s;
}

void radio_control::notify(unsigned chan, const rf_change& c)
{
    std::vector<std::shared_ptr<subscription>> live;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        for (const auto& w : d_listeners)
            if (auto s = w.lock(); s && s->chan == chan)
                live.push_back(std::move(s));
    }
    for (const auto& s : live)
        s->call(c);
}

} // namespace rdma
} // namespace gr
