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

static const char* __doc_gr_rdma_rx_stream = R"doc(A zero-copy RX stream from an RDMA SDR, usable without GNU Radio.

    s = rdma.rx_stream("type=emu,signal=tone", "fc32", 20e6)
    s.start()
    x = s.recv()          # numpy view into the ring: no copy
    ...                   # use x
    s.release(len(x))     # let the read position move on
    s.stop())doc";
static const char* __doc_gr_rdma_rx_stream_rx_stream = R"doc(rx_stream(args="type=emu", format="fc32", sample_rate=1e6, num_samples=0))doc";
static const char* __doc_gr_rdma_rx_stream_start = R"doc(Arm the device to write from ring slot 0 and start streaming.)doc";
static const char* __doc_gr_rdma_rx_stream_start_at = R"doc(start_at(device_time_ns): as start(), with sample 0 at that device time (ns since the epoch; 0: now). Streams of one device started at one time are in step.)doc";
static const char* __doc_gr_rdma_rx_stream_device_time_now = R"doc(The device's time now, ns since the epoch (an AXIoE read).)doc";
static const char* __doc_gr_rdma_rx_stream_change_rate = R"doc(change_rate(rate, at_item=0, at_ns=0) -> {"item", "time_ns"}: change the rate of the running stream without losing a sample; from item on a new run at the new rate, taken at time_ns (docs/radio.md). Call it from the thread that calls recv().)doc";
static const char* __doc_gr_rdma_rx_stream_queue_burst = R"doc(queue_burst(num_samples, at_ns=0, first_item=0) -> int: queue a burst (a stream made with num_samples=rx_stream.queued): num_samples samples taken from device time at_ns (0: right after the previous burst), landing in the ring from item first_item (a message boundary; 0: after the previous burst's region). Returns the ring item index where its sample 0 lands. recv() hands the bursts out one after the other, each with a time event at its first item (docs/radio.md, "Burst queue").)doc";
static const char* __doc_gr_rdma_rx_stream_queued = R"doc(num_samples of a stream that sends only the bursts queued with queue_burst() (all ones).)doc";
static const char* __doc_gr_rdma_rx_stream_stop = R"doc(Stop the device; returns once no more samples of this run can land.)doc";
static const char* __doc_gr_rdma_rx_stream_running = R"doc(Whether the stream is started.)doc";
static const char* __doc_gr_rdma_rx_stream_recv = R"doc(recv(max_items=2**20, timeout=0.1): landed items at the read position as a read-only numpy view into the ring (complex64 for fc32, int16 pairs for sc16, int8 pairs for sc8); empty on timeout.)doc";
static const char* __doc_gr_rdma_rx_stream_release = R"doc(release(items): give back the first items of the last recv().)doc";
static const char* __doc_gr_rdma_rx_stream_wait_items = R"doc(wait_items(next, released, timeout=0.1): items ready from `next` on (the consumer no longer needs items below `released`).)doc";
static const char* __doc_gr_rdma_rx_stream_commit = R"doc(commit(next, count): hand out items [next, next+count); queues the reports.)doc";
static const char* __doc_gr_rdma_rx_stream_poll_event = R"doc(The next report as a dict, or None.)doc";
static const char* __doc_gr_rdma_rx_stream_counts = R"doc(This run's accounting: delivered, lost_gap, lost_skipped, lost_overwritten, lost.)doc";
static const char* __doc_gr_rdma_rx_stream_burst_items = R"doc(Items in the finite burst (0: continuous).)doc";
static const char* __doc_gr_rdma_rx_stream_ring_base = R"doc(Address of the ring (first copy) as an integer.)doc";
static const char* __doc_gr_rdma_rx_stream_ring_bytes = R"doc(Bytes in one copy of the ring.)doc";
static const char* __doc_gr_rdma_rx_stream_ring_items = R"doc(Items in the ring.)doc";
static const char* __doc_gr_rdma_rx_stream_item_size = R"doc(Bytes per item: 4 (sc16), 8 (fc32) or 2 (sc8).)doc";
static const char* __doc_gr_rdma_rx_stream_format = R"doc(Sample format, "sc16", "fc32" or "sc8".)doc";
static const char* __doc_gr_rdma_rx_stream_sample_rate = R"doc(Samples per second.)doc";
static const char* __doc_gr_rdma_rx_stream_hugepages = R"doc(Whether the ring is backed by hugepages.)doc";
static const char* __doc_gr_rdma_rx_stream_memory_locked = R"doc(Whether the ring is locked in memory.)doc";
static const char* __doc_gr_rdma_rx_stream_numa_node = R"doc(NUMA node of the ring, -1 if not placed.)doc";
static const char* __doc_gr_rdma_rx_stream_ring_notes = R"doc(Fallbacks taken while allocating the ring, with their fixes.)doc";
static const char* __doc_gr_rdma_rx_stream_payload_bytes = R"doc(Sample bytes per RDMA WRITE message.)doc";
static const char* __doc_gr_rdma_rx_stream_path_mtu = R"doc(RoCE path MTU in bytes.)doc";

static const char* __doc_gr_rdma_rx_stream_share_index = R"doc(Several hosts (share=h/H): the share h this host takes; 0 when unsplit.)doc";

static const char* __doc_gr_rdma_rx_stream_share_count = R"doc(Several hosts: the number of shares H; 1 when unsplit.)doc";

static const char* __doc_gr_rdma_rx_stream_share_block_items = R"doc(Several hosts: samples per block B (local item j is stream sample (j // B) * B * H + h * B + j % B); 0 when unsplit.)doc";
static const char* __doc_gr_rdma_rx_stream_start_time_ns = R"doc(Device time (ns since the epoch) of item 0 of the current run.)doc";
static const char* __doc_gr_rdma_rx_stream_read_counters = R"doc(Device, NIC and host counters as a dict (queries the device).)doc";
static const char* __doc_gr_rdma_rx_stream_read_injected_faults = R"doc(Drain the emulator's log of injected faults: a list of dicts (message, first_sample, samples, kind).)doc";
static const char* __doc_gr_rdma_rx_stream_error = R"doc(Why the run ended early (device lost or failed, NIC error); empty if it did not.)doc";
static const char* __doc_gr_rdma_rx_stream_device_note = R"doc(Why the device's final counters are not known; empty when they are.)doc";
