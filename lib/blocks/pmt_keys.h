/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_PMT_KEYS_H
#define INCLUDED_RDMA_PMT_KEYS_H

#include <pmt/pmt.h>

namespace gr {
namespace rdma {

/*!
 * Every PMT symbol the blocks put on a port, a tag or a report, in one place (as
 * gr-uhd's cmd_keys.h). Each is interned once, on first use, so that work() never
 * looks a symbol up by its text. What each means: docs/blocks.md (ports and tags),
 * docs/radio.md (commands and their reports), docs/loss-accounting.md (rx events).
 */
namespace keys {

#define RDMA_PMT_KEY(name, text)                     \
    inline const pmt::pmt_t& name()                  \
    {                                                \
        static const pmt::pmt_t key = pmt::mp(text); \
        return key;                                  \
    }

// Message ports.
RDMA_PMT_KEY(async_msgs, "async_msgs") // rx_source, tx_sink: events and reports out
RDMA_PMT_KEY(command, "command")       // command in; also a refusal's echo of it
RDMA_PMT_KEY(reports, "reports")       // device: command reports out
RDMA_PMT_KEY(events, "events")         // ramp_check, sigmf_sink: rx_source's events in

// Stream tags (gr-uhd's names where gr-uhd has one).
RDMA_PMT_KEY(rx_time, "rx_time")
RDMA_PMT_KEY(rx_rate, "rx_rate")
RDMA_PMT_KEY(rx_freq, "rx_freq")
RDMA_PMT_KEY(rx_share, "rx_share")
RDMA_PMT_KEY(tx_sob, "tx_sob")
RDMA_PMT_KEY(tx_eob, "tx_eob")
RDMA_PMT_KEY(tx_time, "tx_time")

// Message heads on async_msgs.
RDMA_PMT_KEY(rdma_command, "rdma_command")   // (rdma_command . report)
RDMA_PMT_KEY(rdma_rx_event, "rdma_rx_event") // (rdma_rx_event . event dict)

// Radio commands (gr-uhd's keys) and their reports.
RDMA_PMT_KEY(chan, "chan")
RDMA_PMT_KEY(rate, "rate")
RDMA_PMT_KEY(time, "time")
RDMA_PMT_KEY(ack, "ack")
RDMA_PMT_KEY(error, "error")
RDMA_PMT_KEY(key, "key")
RDMA_PMT_KEY(requested, "requested")
RDMA_PMT_KEY(actual, "actual")
RDMA_PMT_KEY(clipped, "clipped")
RDMA_PMT_KEY(device_time, "device_time")

// rx_source's event dicts.
RDMA_PMT_KEY(type, "type")
RDMA_PMT_KEY(cause, "cause")
RDMA_PMT_KEY(first_sample, "first_sample")
RDMA_PMT_KEY(device_sample, "device_sample")
RDMA_PMT_KEY(count, "count")
RDMA_PMT_KEY(code, "code")
RDMA_PMT_KEY(value, "value")
RDMA_PMT_KEY(links, "links")
RDMA_PMT_KEY(link, "link")
RDMA_PMT_KEY(epoch, "epoch")
RDMA_PMT_KEY(weights, "weights")
RDMA_PMT_KEY(by, "by")
RDMA_PMT_KEY(share, "share")
RDMA_PMT_KEY(shares, "shares")
RDMA_PMT_KEY(block_items, "block_items")

// tx_sink's reports (gr-uhd's async message keys where gr-uhd has one).
RDMA_PMT_KEY(event_code, "event_code")
RDMA_PMT_KEY(item, "item")
RDMA_PMT_KEY(bursts, "bursts")
RDMA_PMT_KEY(unattributed, "unattributed")
RDMA_PMT_KEY(time_spec, "time_spec")
RDMA_PMT_KEY(channel, "channel")

#undef RDMA_PMT_KEY

} // namespace keys
} // namespace rdma
} // namespace gr

#endif
