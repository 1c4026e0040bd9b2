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

static const char* __doc_gr_rdma_rx_source = R"doc(Receive samples from an RDMA SDR, zero copy: the block's output buffer is the RDMA ring. See docs/device-args.md.)doc";
static const char* __doc_gr_rdma_rx_source_make = R"doc(rx_source(args="type=emu", format="fc32", sample_rate=1e6, num_samples=0, num_channels=1, otw_format=""): num_channels outputs, RX streams stream=s..s+N-1 of the device, started in step. format: the output items (fc32, sc16, sc8); otw_format: what the device sends (sc16, sc8, fc32), empty: format (zero copy); when they differ the block converts with VOLK (sc16 -> fc32: / 32768, sc8 -> fc32: / 128).)doc";
static const char* __doc_gr_rdma_rx_source_make_2 = R"doc(rx_source(args="type=emu", *, cpu_format, otw_format="", sample_rate=1e6, num_samples=0, num_channels=1): gr-uhd's stream_args names; cpu_format is format.)doc";
static const char* __doc_gr_rdma_rx_source_cpu_format = R"doc(The output items' format: fc32, sc16 or sc8.)doc";
static const char* __doc_gr_rdma_rx_source_otw_format = R"doc(The wire format the device sends and the ring holds; equal to cpu_format(): zero copy.)doc";
static const char* __doc_gr_rdma_rx_source_conversion_reads =
    R"doc(Where the conversions of channel chan read: {calls, items, lowest, end} (addresses); inside the ring when ring_base() <= lowest and end <= ring_base() + 2 * ring_bytes(). All zero with equal formats.)doc";
static const char* __doc_gr_rdma_rx_source_set_start_time = R"doc(set_start_time(device_time_ns): sample 0 of the next start() at that device time (ns since the epoch; 0: as soon as possible).)doc";
static const char* __doc_gr_rdma_rx_source_set_samp_rate = R"doc(Change the sample rate of every output while it runs, as gr-uhd's set_samp_rate, without losing a sample: the item where it takes effect is tagged rx_rate and rx_time on every output. A refusal is reported on async_msgs.)doc";

static const char* __doc_gr_rdma_rx_source_get_samp_rate = R"doc(The sample rate of the items handed out now (S/s).)doc";

static const char* __doc_gr_rdma_rx_source_ring_base = R"doc(ring_base(chan=0): address of the channel's ring (first copy) as an integer.)doc";
static const char* __doc_gr_rdma_rx_source_ring_bytes = R"doc(Bytes in one copy of the ring.)doc";
static const char* __doc_gr_rdma_rx_source_ring_items = R"doc(Items in the ring.)doc";
static const char* __doc_gr_rdma_rx_source_hugepages = R"doc(Whether the ring is backed by hugepages.)doc";
static const char* __doc_gr_rdma_rx_source_read_counters = R"doc(read_counters(chan=0): device, NIC and host counters of the channel as a dict (queries the device).)doc";
static const char* __doc_gr_rdma_rx_source_read_injected_faults = R"doc(Drain the emulator's log of injected faults: a list of dicts (message, first_sample, samples, kind).)doc";
static const char* __doc_gr_rdma_rx_source_error = R"doc(Why the run ended early (device lost or failed, NIC error); empty if it did not.)doc";
static const char* __doc_gr_rdma_rx_source_device_note =
    R"doc(Why the device's final counters are not known; empty when they are.)doc";
