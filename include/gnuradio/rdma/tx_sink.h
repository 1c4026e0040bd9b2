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
 * \brief Zero-copy RDMA transmit sink: its input buffer is the registered TX ring.
 * \ingroup rdma
 *
 * The upstream block writes its samples straight into the ring the SDR fetches from by
 * RDMA READ (docs/transmit.md); the sink only makes them available to the device and
 * consumes each item once the device has fetched it, so GNU Radio never lets the
 * upstream overwrite a slot the device has not read.
 *
 * The upstream must not be another block with an RDMA ring (rx_source): the sink then
 * ends the flowgraph with an error saying so (error()). The edge into the sink must not
 * fan out: GNU Radio 3.10.5.1 refuses that at start, or starves the other consumer
 * (docs/transmit.md). In both cases put a blocks.copy in front of the sink.
 *
 * The device starts at the first work() call, with the items the upstream wrote by then
 * already committed. A tx_time tag on item 0 (gr-uhd's: a tuple of uint64 full seconds
 * and double fractional seconds) starts it at that device time, to the sample; a time
 * already past ends the flowgraph with a time_error report. Other tags (tx_sob,
 * tx_eob, a later tx_time) are not acted on yet: the input streams continuously.
 *
 * Reports go out on the "async_msgs" port as gr-uhd's sink does: a dict with
 * event_code (underflow, late, time_error, burst_ack, stream_failed, nic_error,
 * stream_stopped), count, time_spec (full seconds, fractional seconds) and channel.
 */
class RDMA_API tx_sink : virtual public gr::block
{
public:
    typedef std::shared_ptr<tx_sink> sptr;

    /*!
     * \param args        device args (docs/device-args.md; tx_stream's keys)
     * \param format      "sc16" (4-byte items) or "fc32" (8-byte complex float)
     * \param sample_rate samples per second the device plays
     */
    static sptr make(const std::string& args = "type=emu",
                     const std::string& format = "fc32",
                     double sample_rate = 1e6);

    //! The ring (first copy) as an address: the upstream's output pointer lies in
    //! [ring_base(), ring_base() + 2 * ring_bytes()) on every call.
    virtual uint64_t ring_base() const = 0;
    virtual size_t ring_bytes() const = 0;
    virtual size_t ring_items() const = 0;
    //! work() calls whose input pointer was not the ring slot of the next item.
    virtual uint64_t pointer_mismatches() const = 0;
    //! work() calls so far.
    virtual uint64_t work_calls() const = 0;
    //! The device's time now (ns since the epoch), read over AXIoE.
    virtual uint64_t get_time_now() = 0;
    //! Why the sink ended the flowgraph, empty if it did not.
    virtual std::string error() const = 0;
    /*!
     * The stream's counters (tx_stream::read_counters(): device.*, nic.*, host.*) and
     * its accounting as "acct.*" (host_committed, played, late, not_played, underflow,
     * identity_holds). Queries the device while running; final after the flowgraph
     * stopped.
     */
    virtual std::map<std::string, uint64_t> read_counters() = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_TX_SINK_H */
