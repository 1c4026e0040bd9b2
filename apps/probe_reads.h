/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_PROBE_READS_H
#define INCLUDED_RDMA_APPS_PROBE_READS_H

#include "app_report.h"
#include "axioe/axioe_client.h"
#include <string>

/*
 * The reads gr-rdma-probe's sections share: a read the device may refuse, and how a
 * refusal shows in a section.
 */

namespace gr {
namespace rdma {
namespace app {

//! A read the device may refuse: the status, or okay with \p out filled. Timeouts (the
//! device stopped answering) propagate.
axioe::status try_read(axioe::client& c, uint32_t address, uint32_t* out, size_t count);

//! "NOT_OWNER (...)": the status by name and what it means.
std::string refusal(axioe::status s);

//! Why a section is missing, in its heading and for machines.
void refused(report_node& section, axioe::status s);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
