/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RX_SOURCE_H
#define INCLUDED_RDMA_RX_SOURCE_H

#include <gnuradio/rdma/api.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <map>
#include <string>

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
 * Output: complex float (fc32, 8-byte items) or complex int16 (sc16, 4-byte items).
 * Tags "rx_time" (tuple of uint64 seconds, double fraction: the device time of the
 * sample) and "rx_rate" on the first sample of every run, as gr-uhd does, and
 * "rx_time" again after every discontinuity. Lost samples are delivered as zeros,
 * tagged "rx_gap"; overruns are tagged "rx_overrun"; each is also published on the
 * "async_msgs" port as (rdma_rx_event . dict{type, cause, first_sample, device_sample,
 * count, rx_time}). docs/loss-accounting.md states the policy.
 * With num_samples > 0 the block streams a finite burst and then ends the flowgraph.
 */
class RDMA_API rx_source : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<rx_source> sptr;

    /*!
     * \param args device args, e.g. "type=emu,signal=ramp"
     * \param format "fc32" or "sc16"
     * \param sample_rate samples per second
     * \param num_samples 0: stream until stopped; else a burst of that many samples
     */
    static sptr make(const std::string& args = "type=emu",
                     const std::string& format = "fc32",
                     double sample_rate = 1e6,
                     uint64_t num_samples = 0);

    //! Address of the ring (first copy) as an integer, for diagnostics.
    virtual uint64_t ring_base() const = 0;
    //! Bytes in one copy of the ring; the ring is mapped twice back to back.
    virtual size_t ring_bytes() const = 0;
    virtual size_t ring_items() const = 0;
    //! Whether the ring is backed by hugepages.
    virtual bool hugepages() const = 0;
    //! Counters of device ("device.*"), NIC ("nic.*") and host ("host.*"). Queries the
    //! device over the control channel: not for use inside a flowgraph's hot loop.
    virtual std::map<std::string, uint64_t> read_counters() = 0;
    //! Drain the emulator's log of injected faults (see rx_stream::read_injected_faults).
    virtual std::vector<rx_stream::injected_fault> read_injected_faults() = 0;
    //! Why the run ended early (device lost or failed, NIC error), empty if it did not:
    //! then the block ended the flowgraph. See rx_stream::error().
    virtual std::string error() const = 0;
    //! Why the device's final counters are not known (rx_stream::device_note()).
    virtual std::string device_note() const = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RX_SOURCE_H */
