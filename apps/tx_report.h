/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_TX_REPORT_H
#define INCLUDED_RDMA_APPS_TX_REPORT_H

#include "app_report.h"
#include "tx_options.h"
#include "tx_run.h"
#include <string>

/*
 * gr-rdma-tx's report: what the host provided and what became of it, to the sample,
 * from the device's final counters (docs/transmit.md, "Headless transmit").
 */

namespace gr {
namespace rdma {
namespace app {

//! Why the run failed (exit 1), empty if it did not.
std::string tx_failure(const tx_options& o, const tx_run_result& r);

//! The report; \p failure is tx_failure()'s verdict; \p with_counters adds every
//! counter of the device, the NIC and the host (for --json).
report_node tx_report(const tx_options& o,
                      const tx_run_result& r,
                      const std::string& failure,
                      bool with_counters);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
