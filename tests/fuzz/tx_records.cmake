# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# A TX stream's reports from the device's TX records (lib/stream/tx_record_reports.cc,
# tx_burst_log.cc, and tx_report_gate.cc, which holds each until the counters cover
# it) after the metadata codec: what the device's records (or a forger's)
# make the host report. Seeds: corpus/tx_records/, 32 bytes of final counters
# (big-endian: underflow u64, late u64, dropped u64, bursts done u32, time errors u32)
# then 40-byte records against the target's fixed run (t0 1700000000000000000 ns,
# 1 MS/s, bursts [0, 1000) [1000, 3000) [3000, 4000) [4000, ...), 5000 items given):
# plausible_run.bin (every record believed), forged_run.bin (none), lost_records.bin
# (counters far above the records), repeated_time_error.bin (one burst's tx_time_error
# six times: once counted six times, more dropped than published); written once with
# Python's struct module.
rdma_add_fuzzer(tx_records SOURCES
    fuzz_tx_records.cc
    ${PROJECT_SOURCE_DIR}/lib/meta/metadata_packet.cc
    ${PROJECT_SOURCE_DIR}/lib/stream/tx_record_reports.cc
    ${PROJECT_SOURCE_DIR}/lib/stream/tx_report_gate.cc
    ${PROJECT_SOURCE_DIR}/lib/stream/tx_burst_log.cc
)
