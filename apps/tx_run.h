/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_TX_RUN_H
#define INCLUDED_RDMA_APPS_TX_RUN_H

#include "tx_options.h"
#include <gnuradio/rdma/tx_stream.h>
#include <atomic>
#include <map>
#include <stdexcept>
#include <string>

/*
 * One transmission of gr-rdma-tx: prime the ring, start the device, produce the signal
 * into the ring in place until the run's length, its end of FILE, a stop request or a
 * failure; then let the device play what it was given, stop it and take its final
 * counters. The producer is the calling thread.
 */

namespace gr {
namespace rdma {
namespace app {

//! The stream could not be set up as asked (device args, an unreachable device).
struct tx_config_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct tx_cpu {
    double producer = 0;   // the calling thread: fills the ring, takes notifications
    double other_host = 0; // the stream's rdma-tx-watch thread, and the rest of the host
    double host = 0;       // producer + other_host
    double nic = 0;        // the soft NIC's threads (a NIC's hardware work)
    double device = 0;     // the emulator's threads (the SDR's FPGA work)
    double total = 0;      // the whole process
};

struct tx_run_result {
    tx_stream::accounting counts;
    std::map<std::string, uint64_t> counters; // tx_stream::read_counters(), final
    uint64_t samples_requested = 0;           // 0: until stopped
    double elapsed_s = 0;
    tx_cpu cpu;
    std::string interrupted; // the signal that stopped the run, empty if none did
    bool timed_out = false;
    std::string error; // why the run ended early, empty if it did not
    // The stream's reports, summed: equal to the device's counters once stopped.
    uint64_t underflow_reports = 0, underflow_reported = 0;
    uint64_t late_reports = 0, late_reported = 0;
    // Zero copy: every span written is the ring's free space at the write position.
    uint64_t spans_written = 0, spans_outside_ring = 0;
    bool file_ended = false;
    uint64_t file_rewinds = 0, file_tail_bytes_dropped = 0;
    // The stream's shape.
    size_t ring_bytes = 0, ring_items = 0, payload_bytes = 0;
    unsigned max_reads = 0;
    bool hugepages = false;
};

//! Run it; \p stop_signal becomes a signal's number to end early. Throws
//! tx_config_error when the stream cannot be set up; after that a failure is the
//! result's error.
tx_run_result run_tx(const tx_options& o, const std::atomic<int>& stop_signal);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
