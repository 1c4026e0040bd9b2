/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, rdma, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */

static const char* __doc_gr_rdma_tx_sink = R"doc(Zero-copy RDMA transmit sink: its input buffer is the registered TX ring, which the SDR reads by RDMA READ (docs/transmit.md). The upstream block writes straight into it; each item is consumed once the device fetched it. The edge into the sink must not fan out, nor come from rx_source: put a blocks.copy in front. Reports on "async_msgs" as gr-uhd's sink.)doc";
static const char* __doc_gr_rdma_tx_sink_make = R"doc(tx_sink(args="type=emu", format="fc32", sample_rate=1e6))doc";
static const char* __doc_gr_rdma_tx_sink_ring_base = R"doc(Address of the TX ring (first copy) as an integer.)doc";
static const char* __doc_gr_rdma_tx_sink_ring_bytes = R"doc(Bytes in one copy of the ring.)doc";
static const char* __doc_gr_rdma_tx_sink_ring_items = R"doc(Items in the ring.)doc";
static const char* __doc_gr_rdma_tx_sink_pointer_mismatches = R"doc(work() calls whose input pointer was not the ring slot of the next item (0: zero-copy).)doc";
static const char* __doc_gr_rdma_tx_sink_work_calls = R"doc(work() calls so far.)doc";
static const char* __doc_gr_rdma_tx_sink_get_time_now = R"doc(The device's time now, ns since the epoch (an AXIoE read).)doc";
static const char* __doc_gr_rdma_tx_sink_error = R"doc(Why the sink ended the flowgraph; empty if it did not.)doc";
static const char* __doc_gr_rdma_tx_sink_read_counters = R"doc(The stream's counters (device.*, nic.*, host.*) and its accounting (acct.*) as a dict.)doc";
