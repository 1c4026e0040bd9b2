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
static const char* __doc_gr_rdma_rx_source_make = R"doc(rx_source(args="type=emu", format="fc32", sample_rate=1e6, num_samples=0))doc";
static const char* __doc_gr_rdma_rx_source_ring_base = R"doc(Address of the ring (first copy) as an integer.)doc";
static const char* __doc_gr_rdma_rx_source_ring_bytes = R"doc(Bytes in one copy of the ring.)doc";
static const char* __doc_gr_rdma_rx_source_ring_items = R"doc(Items in the ring.)doc";
static const char* __doc_gr_rdma_rx_source_hugepages = R"doc(Whether the ring is backed by hugepages.)doc";
static const char* __doc_gr_rdma_rx_source_read_counters = R"doc(Device, NIC and host counters as a dict (queries the device).)doc";
static const char* __doc_gr_rdma_rx_source_read_injected_faults = R"doc(Drain the emulator's log of injected faults: a list of dicts (message, first_sample, samples, kind).)doc";
static const char* __doc_gr_rdma_rx_source_error = R"doc(Why the run ended early (device lost or failed, NIC error); empty if it did not.)doc";
static const char* __doc_gr_rdma_rx_source_device_note = R"doc(Why the device's final counters are not known; empty when they are.)doc";
