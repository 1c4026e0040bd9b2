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

static const char* __doc_gr_rdma_sigmf_sink = R"doc(Record a stream as SigMF 1.2 (PATH.sigmf-data + PATH.sigmf-meta), every gap and overrun reported on the events port annotated; rx_time, rx_rate and rx_freq tags make the captures. docs/recording.md.)doc";
static const char* __doc_gr_rdma_sigmf_sink_make = R"doc(sigmf_sink(path, format="fc32", sample_rate=1e6, hw="", recorder="gr-rdma", description="", rotate_size=0, rotate_seconds=0.0, max_annotations=100000))doc";
static const char* __doc_gr_rdma_sigmf_sink_finish = R"doc(Write the meta of the file being written from what it holds now (the flowgraph's stop does it; callable again).)doc";
static const char* __doc_gr_rdma_sigmf_sink_error = R"doc(Why the recording ended early (disk full, a meta file that could not be written); None when it did not.)doc";
static const char* __doc_gr_rdma_sigmf_sink_recordings = R"doc(The paths (without extension) of the files written so far, in order.)doc";
static const char* __doc_gr_rdma_sigmf_sink_datatype = R"doc(core:datatype of the recording: ci16_le, cf32_le or ci8.)doc";
