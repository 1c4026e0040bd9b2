/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RX_EVENT_H
#define INCLUDED_RDMA_RX_EVENT_H

#include <gnuradio/rdma/transport_api.h>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * \brief Something the host must know about the samples it is handed.
 *
 * Item numbers count the consumer's items since start() (GNU Radio's item offsets);
 * device_item counts the device's samples since sample 0 of the run. They differ by a
 * whole number of rings after an overrun skipped samples.
 */
struct rx_event {
    enum class kind : uint8_t {
        gap,     //!< samples lost on the way; delivered as zeros at item .. item+count
        overrun, //!< the device lapped the reader; see cause
        time,    //!< item carries device time time_ns (start, after every discontinuity)
        device,  //!< the device reported an event (metadata channel); see cause, code,
                 //!< value
        notice,  //!< not a loss: something the host noticed about delivered samples
        tune,    //!< item is the first sample taken at center frequency value (mHz), in
                 //!< effect from device time time_ns (docs/radio.md)
        link,    //!< the device's links (docs/links.md, "Failover"): from item on, a new
                 //!< schedule (epoch code); see cause. Not a loss
    };
    enum class reason : uint8_t {
        none,
        packet_lost,  //!< gap: the packet never landed (placeholder still in place)
        unverifiable, //!< gap: the slot could not be re-armed in time (reader too slow);
                      //!< zeros
        skipped, //!< overrun: count samples were never delivered; item resumes later data
        overwritten, //!< overrun: delivered samples item..item+count were overwritten
                     //!< before the reader released them: their content is not what they
                     //!< claim
        zero_substituted, //!< gap: the device sent zeros in place of these samples (RC)
        fault_injected,   //!< device: the emulator injected fault `value` (regs::fault)
                          //!< into the message starting at device_item
        device_overflow, //!< device: it lost `value` samples from device_item (overflow);
                         //!< gap: samples it never sent whose slots did not hold the mark
        device_other,    //!< device: an event code this host does not know (see code)
        mark_imitated,   //!< notice: samples item..item+count equal the gap mark, yet the
                         //!< NIC proved they landed: delivered as received
        gap_overwritten, //!< overrun: items of a gap (reported lost, handed out as zeros)
                         //!< were overwritten before the reader released them: they no
                         //!< longer read as zeros. Counted lost once, by the gap.
        device_lost,     //!< device: it stopped answering (value: ms without an answer)
        device_back,     //!< device: it answers again (value: the outage, in ms)
        stream_stopped,  //!< device: the stream stopped under us (stopped by another
                         //!< host, its ownership lease lapsed, or the device restarted)
        stream_failed,   //!< device: it reports the stream in error (code: RX_STATUS)
        nic_error,       //!< the host's NIC failed the stream's queue pair (value: the
                         //!< completion status); the run ends
        rate_changed,    //!< time: from item on, a new run at rate value (mS/s) takes the
                         //!< samples (rx_stream::change_rate()); nothing was lost
        device_outage,   //!< device: the stream continues with a new run of the device;
                         //!< count: samples of the timeline from item on that no device
                         //!< run produced (not handed out, not lost: never emitted)
        link_down,       //!< link: device link `value` carries none of the stream from
                         //!< item on (epoch `code`): the device saw it fall (count 1), or
                         //!< the host declared it down (count 2)
        link_up,         //!< link: device link `value` takes its share again from item
                         //!< on (epoch `code`)
        schedule_changed, //!< link: from item on, epoch code spreads the stream by the
                          //!< weights in value (destinations 0..3, 16 bits each, 0 in
                          //!< bits 15..0) and count (destinations 4..7)
        rate_held, //!< device: its controller has held the stream below what its samples
                   //!< need (CTRL_RATE) at two heartbeats in a row: it drops the rest
                   //!< (device_overflow gaps). value: the rate held to, bytes/s; count:
                   //!< the rate needed, bytes/s. Once per hold
        share_lost, //!< device: the host of share `value` of this split stream left
                    //!< (released its share, its lease lapsed, or it was taken over),
                    //!< and the device stopped the stream for every share (read from
                    //!< RX_STOP_CAUSE, map 1.6); the run ends
    };
    kind type = kind::time;
    reason cause = reason::none;
    uint64_t item = 0;
    uint64_t device_item = 0;
    uint64_t count = 0;
    uint64_t time_ns = 0; //!< device time of device_item (ns since the epoch)
    uint32_t code = 0;    //!< device: the event code on the wire (docs/metadata.md); gap
                          //!< of a stream over several links: the links that carried its
                          //!< messages, bit n for link n (bit 31: not known)
    uint64_t value = 0;   //!< device: the event's value; tune: the frequency, mHz
};

RDMA_TRANSPORT_API const char* to_string(rx_event::kind k);
RDMA_TRANSPORT_API const char* to_string(rx_event::reason r);

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RX_EVENT_H */
