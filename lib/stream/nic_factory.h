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
 * Open the NIC the device args select: nic=soft (userspace RoCEv2 on a UDP socket at
 * nic_addr:nic_port) or nic=verbs (rdma-core: the RDMA device that holds nic_addr or
 * nic_if). Callers see only the nic::device interface.
 */
std::unique_ptr<nic::device> open_nic(const device_args& args, uint32_t default_ip);

} // namespace rdma
} // namespace gr

#endif
