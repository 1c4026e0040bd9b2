/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_RATE_LIMIT_ARG_H
#define INCLUDED_RDMA_STREAM_RATE_LIMIT_ARG_H

#include "../device/device_controller.h"
#include "../util/device_args.h"
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * rate_limit= (docs/device-args.md): the most sample bytes per second the device may
 * move for the stream, an RX stream's dequeue (RX_RATE_LIMIT) or a TX stream's READs
 * (TX_RATE_LIMIT), in the controller's KiB/s; 0 when absent. Refused, naming the fix,
 * below 1024 (the unit) or on a device without RATE_CONTROL at \p device (its address,
 * for the message).
 */
uint32_t rate_limit_kib(const device_args& args,
                        const device_info& info,
                        const std::string& device);

} // namespace rdma
} // namespace gr

#endif
