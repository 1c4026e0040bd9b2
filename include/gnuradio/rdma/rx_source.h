/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RX_SOURCE_H
#define INCLUDED_RDMA_RX_SOURCE_H

#include <gnuradio/rdma/api.h>
#include <gnuradio/rdma/radio_block.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sdr.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief Receive samples from an RDMA SDR, zero copy.
 * \ingroup rdma
 *
 * \details
 * The block's output buffer is the RDMA ring: the SDR writes samples into it by RDMA
 * WRITE and downstream blocks read them in place; work() only reports how many have
 * landed. Device selection and tuning come as a UHD-style args string
 * (docs/device-args.md); the default, type=emu, runs the built-in SDR emulator and
 * the userspace NIC on loopback.
 *
 * Output: complex float (fc32, 8-byte items), complex int16 (sc16, 4-byte items) or
 * complex int8 (sc8, 2-byte items): the CPU format (gr-uhd's cpu_format). The device
 * sends the wire format (gr-uhd's otw_format), by default the same: then the ring is
 * the output buffer, zero copy. When they differ (e.g. sc16 on the wire, half of
 * fc32's link bandwidth, and fc32 in the flowgraph), the output buffer is an ordinary
 * GNU Radio buffer and work() converts the items from the ring, in place, with VOLK in
 * one pass: sc16 -> fc32 divides by 32768, sc8 -> fc32 by 128, as gr-uhd
 * (docs/wire-format.md states every pair). Item
 * numbering, tags, reports and loss accounting are the same either way.
 * Tags "rx_time" (tuple of uint64 seconds, double fraction: the device time of the
 * sample) and "rx_rate" on the first sample of every run, as gr-uhd does, and
 * "rx_time" again after every discontinuity. With a device that has an RF front end
 * (docs/radio.md), "rx_freq" (double, Hz) on the first sample and on the first sample
 * taken at each new center frequency set through this process (set_center_freq(), the
 * command port, an rdma.device block naming the same device), to the sample. Lost samples
 * are delivered as zeros, tagged "rx_gap"; overruns are tagged "rx_overrun"; each is also
 * published on the "async_msgs" port as (rdma_rx_event . dict{type, cause, first_sample,
 * device_sample, count, rx_time}). docs/loss-accounting.md states the policy. With
 * num_samples > 0 the block streams a finite burst and then ends the flowgraph.
 *
 * Channels: with num_channels = N the block has N outputs, fed by N RX streams of the
 * device (stream=s, s+1, ..., s+N-1 of the device args; s defaults to 0), each into a
 * ring of its own, all started at one device time so that item k of every output is
 * the same device instant (rx_time of item 0 is equal on all of them). Every output
 * gets its own tags; the async_msgs reports carry "chan".
 *
 * Radio controls (a device with an RF front end, docs/radio.md): output c is RF channel
 * s + c of the device. The setters mirror gr-uhd's usrp_source: now, or at the device
 * time set_command_time() gave, to the sample. Values outside a range are clipped to it
 * (and rounded to its step) by the device, with a warning; the tune_result says what
 * was set. The "command" input takes gr-uhd's command dicts (freq, gain, bandwidth,
 * antenna, time, chan; chan is the output, all of them by default) and answers each on
 * async_msgs as (rdma_command . dict): {ack: command, chan, key, requested, actual,
 * time: (secs, frac), clipped} per setting, {error: text, command} per refusal. "rate"
 * (without "time") is set_samp_rate(). An rdma.device block naming the same device
 * controls the same radio.
 */
class RDMA_API rx_source : virtual public gr::sync_block, virtual public radio_block
{
public:
    typedef std::shared_ptr<rx_source> sptr;

    /*!
     * \param args device args, e.g. "type=emu,signal=ramp"
     * \param format the output items' format (gr-uhd's cpu_format): "fc32", "sc16" or
     *        "sc8"; also the wire format unless \p otw_format names another
     * \param sample_rate samples per second
     * \param num_samples 0: stream until stopped; else a burst of that many samples
     * \param num_channels outputs: RX streams of the device, started in step
     * \param otw_format the wire format the device sends (gr-uhd's otw_format): "sc16",
     *        "sc8" or "fc32"; empty (the default): \p format, zero copy
     */
    static sptr make(const std::string& args = "type=emu",
                     const std::string& format = "fc32",
                     double sample_rate = 1e6,
                     uint64_t num_samples = 0,
                     size_t num_channels = 1,
                     const std::string& otw_format = "");

    //! The output items' format: "fc32", "sc16" or "sc8".
    virtual std::string cpu_format() const = 0;
    //! The format the device sends and the ring holds; cpu_format(): zero copy.
    virtual std::string otw_format() const = 0;
    /*!
     * Where the conversions of channel \p chan read (formats differ), for the zero-copy
     * check: "calls" (work() calls that converted), "items", "lowest" (address of the
     * lowest item read) and "end" (one past the highest byte read). Every read lies in
     * the ring when ring_base() <= lowest and end <= ring_base() + 2 * ring_bytes()
     * (the ring is mapped twice). All zero with equal formats (nothing is converted).
     */
    virtual std::map<std::string, uint64_t> conversion_reads(size_t chan = 0) const = 0;
    /*!
     * Take sample 0 of the next start() at device time \p device_time_ns (ns since the
     * epoch), as gr-uhd's set_start_time; 0 (the default): as soon as possible (with
     * several channels, 0.2 s after the device's time at start()).
     */
    virtual void set_start_time(uint64_t device_time_ns) = 0;
    /*!
     * Change the sample rate of every output while it runs, as gr-uhd's set_samp_rate,
     * without losing a sample (docs/radio.md, "Continuing a stream in a new run"): the
     * device stops at the next message boundary far enough ahead and starts again at
     * the new rate; that item is tagged rx_rate and rx_time (a later device time) on
     * every output, in step (asked before start(): soon after it). The change happens
     * in the block's thread: a refusal (a rate the ring cannot hold, a finite
     * stream, a device without COMMAND_QUEUE and BURST_QUEUE) is logged and reported on
     * async_msgs as (rdma_command . {error, key: rate}); nothing is thrown here but for
     * a rate that is not > 0.
     */
    virtual void set_samp_rate(double rate) = 0;
    //! The sample rate of the items handed out now (S/s).
    virtual double get_samp_rate() const = 0;

    //! Address of channel \p chan's ring (first copy) as an integer, for diagnostics.
    virtual uint64_t ring_base(size_t chan = 0) const = 0;
    //! Bytes in one copy of the ring; the ring is mapped twice back to back.
    virtual size_t ring_bytes() const = 0;
    virtual size_t ring_items() const = 0;
    //! Whether the ring is backed by hugepages.
    virtual bool hugepages() const = 0;
    //! Counters of device ("device.*"), NIC ("nic.*") and host ("host.*"). Queries the
    //! device over the control channel: not for use inside a flowgraph's hot loop.
    //! Of channel \p chan.
    virtual std::map<std::string, uint64_t> read_counters(size_t chan = 0) = 0;
    //! Drain the emulator's log of injected faults (see rx_stream::read_injected_faults).
    virtual std::vector<rx_stream::injected_fault>
    read_injected_faults(size_t chan = 0) = 0;
    //! Why the run ended early (device lost or failed, NIC error), empty if it did not:
    //! then the block ended the flowgraph. See rx_stream::error(). With several
    //! channels, the first channel's reason, prefixed "channel c: ".
    virtual std::string error() const = 0;
    //! Why the device's final counters are not known (rx_stream::device_note()).
    virtual std::string device_note() const = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RX_SOURCE_H */
