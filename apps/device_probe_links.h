/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_DEVICE_PROBE_LINKS_H
#define INCLUDED_RDMA_APPS_DEVICE_PROBE_LINKS_H

#include "app_report.h"
#include "axioe/axioe_client.h"

/*
 * gr-rdma-probe's view of several links (register map 1.5, docs/links.md): what each
 * link carried and how the host and the device see it, and for an RX stream where its
 * messages went (its destinations) and when the schedule changed (its epochs). Reads
 * only registers anyone may read, but DST_LINK and DST_WEIGHT, which are the owner's.
 */

namespace gr {
namespace rdma {
namespace app {

//! Link \p n's counters (base map) and, with \p multi_link, LINK_CONTROL,
//! LINK_DOWN_EVENTS and LINK_CAPACITY, into its section \p link.
void add_link_traffic(report_node& link, axioe::client& c, unsigned n, bool multi_link);

/*!
 * RX stream \p s's used destinations (link and weight where readable, DST_STATE
 * decoded, DST_MESSAGES) and its newest epochs, cause decoded, into its section
 * \p stream: when it runs, or has run (the values stay until the next START).
 */
void add_stream_links(report_node& stream, axioe::client& c, unsigned s, bool running);
//! Several hosts (CAP_SHARES): the stream's layout, which shares are ready, and per
//! share its holder, its samples and its run's start (docs/links.md, "Several hosts").
void add_stream_shares(report_node& stream, axioe::client& c, unsigned s);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
