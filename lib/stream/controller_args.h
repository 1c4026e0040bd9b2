/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_CONTROLLER_ARGS_H
#define INCLUDED_RDMA_STREAM_CONTROLLER_ARGS_H

#include "../device/device_controller.h"
#include "../device/rate_controller.h"
#include "../util/device_args.h"
#include <cstdint>
#include <set>
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

/*!
 * ctrl_policy= and ctrl_period= (docs/device-args.md): the device's controller, which a
 * stream sets at each START once it owns the stream (the registers are the device's,
 * and while any host owns a stream only an owner may write them). Absent: untouched.
 */
struct controller_args {
    std::string policy; //!< CTRL_POLICY by name; "": untouched
    uint32_t period_us = 0; //!< CTRL_PERIOD_US; 0: untouched

    //! ctrl_policy=, ctrl_period= and rate_limit= (read by rate_limit_kib()).
    static const arg_table& keys();
    //! Refused, naming the fix, for an unknown policy, a period outside 1e-6 ... 1 s,
    //! or either on a device without RATE_CONTROL at \p device.
    static controller_args parse(const device_args& args,
                                 const device_info& info,
                                 const std::string& device);
    //! Write what was given.
    void apply(rate_controller& controller) const;
};

} // namespace rdma
} // namespace gr

#endif
