/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_NIC_FACTORY_H
#define INCLUDED_RDMA_STREAM_NIC_FACTORY_H

#include "../nic/nic.h"
#include "device_args.h"
#include <memory>

namespace gr {
namespace rdma {

/*!
 * Open the NIC the device args select (docs/device-args.md): nic=soft (userspace
 * RoCEv2 on a UDP socket at nic_addr:nic_port) or nic=verbs (rdma-core: the RDMA device
 * with a RoCE v2 GID for nic_addr, or bound to interface nic_if). \p default_ip (host
 * order) stands in for a missing nic_addr: the local address that routes to the device.
 * nic=null (the default with type=null, and only there) is the benchmarks' NIC stand-in
 * (nic/null_nic.h). Callers see only the nic::device interface.
 *
 * Throws std::invalid_argument for args that contradict each other, and
 * std::runtime_error (explaining the fix and naming gr-rdma-doctor) when nic=verbs finds
 * no usable RDMA device.
 */
std::unique_ptr<nic::device> open_nic(const device_args& args, uint32_t default_ip);

} // namespace rdma
} // namespace gr

#endif
