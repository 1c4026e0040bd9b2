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

static const char* __doc_gr_rdma_process_cpu_by_role = R"doc(CPU seconds this process has spent so far, as {"host", "nic", "device"}: NIC and device threads are the ones gr-rdma starts; everything else is host. Subtract two readings to measure an interval.)doc";
