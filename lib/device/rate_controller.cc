/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rate_controller.h"
#include "../regs/register_map.h"
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {
// In register order: policies()[v] is CTRL_POLICY value v.
const char* const policy_names[] = { "none", "water_filling", "shortest_rtt" };
static_assert(regs::ctrl_policy::none == 0 && regs::ctrl_policy::water_filling == 1 &&
                  regs::ctrl_policy::shortest_rtt == 2,
              "policy_names follows CTRL_POLICY's values");

std::string joined_policies()
{
    std::string out;
    for (const char* n : policy_names)
        out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}
} // namespace

rate_controller::rate_controller(device_controller& device, const device_info& info)
    : d_device(device), d_info(info)
{
}

std::vector<std::string> rate_controller::policies()
{
    return { std::begin(policy_names), std::end(policy_names) };
}

uint32_t rate_controller::policy_value(const std::string& name)
{
    for (uint32_t v = 0; v < std::size(policy_names); v++)
        if (name == policy_names[v])
            return v;
    throw std::invalid_argument("unknown controller policy \"" + name +
                                "\": expected one of " + joined_policies());
}

std::string rate_controller::policy_name(uint32_t value)
{
    return value < std::size(policy_names) ? policy_names[value] : "unknown";
}

uint32_t rate_controller::period_us(double seconds)
{
    const double us = std::round(seconds * 1e6);
    if (!(us >= 1 && us <= regs::ctrl::max_period_us))
        throw std::invalid_argument(
            "controller period " + std::to_string(seconds) +
            " s is invalid: expected 1e-06 ... 1 seconds (CTRL_PERIOD_US counts whole "
            "microseconds)");
    return static_cast<uint32_t>(us);
}

void rate_controller::require() const
{
    if (!d_info.has(regs::cap::rate_control))
        throw std::runtime_error("the device at " + d_device.address().to_string() +
                                 " has no RATE_CONTROL (map 1.5): it has no controller "
                                 "policy or period to set");
}

void rate_controller::write(uint32_t offset, uint32_t value, const std::string& what)
{
    require();
    try {
        d_device.client().write32(regs::ctrl_base + offset, value);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw std::runtime_error(
                "the device at " + d_device.address().to_string() + " refused " + what +
                ": another host owns a stream of it, and only a host that owns one may "
                "change the device's controller (start a stream of it here first, or "
                "set it from that host)");
        throw std::runtime_error("the device at " + d_device.address().to_string() +
                                 " refused " + what + ": " + e.what());
    }
}

void rate_controller::set_policy(const std::string& name)
{
    const uint32_t value = policy_value(name);
    write(regs::ctrl::policy, value, "CTRL_POLICY = " + std::to_string(value) + " (" + name + ")");
}

std::string rate_controller::policy()
{
    require();
    return policy_name(d_device.client().read32(regs::ctrl_base + regs::ctrl::policy));
}

void rate_controller::set_period_us(uint32_t us)
{
    write(regs::ctrl::period_us, us, "CTRL_PERIOD_US = " + std::to_string(us));
}

double rate_controller::period()
{
    require();
    return d_device.client().read32(regs::ctrl_base + regs::ctrl::period_us) * 1e-6;
}

} // namespace rdma
} // namespace gr
