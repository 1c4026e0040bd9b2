/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RADIO_COMMANDS_H
#define INCLUDED_RDMA_RADIO_COMMANDS_H

#include <gnuradio/rdma/sdr.h>
#include <pmt/pmt.h>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * The radio controls a block offers (rdma.device, rx_source): the setters of gr-uhd's
 * usrp_block over some RF channels of one device, with a command time, and the
 * command port's dicts (gr-uhd's keys) answered by report dicts (docs/radio.md, "Host
 * side"). The block's channel c is the device's RF channel first + c.
 *
 * Setters throw (they run outside the scheduler: a GRC callback, the user's code);
 * handle() never does: a message handler that throws would end the block's thread.
 */
class radio_commands
{
public:
    //! What a "rate" key does: handed to the block (on_rate()), which changes it at
    //! run time, or refused, as the block does not own the rate.
    enum class rate_key { block_applies, not_applicable };
    //! Called by handle() with a command's valid "rate" (S/s); throws to refuse it.
    void on_rate(std::function<void(double)> handler)
    {
        d_rate_handler = std::move(handler);
    }

    radio_commands(const std::string& args,
                   unsigned first_rf_channel,
                   size_t channels,
                   rate_key rate);
    radio_commands(const radio_commands&) = delete;
    radio_commands& operator=(const radio_commands&) = delete;

    sdr& radio() { return d_sdr; }
    size_t channels() const { return d_channels; }
    //! RF channel of the block's channel \p chan; throws std::invalid_argument naming
    //! the valid range.
    unsigned rf_channel(size_t chan) const;

    //! Later settings (setters, and commands without "time") take effect at this device
    //! time (ns since the epoch), as gr-uhd's set_command_time; 0: now.
    void set_command_time(uint64_t ns);
    void clear_command_time() { set_command_time(0); }
    uint64_t command_time() const;

    tune_result set_center_freq(double hz, size_t chan);
    tune_result set_gain(double db, size_t chan);
    tune_result set_bandwidth(double hz, size_t chan);
    void set_antenna(const std::string& name, size_t chan);

    /*!
     * Apply a command message: a dict of gr-uhd's keys (also a (key . value) pair, or
     * gr-uhd's legacy tuple (key, value[, chan])). Returns its reports, in order: an
     * "ack" dict per setting per channel, an "error" dict per refusal. A command with a
     * key that is unknown, of the wrong type or not applicable here is refused whole
     * (nothing of it is applied); a value the device refuses fails that setting alone.
     */
    std::vector<pmt::pmt_t> handle(const pmt::pmt_t& msg);

    //! (uint64 seconds, double fraction) of a device time, as the rx_time tag has it.
    static pmt::pmt_t time_tuple(uint64_t ns);

private:
    struct setting {
        enum class what { freq, gain, bandwidth, antenna } key;
        double number = 0;
        std::string name; // antenna
    };
    struct parsed {
        std::vector<setting> settings;
        bool has_time = false;
        uint64_t time_ns = 0; // when has_time: 0 = now
        bool has_rate = false;
        double rate = 0;           // S/s, when has_rate
        std::vector<size_t> chans; // the block's channels it applies to
        std::vector<std::string> errors;
    };
    parsed parse(const pmt::pmt_t& dict) const;
    tune_result apply(const setting& s, size_t chan, uint64_t at_ns);
    uint64_t time_now_or_zero();

    sdr d_sdr;
    const unsigned d_first;
    const size_t d_channels;
    const rate_key d_rate;
    std::function<void(double)> d_rate_handler;
    mutable std::mutex d_mutex; // guards d_command_time: setters run on any thread
    uint64_t d_command_time = 0;
};

} // namespace rdma
} // namespace gr

#endif
