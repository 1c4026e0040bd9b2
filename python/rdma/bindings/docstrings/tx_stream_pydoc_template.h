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

static const char* __doc_gr_rdma_tx_stream = R"doc(A zero-copy TX stream to an RDMA SDR, usable without GNU Radio: the device fetches the samples from the ring by RDMA READ (docs/transmit.md).

    t = rdma.tx_stream("type=emu", "fc32", 1e6)
    t.start()
    x = t.wait_space(1000)  # writable numpy view of free ring space: no copy
    x[:1000] = samples      # write in place
    t.commit(1000)          # the device may fetch them now
    t.stop())doc";
static const char* __doc_gr_rdma_tx_stream_tx_stream = R"doc(tx_stream(args="type=emu", format="fc32", sample_rate=1e6, num_samples=0): num_samples 0 streams continuously, tx_stream.queued plays timed bursts (begin_burst(), end_burst(); a device with TX bursts), tx_stream.queued_if_able queued when the device can, else a burst of that many.)doc";
static const char* __doc_gr_rdma_tx_stream_start = R"doc(Arm the device and start: sample 0 plays a lead time after START.)doc";
static const char* __doc_gr_rdma_tx_stream_start_at = R"doc(start_at(device_time_ns): as start(), with sample 0 played at that device time; a time already past is refused (time_error).)doc";
static const char* __doc_gr_rdma_tx_stream_device_time_now = R"doc(The device's time now, ns since the epoch (an AXIoE read).)doc";
static const char* __doc_gr_rdma_tx_stream_stop = R"doc(Stop the device; its counters are final afterwards.)doc";
static const char* __doc_gr_rdma_tx_stream_running = R"doc(Whether the stream is started.)doc";
static const char* __doc_gr_rdma_tx_stream_wait_space = R"doc(wait_space(min_items=1, timeout=0.1): all free items at the write position as a writable numpy view into the ring (complex64 for fc32, int16 pairs for sc16); empty on timeout.)doc";
static const char* __doc_gr_rdma_tx_stream_commit = R"doc(commit(items): the first items of the space are written; the device may fetch them.)doc";
static const char* __doc_gr_rdma_tx_stream_send_copy = R"doc(send_copy(data, timeout=1.0) -> int: COPIES the items of a buffer (numpy array) into the ring and commits them; returns how many. The zero-copy way is wait_space() and commit().)doc";
static const char* __doc_gr_rdma_tx_stream_wait_fetched = R"doc(wait_fetched(timeout=1.0) -> bool: whether the device has fetched everything committed.)doc";
static const char* __doc_gr_rdma_tx_stream_wait_played = R"doc(wait_played(timeout=1.0) -> bool: whether the device has played (or given up as late) every whole message committed, and queued, every burst up to the last one ended (dropped ones count as done); reads its counters (the end of a transmission, before stop()).)doc";
static const char* __doc_gr_rdma_tx_stream_begin_burst = R"doc(begin_burst(time_ns=0): queued mode: a burst begins at the commit position, playing at that device time (0: as soon as possible); an open burst with items ends there first. A time the device finds passed drops the burst (a time_error report, its items counted dropped).)doc";
static const char* __doc_gr_rdma_tx_stream_end_burst = R"doc(end_burst(): queued mode: the open burst ends at the commit position; the device plays all of it, then idles. A begun burst without items is dropped.)doc";
static const char* __doc_gr_rdma_tx_stream_in_burst = R"doc(Queued mode: whether a burst is begun or open.)doc";
static const char* __doc_gr_rdma_tx_stream_is_queued = R"doc(Whether the stream plays timed bursts.)doc";
static const char* __doc_gr_rdma_tx_stream_committed = R"doc(Items committed since start().)doc";
static const char* __doc_gr_rdma_tx_stream_fetched = R"doc(Items the device has fetched (its notifications).)doc";
static const char* __doc_gr_rdma_tx_stream_counts = R"doc(The run's accounting as a dict: host_committed, played, underflow, late, dropped, not_played, idle, bursts_done, time_errors, fetched, reads, rereads, lead_ns, rtt_ns, final, identity_holds (host_committed = played + late + dropped + not_played). Reads the device.)doc";
static const char* __doc_gr_rdma_tx_stream_poll_event = R"doc(The next report as a dict (type: underflow, late, time_error, burst_ack, seq_error, lead, stream_failed, nic_error, stream_stopped, device_lost; count; time_ns; value; item; bursts; unattributed), or None.)doc";
static const char* __doc_gr_rdma_tx_stream_error = R"doc(Why the run ended early; empty if it did not.)doc";
static const char* __doc_gr_rdma_tx_stream_read_counters = R"doc(Device, NIC and host counters as a dict (queries the device).)doc";
static const char* __doc_gr_rdma_tx_stream_ring_base = R"doc(Address of the ring (first copy) as an integer.)doc";
static const char* __doc_gr_rdma_tx_stream_ring_bytes = R"doc(Bytes in one copy of the ring.)doc";
static const char* __doc_gr_rdma_tx_stream_ring_items = R"doc(Items in the ring.)doc";
static const char* __doc_gr_rdma_tx_stream_item_size = R"doc(Bytes per item: 4 (sc16) or 8 (fc32).)doc";
static const char* __doc_gr_rdma_tx_stream_format = R"doc(Sample format: "sc16", "fc32" or "sc8".)doc";
static const char* __doc_gr_rdma_tx_stream_sample_rate = R"doc(Samples per second.)doc";
static const char* __doc_gr_rdma_tx_stream_hugepages = R"doc(Whether the ring is backed by hugepages.)doc";
static const char* __doc_gr_rdma_tx_stream_payload_bytes = R"doc(Bytes per RDMA READ message.)doc";
static const char* __doc_gr_rdma_tx_stream_path_mtu = R"doc(RoCE path MTU in bytes.)doc";
static const char* __doc_gr_rdma_tx_stream_max_reads = R"doc(READs the device may have outstanding (TX_MAX_RD_ATOMIC: the host QP's max_dest_rd_atomic).)doc";
static const char* __doc_gr_rdma_tx_stream_start_time_ns = R"doc(Device time (ns) of sample 0 as the device latched it (0: START + lead).)doc";
