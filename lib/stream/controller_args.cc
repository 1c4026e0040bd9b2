/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "controller_args.h"
#include <stdexcept>
#include <vector>

namespace gr {
namespace rdma {

const arg_table& controller_args::keys()
{
    // clang-format off
    static const arg_table t("controller", {
        arg_key::choice("ctrl_policy", rate_controller::policies(), "", "the device's controller policy (CTRL_POLICY); absent: the device's"),
        arg_key::number("ctrl_period", 1e-6, 1, "", "seconds", "the period of the device's control loop (CTRL_PERIOD_US)").hinted("the device's control loop period"),
        arg_key::number("rate_limit", 0, double(UINT32_MAX) * regs::ctrl::rate_unit, "0", "bytes per second", "sample bytes per second the device sends (RX) or READs (TX) of this stream at most; 0: no limit").depending("0, " + std::to_string(regs::ctrl::rate_unit) + "…" + std::to_string(uint64_t(UINT32_MAX) * regs::ctrl::rate_unit)).hinted("of sample bytes; 0: none"),
    });
    // clang-format on
    return t;
}

controller_args controller_args::from_args(const device_args& args)
{
    const arg_table& k = keys();
    controller_args c;
    if (args.has(k["ctrl_policy"]))
        c.policy = args.get_choice(k["ctrl_policy"]);
    if (args.has(k["ctrl_period"]))
        c.period_us = rate_controller::period_us(args.get_double(k["ctrl_period"]));
    c.rate_limit_given = args.has(k["rate_limit"]);
    const double limit = args.get_double(k["rate_limit"]);
    if (limit > 0 && limit < double(regs::ctrl::rate_unit))
        throw std::invalid_argument(
            "device args: rate_limit=" + args.get("rate_limit", "") +
            " is invalid: expected 0 (none) or at least 1024 "
            "bytes per second (the device counts in KiB/s)");
    c.rate_limit_kib = static_cast<uint32_t>(limit / regs::ctrl::rate_unit);
    return c;
}

void controller_args::check(const device_info& info, const std::string& device) const
{
    if (info.has(regs::cap::rate_control))
        return;
    if (rate_limit_kib > 0)
        throw std::invalid_argument("device args: rate_limit=, but the device at " +
                                    device +
                                    " has no RATE_CONTROL (map 1.5): drop rate_limit=");
    if (!policy.empty() || period_us)
        throw std::invalid_argument(
            "device args: " +
            std::string(!policy.empty() ? "ctrl_policy=" : "ctrl_period=") +
            ", but the device at " + device +
            " has no RATE_CONTROL (map 1.5), so no controller to set: drop it");
}

void controller_args::apply(rate_controller& controller) const
{
    if (!policy.empty())
        controller.set_policy(policy);
    if (period_us)
        controller.set_period_us(period_us);
}

} // namespace rdma
} // namespace gr
