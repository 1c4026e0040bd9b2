/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/link_registers.h"
#include "link_args.h"
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

namespace {

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> out;
    for (size_t at = 0; at <= text.size();) {
        const size_t end = std::min(text.find(separator, at), text.size());
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

} // namespace

const std::set<std::string>& link_plan::keys()
{
    static const std::set<std::string> k = { "links", "weights" };
    return k;
}

link_plan link_plan::from_args(const device_args& args)
{
    link_plan p;
    p.links = static_cast<unsigned>(args.get_uint(
        "links", 1, 1, max_links, "device links", "destination d on link d, d < links"));
    const std::vector<uint64_t> w =
        args.get_uint_list("weights", 0, regs::dst::max_weight, "weights");
    if (!w.empty() && w.size() != p.links)
        throw std::invalid_argument("device args: weights=" + args.get("weights", "") +
                                    " gives " + std::to_string(w.size()) +
                                    " weights for links=" + std::to_string(p.links) +
                                    ": give one per link, e.g. links=2,weights=3:1");
    uint64_t sum = 0;
    for (uint64_t x : w) {
        p.weights.push_back(static_cast<uint16_t>(x));
        sum += x;
    }
    if (!w.empty() && (sum == 0 || sum > regs::link_schedule::max_period))
        throw std::invalid_argument("device args: weights=" + args.get("weights", "") +
                                    " add up to " + std::to_string(sum) +
                                    ": they must add up to 1.." +
                                    std::to_string(regs::link_schedule::max_period) +
                                    " (one period of the schedule)");
    if (args.has("nic_addr")) {
        const std::vector<std::string> parts = split(args.get("nic_addr", ""), '+');
        if (parts.size() > 1 && parts.size() != p.links)
            throw std::invalid_argument(
                "device args: nic_addr=" + args.get("nic_addr", "") + " names " +
                std::to_string(parts.size()) +
                " NICs for links=" + std::to_string(p.links) +
                ": give one address for all links, or one per link separated by '+'");
        if (parts.size() > 1)
            for (const std::string& a : parts)
                p.nic_addresses.push_back(device_args::parse("nic_addr=" + a)
                                              .get_address("nic_addr", "", 0)
                                              .ip());
    }
    return p;
}

} // namespace rdma
} // namespace gr
