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

static const char* __doc_gr_rdma_ramp_check = R"doc(Check an RDMA source's ramp against its own reports (tags rx_time/rx_gap, events port) and, optionally, that its input lies in a memory range (zero-copy proof).)doc";
static const char* __doc_gr_rdma_ramp_check_make = R"doc(ramp_check(format="fc32", range_base=0, range_bytes=0))doc";
static const char* __doc_gr_rdma_ramp_check_items_checked = R"doc(Items compared so far.)doc";
static const char* __doc_gr_rdma_ramp_check_mismatches = R"doc(Items that matched neither the ramp nor a reported gap's zeros.)doc";
static const char* __doc_gr_rdma_ramp_check_unexplained_mismatches = R"doc(Mismatches not covered by an overwritten report (should be 0).)doc";
static const char* __doc_gr_rdma_ramp_check_gap_items = R"doc(Items inside reported gaps.)doc";
static const char* __doc_gr_rdma_ramp_check_overwritten_items = R"doc(Items the source reported overwritten.)doc";
static const char* __doc_gr_rdma_ramp_check_time_tags = R"doc(rx_time tags seen.)doc";
static const char* __doc_gr_rdma_ramp_check_time_errors = R"doc(rx_time tags naming a different sample than the data carries.)doc";
static const char* __doc_gr_rdma_ramp_check_first_mismatch = R"doc(Index of the first mismatch, 2**64-1 if none.)doc";
static const char* __doc_gr_rdma_ramp_check_work_calls = R"doc(Calls of work().)doc";
static const char* __doc_gr_rdma_ramp_check_out_of_range_calls = R"doc(Calls of work() whose input was not inside the range.)doc";
static const char* __doc_gr_rdma_ramp_check_unexplained_ranges = R"doc(The first unexplained mismatches as [first item, count] runs.)doc";
