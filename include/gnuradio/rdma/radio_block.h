/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RADIO_BLOCK_H
#define INCLUDED_RDMA_RADIO_BLOCK_H

#include <gnuradio/rdma/api.h>
#include <gnuradio/rdma/sdr.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief The radio controls of the blocks of a device, declared once (as gr-uhd's
 * usrp_block): rx_source and device derive from it.
 * \ingroup rdma
 *
 * \details
 * A block speaks for some RF channels of its device (docs/radio.md): its channel c is
 * the device's RF channel first + c, where first is the block's first RX stream (an
 * rx_source's stream= arg) or 0 (device). The setters take effect now, or, after
 * set_command_time(t), at device time t (through the device's command queue, to the
 * sample) until clear_command_time(). Values outside a range are clipped to it (and
 * rounded to its step) by the device, with a warning; the tune_result says what was
 * set. Setters throw std::invalid_argument for a channel or antenna the device does not
 * have, std::runtime_error for a feature it lacks. Every call but num_channels() talks
 * to the device over AXIoE: not for a flowgraph's hot loop.
 *
 * tx_sink is not one: the register map's RF channels are the receive front ends
 * (docs/radio.md); a transmit one would make it one.
 */
class RDMA_API radio_block
{
public:
    virtual ~radio_block() = default;

    //! The block's channels: 0 .. num_channels()-1.
    virtual size_t num_channels() const = 0;

    //! Tune channel \p chan; now, or at the command time.
    virtual tune_result set_center_freq(double freq, size_t chan = 0) = 0;
    virtual double get_center_freq(size_t chan = 0) = 0;
    virtual sdr_range get_freq_range(size_t chan = 0) = 0;
    virtual tune_result set_gain(double gain, size_t chan = 0) = 0;
    virtual double get_gain(size_t chan = 0) = 0;
    virtual sdr_range get_gain_range(size_t chan = 0) = 0;
    virtual tune_result set_bandwidth(double bandwidth, size_t chan = 0) = 0;
    virtual double get_bandwidth(size_t chan = 0) = 0;
    virtual sdr_range get_bandwidth_range(size_t chan = 0) = 0;
    //! Antennas are named ANT0, ANT1, ...
    virtual void set_antenna(const std::string& name, size_t chan = 0) = 0;
    virtual std::string get_antenna(size_t chan = 0) = 0;
    virtual std::vector<std::string> get_antennas(size_t chan = 0) = 0;

    //! The device's time now, ns since the epoch (an AXIoE read).
    virtual uint64_t get_time_now() = 0;
    //! Later settings (setters, and commands without a time) take effect at device time
    //! \p time_ns (ns since the epoch), as gr-uhd's set_command_time.
    virtual void set_command_time(uint64_t time_ns) = 0;
    virtual void clear_command_time() = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RADIO_BLOCK_H */
