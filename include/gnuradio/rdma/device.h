/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_H
#define INCLUDED_RDMA_DEVICE_H

#include <gnuradio/block.h>
#include <gnuradio/rdma/api.h>
#include <gnuradio/rdma/radio_block.h>
#include <gnuradio/rdma/sdr.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief The radio of an RDMA SDR in a flowgraph: RF channels, device time, commands.
 * \ingroup rdma
 *
 * \details
 * A block without streams that holds a gr::rdma::sdr for its device args: the same
 * device as every rx_source of the process naming it (docs/device-args.md), so a retune
 * here is tagged "rx_freq" by those sources on the first sample taken at the new
 * frequency. Its channel c is the device's RF channel c, the front end of RX stream c
 * (docs/radio.md); it speaks for channels 0 .. num_channels-1.
 *
 * The setters mirror gr-uhd's usrp_block: they take effect now, or, after
 * set_command_time(t), at device time t (through the device's command queue, to the
 * sample) until clear_command_time(). Values outside a range are clipped to it (and
 * rounded to its step) by the device, with a warning; the tune_result says what was
 * set. Setters throw std::invalid_argument for a channel, antenna or source the device
 * does not have, std::runtime_error for a feature it lacks.
 *
 * Message ports: input "command" takes gr-uhd's command dicts (keys freq, gain,
 * bandwidth, antenna, time, chan; tune, lo_offset, direction, mboard as far as they
 * apply); output "reports" publishes a dict per acknowledged setting
 * {ack: command, chan, key, requested, actual, time: (secs, frac), clipped}, per refusal
 * {error: text, command} (unknown keys, bad types, values the device refused: never an
 * exception inside the scheduler), and every report_interval seconds while the
 * flowgraph runs {device_time: (secs, frac)}. docs/radio.md, "Host side", has the keys.
 */
class RDMA_API device : virtual public gr::block, virtual public radio_block
{
public:
    typedef std::shared_ptr<device> sptr;

    /*!
     * \param args device args (those of the rx_source whose device it controls)
     * \param num_channels RF channels it speaks for: 0 .. num_channels-1 (at most the
     *        device's)
     * \param clock_source frequency reference: "internal", "external", "gpsdo"; "":
     *        leave it as it is
     * \param time_source PPS source, as clock_source
     * \param time_at_start "": leave the device time; "now": set it to the host's clock
     *        (UTC) now; "pps": set it to the host's clock at the next PPS edge (waits
     *        for two edges, up to 3 s, as gr-uhd's "PC Clock on Next PPS")
     * \param report_interval seconds between {device_time} reports; 0: none
     */
    static sptr make(const std::string& args = "type=emu",
                     size_t num_channels = 1,
                     const std::string& clock_source = "",
                     const std::string& time_source = "",
                     const std::string& time_at_start = "",
                     double report_interval = 0);

    // The RF channels, the device time and the command time: radio_block.

    //! Set the device time now (with the streams stopped: docs/radio.md).
    virtual void set_time_now(uint64_t time_ns) = 0;
    //! Set the device time at the next PPS edge of the time source.
    virtual void set_time_next_pps(uint64_t time_ns) = 0;
    virtual uint64_t get_time_last_pps() = 0;
    virtual void set_clock_source(const std::string& name) = 0;
    virtual std::string get_clock_source() = 0;
    virtual std::vector<std::string> get_clock_sources() = 0;
    virtual void set_time_source(const std::string& name) = 0;
    virtual std::string get_time_source() = 0;
    virtual std::vector<std::string> get_time_sources() = 0;

    /*!
     * The device's controller (sdr::set_ctrl_policy): "none", "water_filling" or
     * "shortest_rtt" (CTRL_POLICY), and its loop's period in seconds (CTRL_PERIOD_US);
     * the device's, for every stream, and not timed. docs/links.md, "Setting the
     * controller".
     */
    virtual void set_ctrl_policy(const std::string& name) = 0;
    virtual std::string get_ctrl_policy() = 0;
    virtual std::vector<std::string> get_ctrl_policies() = 0;
    virtual void set_ctrl_period(double seconds) = 0;
    virtual double get_ctrl_period() = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_DEVICE_H */
