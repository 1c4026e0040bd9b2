/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_RATE_CONTROLLER_H
#define INCLUDED_RDMA_DEVICE_RATE_CONTROLLER_H

#include "device_controller.h"
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * The device's software control of its data path as the host sets it (docs/links.md,
 * "Software control of the data path"; register-map.md, the controller 0xA000): the
 * policy its loop follows (CTRL_POLICY) and how often the loop runs (CTRL_PERIOD_US).
 * Both are the device's, shared by every stream: while any host owns a stream, only an
 * owner may change them, so a refusal names that fix.
 *
 * Policies by name: "none" (weights and rates as written), "water_filling" (max-min fair
 * shares of oversubscribed links), "shortest_rtt" (weights by 1/RTT).
 */
class rate_controller
{
public:
    rate_controller(device_controller& device, const device_info& info);
    rate_controller(const rate_controller&) = delete;
    rate_controller& operator=(const rate_controller&) = delete;

    //! The names set_policy() takes, in register order.
    static std::vector<std::string> policies();
    //! CTRL_POLICY's value for \p name; std::invalid_argument listing the names else.
    static uint32_t policy_value(const std::string& name);
    //! The name of CTRL_POLICY value \p value ("unknown" for one gr-rdma does not know).
    static std::string policy_name(uint32_t value);
    //! CTRL_PERIOD_US for \p seconds (rounded to the microsecond); std::invalid_argument
    //! naming the range when it is outside 1 us .. 1 s.
    static uint32_t period_us(double seconds);

    void set_policy(const std::string& name);
    std::string policy();
    void set_period(double seconds) { set_period_us(period_us(seconds)); }
    //! \p us as period_us() made it.
    void set_period_us(uint32_t us);
    double period();

private:
    void require() const;
    void write(uint32_t offset, uint32_t value, const std::string& what);

    device_controller& d_device;
    const device_info d_info;
};

} // namespace rdma
} // namespace gr

#endif
