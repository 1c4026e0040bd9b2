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

static const char* __doc_gr_rdma_tx_sink = R"doc(RDMA transmit sink, zero copy: its input buffer is the registered TX ring, which the SDR reads by RDMA READ (docs/transmit.md). The upstream block writes straight into it; each item is consumed once the device fetched it. Zero copy, the edge into the sink must not fan out, nor come from rx_source: put a blocks.copy in front. With otw_format other than format, the input is an ordinary buffer and work() converts into the ring with VOLK (docs/wire-format.md). gr-uhd's burst tags (tx_sob, tx_eob, tx_time) become timed bursts on a device with TX bursts (docs/transmit.md, "Bursts and time"). Reports on "async_msgs" as gr-uhd's sink: dicts with event_code (burst_ack, underflow, time_error, seq_error, late, lead, ...), time_spec, channel, count, item, value, bursts, unattributed.)doc";
static const char* __doc_gr_rdma_tx_sink_make = R"doc(tx_sink(args="type=emu", format="fc32", sample_rate=1e6, otw_format=""). format: the input items (fc32, sc16, sc8); otw_format: what the device fetches (sc16, sc8, fc32), empty: format (zero copy); when they differ the block converts with VOLK (fc32 -> sc16: * 32768, fc32 -> sc8: * 128, rounded and saturated).)doc";
static const char* __doc_gr_rdma_tx_sink_make_2 = R"doc(tx_sink(args="type=emu", *, cpu_format, otw_format="", sample_rate=1e6): gr-uhd's stream_args names; cpu_format is format.)doc";
static const char* __doc_gr_rdma_tx_sink_cpu_format = R"doc(The input items' format: fc32, sc16 or sc8.)doc";
static const char* __doc_gr_rdma_tx_sink_otw_format = R"doc(The wire format the device fetches and the ring holds; equal to cpu_format(): zero copy.)doc";
static const char* __doc_gr_rdma_tx_sink_conversion_writes = R"doc(Where the conversions wrote: {calls, items, outside, lowest, end}; inside the ring when outside is 0, ring_base() <= lowest and end <= ring_base() + 2 * ring_bytes(). All zero with equal formats.)doc";
static const char* __doc_gr_rdma_tx_sink_ring_base = R"doc(Address of the TX ring (first copy) as an integer.)doc";
static const char* __doc_gr_rdma_tx_sink_ring_bytes = R"doc(Bytes in one copy of the ring.)doc";
static const char* __doc_gr_rdma_tx_sink_ring_items = R"doc(Items in the ring.)doc";
static const char* __doc_gr_rdma_tx_sink_pointer_mismatches = R"doc(work() calls whose input pointer was not the ring slot of the next item (0: zero-copy).)doc";
static const char* __doc_gr_rdma_tx_sink_work_calls = R"doc(work() calls so far.)doc";
static const char* __doc_gr_rdma_tx_sink_get_time_now = R"doc(The device's time now, ns since the epoch (an AXIoE read).)doc";
static const char* __doc_gr_rdma_tx_sink_error = R"doc(Why the sink ended the flowgraph; empty if it did not.)doc";
static const char* __doc_gr_rdma_tx_sink_read_counters = R"doc(The stream's counters (device.*, nic.*, host.*) and its accounting (acct.*) as a dict.)doc";
