/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RADIO_BLOCK_IMPL_H
#define INCLUDED_RDMA_RADIO_BLOCK_IMPL_H

#include <gnuradio/logger.h>
#include <gnuradio/rdma/radio_block.h>
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
 * The radio controls of a block (radio_block), implemented once for rx_source and
 * device (as gr-uhd's usrp_block_impl): the setters and getters over some RF channels of
 * one device, with a command time, and the command port's dicts (gr-uhd's keys)
 * answered by report dicts (docs/radio.md, "Host side"). The block's channel c is the
 * device's RF channel first + c.
 *
 * Setters throw (they run outside the scheduler: a GRC callback, the user's code);
 * handle() never does: a message handler that throws would end the block's thread.
 */
class radio_block_impl : virtual public radio_block
{
public:
    //! What a "rate" key does: handed to the block (on_rate()), which changes it at
    //! run time, or refused, as the block does not own the rate.
    enum class rate_key { block_applies, not_applicable };
    //! The RF channel of the block's channel 0: that of the RX stream stream= names
    //! (rx_source, whose channels are streams s, s+1, ...), or 0 (the device block).
    enum class first_channel { args_stream, zero };

    //! Opens the device \p args name: the block's one sdr, which hands it its streams.
    radio_block_impl(const std::string& args,
                     first_channel first,
                     size_t channels,
                     rate_key rate);
    radio_block_impl(const radio_block_impl&) = delete;
    radio_block_impl& operator=(const radio_block_impl&) = delete;

    size_t num_channels() const override { return d_channels; }
    tune_result set_center_freq(double hz, size_t chan) override;
    double get_center_freq(size_t chan) override;
    sdr_range get_freq_range(size_t chan) override;
    tune_result set_gain(double db, size_t chan) override;
    double get_gain(size_t chan) override;
    sdr_range get_gain_range(size_t chan) override;
    tune_result set_bandwidth(double hz, size_t chan) override;
    double get_bandwidth(size_t chan) override;
    sdr_range get_bandwidth_range(size_t chan) override;
    void set_antenna(const std::string& name, size_t chan) override;
    std::string get_antenna(size_t chan) override;
    std::vector<std::string> get_antennas(size_t chan) override;
    uint64_t get_time_now() override { return d_sdr.get_time_now(); }
    //! Later settings (setters, and commands without "time") take effect at this device
    //! time (ns since the epoch), as gr-uhd's set_command_time; 0: now.
    void set_command_time(uint64_t ns) override;
    void clear_command_time() override { set_command_time(0); }

    //! (uint64 seconds, double fraction) of a device time, as the rx_time tag has it.
    static pmt::pmt_t time_tuple(uint64_t ns);

protected:
    //! Called by handle() with a command's valid "rate" (S/s); throws to refuse it.
    void on_rate(std::function<void(double)> handler)
    {
        d_rate_handler = std::move(handler);
    }
    sdr& radio() { return d_sdr; }
    //! RF channel of the block's channel \p chan; throws std::invalid_argument naming
    //! the valid range.
    unsigned rf_channel(size_t chan) const;
    uint64_t command_time() const;

    /*!
     * Apply a command message: a dict of gr-uhd's keys (also a (key . value) pair, or
     * gr-uhd's legacy tuple (key, value[, chan])). Returns its reports, in order: an
     * "ack" dict per setting per channel, an "error" dict per refusal. A command with a
     * key that is unknown, of the wrong type or not applicable here is refused whole
     * (nothing of it is applied); a value the device refuses fails that setting alone.
     */
    std::vector<pmt::pmt_t> handle(const pmt::pmt_t& msg);
    //! handle() as a message handler: each report to \p publish, each refusal logged;
    //! nothing escapes (the scheduler's thread would end).
    void answer(const pmt::pmt_t& msg,
                gr::logger& logger,
                const std::function<void(const pmt::pmt_t&)>& publish);

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
