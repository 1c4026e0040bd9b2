/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_PROBE_READ_H
#define INCLUDED_RDMA_APPS_PROBE_READ_H

#include "app_report.h"
#include "axioe/axioe_client.h"
#include <string>

/*
 * gr-rdma-probe's reads, shared by the files of its sections (device_probe.cc,
 * probe_controller.cc): a read the device may refuse, and how a refused section says so.
 */

namespace gr {
namespace rdma {
namespace app {

//! The status of a READ of \p count words at \p address into \p out (okay: filled).
//! Timeouts (the device stopped answering) propagate.
axioe::status try_read(axioe::client& c, uint32_t address, uint32_t* out, size_t count);
//! A status by name, with what it means.
std::string refusal(axioe::status s);
//! Why \p section is missing, in its heading and for machines.
void refused(report_node& section, axioe::status s);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
