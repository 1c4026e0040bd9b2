/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TX_SINK_H
#define INCLUDED_RDMA_TX_SINK_H

#include <gnuradio/block.h>
#include <gnuradio/rdma/api.h>
#include <cstdint>
#include <map>
#include <string>

namespace gr {
namespace rdma {

/*!
 * \brief RDMA transmit sink, zero copy: its input buffer is the registered TX ring.
 * \ingroup rdma
 *
 * The upstream block writes its samples straight into the ring the SDR fetches from by
 * RDMA READ (docs/transmit.md); the sink only makes them available to the device and
 * consumes each item once the device has fetched it, so GNU Radio never lets the
 * upstream overwrite a slot the device has not read.
 *
 * Input: complex float (fc32, 8-byte items), complex int16 (sc16, 4-byte items) or
 * complex int8 (sc8, 2-byte items): the CPU format (gr-uhd's cpu_format). The device
 * fetches the wire format (gr-uhd's otw_format), by default the same: then the ring is
 * the input buffer, zero copy. When they differ (e.g. fc32 in the flowgraph, sc16 on
 * the wire: half of fc32's link bandwidth), the input buffer is an ordinary GNU Radio
 * buffer and work() converts the items with VOLK in one pass straight into the ring's
 * free space: fc32 -> sc16 multiplies by 32768, fc32 -> sc8 by 128, both rounded and
 * saturated, as gr-uhd (docs/wire-format.md states every pair). Item numbering, tags,
 * reports and accounting are the same either way.
 *
 * Zero copy, the upstream must not be another block with an RDMA ring (rx_source), and
 * the edge into the sink must not fan out (GNU Radio 3.10.5.1 cannot share the buffer
 * the ring replaces): in either case the sink ends the flowgraph at start with an error
 * naming the fix (error()): a blocks.copy in front of the sink. With a conversion both
 * are fine (the input is an ordinary buffer).
 *
 * The device starts at the first work() call, with the items the upstream wrote by then
 * already committed. With a device that takes TX bursts (CAP_TX_BURSTS) the sink reads
 * gr-uhd's burst tags as gr-uhd's usrp_sink does (docs/transmit.md, "Bursts and time"):
 * a tx_time (a tuple of uint64 full and double fractional seconds) on a sample plays
 * that sample at that device time (inside a burst: the burst ends before it and a new
 * one begins there); a tx_eob (PMT_T) on a sample ends its burst after it; the samples
 * after an end begin a burst as soon as possible (a tx_sob marks that; inside a burst it
 * changes nothing). A burst whose time has passed is dropped and reported (time_error),
 * the next one plays. Untagged input is one burst from item 0: continuous streaming. A
 * tx_time on item 0 starts the device at that time, so that later times on its sample
 * grid play to the sample. At the end of the input the open burst ends there and the
 * device plays all of it. Without TX bursts the input streams continuously: a tx_time
 * on item 0 sets the start (one already past ends the flowgraph with a time_error
 * report), the other tags draw one warning and are ignored.
 *
 * Reports go out on the "async_msgs" port as gr-uhd's sink does: a dict with
 * event_code (burst_ack, underflow, time_error, seq_error, late, lead, stream_failed,
 * nic_error, stream_stopped, device_lost), time_spec (full seconds, fractional seconds
 * of device time), channel, and count, item (the device's item index), value, bursts and
 * unattributed (tx_event, tx_stream.h): the device's own, from its TX records when it
 * sends them, adding up to its counters exactly.
 */
class RDMA_API tx_sink : virtual public gr::block
{
public:
    typedef std::shared_ptr<tx_sink> sptr;

    /*!
     * \param args device args (docs/device-args.md; tx_stream's keys)
     * \param format the input items' format (gr-uhd's cpu_format): "fc32", "sc16" or
     *        "sc8"; also the wire format unless \p otw_format names another
     * \param sample_rate samples per second the device plays
     * \param otw_format the wire format the device fetches (gr-uhd's otw_format):
     *        "sc16", "sc8" or "fc32"; empty (the default): \p format, zero copy
     */
    static sptr make(const std::string& args = "type=emu",
                     const std::string& format = "fc32",
                     double sample_rate = 1e6,
                     const std::string& otw_format = "");

    //! The input items' format: "fc32", "sc16" or "sc8".
    virtual std::string cpu_format() const = 0;
    //! The format the device fetches and the ring holds; cpu_format(): zero copy.
    virtual std::string otw_format() const = 0;
    /*!
     * Where the conversions wrote (formats differ), for the zero-copy check: "calls"
     * (work() calls that converted), "items", "outside" (conversions whose destination
     * was not the ring slot of the next item inside the ring), "lowest" (address of the
     * lowest item written) and "end" (one past the highest byte written). Every write
     * lies in the ring when outside is 0, ring_base() <= lowest and end <= ring_base()
     * + 2 * ring_bytes() (the ring is mapped twice). All zero with equal formats.
     */
    virtual std::map<std::string, uint64_t> conversion_writes() const = 0;
    //! The ring (first copy) as an address: zero copy, the upstream's output pointer
    //! lies in [ring_base(), ring_base() + 2 * ring_bytes()) on every call. Items of the
    //! wire format.
    virtual uint64_t ring_base() const = 0;
    virtual size_t ring_bytes() const = 0;
    virtual size_t ring_items() const = 0;
    //! work() calls whose input pointer was not the ring slot of the next item (zero
    //! copy; 0 with a conversion, whose writes conversion_writes() checks).
    virtual uint64_t pointer_mismatches() const = 0;
    //! work() calls so far.
    virtual uint64_t work_calls() const = 0;
    //! The device's time now (ns since the epoch), read over AXIoE.
    virtual uint64_t get_time_now() = 0;
    //! Why the sink ended the flowgraph, empty if it did not.
    virtual std::string error() const = 0;
    /*!
     * The stream's counters (tx_stream::read_counters(): device.*, nic.*, host.*) and
     * its accounting as "acct.*" (host_committed, played, late, dropped, not_played,
     * underflow, idle, bursts_done, time_errors, identity_holds). Queries the device
     * while running; final after the flowgraph stopped.
     */
    virtual std::map<std::string, uint64_t> read_counters() = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_TX_SINK_H */
