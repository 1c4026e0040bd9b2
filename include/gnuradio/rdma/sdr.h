/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_SDR_H
#define INCLUDED_RDMA_SDR_H

#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/transport_api.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

//! A range of a setting: [start, stop] in steps of step (0: any value).
struct sdr_range {
    double start = 0;
    double stop = 0;
    double step = 0;
};

//! What a setting became (as UHD's tune result): the device clips to its range and
//! rounds to its step, and says from which device time its samples have it.
struct tune_result {
    double requested = 0;
    double actual = 0;
    uint64_t time_ns = 0; //!< device time (ns since the epoch) from which it is in effect
    bool clipped = false; //!< the request was outside the range
};

/*!
 * \brief One SDR: its streams, RF front end, device time, timed commands.
 *
 * \details
 * The device is the root, as UHD's multi_usrp: an sdr opens the device the args name
 * (docs/device-args.md), parsing them once, and hands out its streams
 * (get_rx_stream(), get_tx_stream()), which share it. Every object of the process
 * naming the same device shares it too, so a tune here is seen by its streams
 * (rx_source tags "rx_freq" on the first sample taken at the new frequency). Channel c
 * is the RF front end of RX stream c (docs/radio.md).
 *
 * Settings take a device time \p at_ns (ns since the epoch): 0 (the default) changes
 * them now; a time in the future goes through the device's command queue and takes
 * effect for samples taken at or after it, to the sample. Values outside a range are
 * clipped to it, as UHD does, with a warning; the result says what was set.
 *
 * Throws std::invalid_argument for a channel the device does not have, an unknown
 * antenna or source name; std::runtime_error when the device lacks the feature
 * (docs/radio.md, capabilities) or does not answer.
 */
class RDMA_TRANSPORT_API sdr
{
public:
    /*!
     * \param args device args (docs/device-args.md): the device's and, as defaults,
     *             its streams' (payload=, latency=, ...), checked once here: a key no
     *             RX or TX stream reads is refused by name.
     */
    explicit sdr(const std::string& args = "type=emu");
    ~sdr();
    sdr(const sdr&) = delete;
    sdr& operator=(const sdr&) = delete;

    //! get_rx_stream()'s and get_tx_stream()'s default: the stream= of the args (0
    //! when absent).
    static constexpr size_t args_stream = SIZE_MAX;
    /*!
     * RX stream \p stream of this device (UHD's get_rx_stream), with the args given
     * to the sdr: as rx_stream(args with stream=\p stream, ...), without parsing them
     * or opening the device again. A key only a TX stream reads (max_lead=, ...) is
     * refused here. The stream keeps the device open after the sdr is gone.
     */
    std::unique_ptr<rx_stream> get_rx_stream(const std::string& format,
                                             double sample_rate,
                                             uint64_t num_samples = 0,
                                             size_t stream = args_stream);
    //! TX stream \p stream of this device, as get_rx_stream() (tx_stream's num_samples).
    std::unique_ptr<tx_stream> get_tx_stream(const std::string& format,
                                             double sample_rate,
                                             uint64_t num_samples = 0,
                                             size_t stream = args_stream);
    //! The stream get_rx_stream() and get_tx_stream() give by default (stream=).
    size_t get_args_stream() const;

    //! RF channels (0 when the device has no RF front end).
    size_t num_channels() const;

    tune_result set_center_freq(double hz, size_t chan = 0, uint64_t at_ns = 0);
    double get_center_freq(size_t chan = 0);
    sdr_range get_freq_range(size_t chan = 0);
    tune_result set_gain(double db, size_t chan = 0, uint64_t at_ns = 0);
    double get_gain(size_t chan = 0);
    sdr_range get_gain_range(size_t chan = 0);
    tune_result set_bandwidth(double hz, size_t chan = 0, uint64_t at_ns = 0);
    double get_bandwidth(size_t chan = 0);
    sdr_range get_bandwidth_range(size_t chan = 0);
    //! Antennas are named ANT0, ANT1, ...
    void set_antenna(const std::string& name, size_t chan = 0, uint64_t at_ns = 0);
    std::string get_antenna(size_t chan = 0);
    std::vector<std::string> get_antennas(size_t chan = 0);

    //! The device's time now, ns since the epoch.
    uint64_t get_time_now();
    //! Set the device time now (stop the streams first: docs/radio.md).
    void set_time_now(uint64_t ns);
    //! Set the device time at the next PPS edge of the time source.
    void set_time_next_pps(uint64_t ns);
    uint64_t get_time_last_pps();
    //! "internal", "external", "gpsdo": those the device has.
    std::vector<std::string> get_clock_sources();
    void set_clock_source(const std::string& name);
    std::string get_clock_source();
    std::vector<std::string> get_time_sources();
    void set_time_source(const std::string& name);
    std::string get_time_source();
    //! Whether the oscillator follows the clock source.
    bool ref_locked();

    //! End RX stream \p stream's run before its first sample at or after \p at_ns.
    void stop_rx_at(size_t stream, uint64_t at_ns);
    //! Drop the commands queued on the device.
    void clear_commands();
    //! The command queue's counters: commands.executed, commands.late, commands.queued.
    std::map<std::string, uint64_t> command_counters();

    /*!
     * The device's controller (docs/links.md, "Software control of the data path";
     * needs RATE_CONTROL): the policy by which it sets its streams' dequeue rates and
     * link weights, "none", "water_filling" or "shortest_rtt" (CTRL_POLICY), and the
     * period of its loop, 1e-6 ... 1 s in whole microseconds (CTRL_PERIOD_US). They
     * are the device's, for every stream: while any host owns a stream of it, only a
     * host that owns one may set them (std::runtime_error naming that fix).
     */
    static std::vector<std::string> get_ctrl_policies();
    void set_ctrl_policy(const std::string& name);
    std::string get_ctrl_policy();
    void set_ctrl_period(double seconds);
    double get_ctrl_period();

    class impl;

private:
    std::unique_ptr<impl> d_impl;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_SDR_H */
