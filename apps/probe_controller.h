/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_PROBE_CONTROLLER_H
#define INCLUDED_RDMA_APPS_PROBE_CONTROLLER_H

#include "app_report.h"
#include "axioe/axioe_client.h"
#include "device_identity.h"

namespace gr {
namespace rdma {
namespace app {

/*!
 * gr-rdma-probe's Controller section (docs/register-map.md, "Controller"), when the
 * device has CAP_RATE_CONTROL: the policy, the period, the loop's counters (events,
 * coalesced, runs) and per RX stream its host's rate limit, the rate the device holds
 * it to and its destinations' weights in force. Plain READs only.
 */
void add_controller(report_node& device, axioe::client& c, const device_identity& id);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
