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
 * ctrl_policy= and ctrl_period= (docs/device-args.md): the device's controller, which a
 * stream sets at each START once it owns the stream (the registers are the device's,
 * and while any host owns a stream only an owner may write them). Absent: untouched.
 * And rate_limit=: the most sample bytes per second the device may move for the
 * stream, an RX stream's dequeue (RX_RATE_LIMIT) or a TX stream's READs
 * (TX_RATE_LIMIT), in the controller's KiB/s.
 */
struct controller_args {
    std::string policy; //!< CTRL_POLICY by name; "": untouched
    uint32_t period_us = 0; //!< CTRL_PERIOD_US; 0: untouched
    uint32_t rate_limit_kib = 0; //!< rate_limit= in KiB/s; 0: none
    bool rate_limit_given = false;

    //! ctrl_policy=, ctrl_period= and rate_limit=.
    static const arg_table& keys();
    //! Refused, naming the fix, for an unknown policy, a period outside 1e-6 ... 1 s,
    //! or a rate limit below 1024 bytes/s (the unit).
    static controller_args from_args(const device_args& args);
    //! Refused, naming the fix, when the device at \p device has no RATE_CONTROL for
    //! what was given.
    void check(const device_info& info, const std::string& device) const;
    //! Write what was given.
    void apply(rate_controller& controller) const;
};

} // namespace rdma
} // namespace gr

#endif
