/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rate_limit_arg.h"
#include <stdexcept>

namespace gr {
namespace rdma {

uint32_t rate_limit_kib(const device_args& args,
                        const device_info& info,
                        const std::string& device)
{
    const double limit = args.get_double("rate_limit",
                                         0,
                                         0,
                                         double(UINT32_MAX) * regs::ctrl::rate_unit,
                                         "bytes per second",
                                         "of sample bytes; 0: none");
    if (limit > 0 && !info.has(regs::cap::rate_control))
        throw std::invalid_argument("device args: rate_limit=, but the device at " +
                                    device +
                                    " has no RATE_CONTROL (map 1.5): drop rate_limit=");
    if (limit > 0 && limit < double(regs::ctrl::rate_unit))
        throw std::invalid_argument(
            "device args: rate_limit=" + args.get("rate_limit", "") +
            " is invalid: expected 0 (none) or at least 1024 "
            "bytes per second (the device counts in KiB/s)");
    return static_cast<uint32_t>(limit / regs::ctrl::rate_unit);
}

} // namespace rdma
} // namespace gr
