/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_DEVICE_PROBE_H
#define INCLUDED_RDMA_APPS_DEVICE_PROBE_H

#include "app_report.h"
#include "util/socket_address.h"
#include <stdexcept>

/*
 * gr-rdma-probe's reading of a device: everything it says about itself, as uhd_usrp_probe
 * shows a USRP. Read-only: only AXIoE READs of registers whose reading has no effect
 * (never a FIFO, never a claim), so that probing a device another host streams from
 * changes nothing for that host.
 */

namespace gr {
namespace rdma {
namespace app {

//! The device did not answer as a gr-rdma device: nothing to show.
class probe_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/*!
 * Read the device at \p device: identity and capabilities, clock, links, RX streams
 * (status, owner, descriptor where readable, counters), the metadata channel and the RF
 * front end. A block the device refuses (DECERR, NOT_OWNER, ...) is reported in its
 * section; a device that stops answering, or does not answer as a gr-rdma device,
 * throws probe_error naming the address.
 */
report_node probe_device(const socket_address& device);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
