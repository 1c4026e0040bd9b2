/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "share_args.h"
#include <stdexcept>

namespace gr {
namespace rdma {

std::string share_plan::name() const
{
    return "share " + std::to_string(share) + " of " + std::to_string(shares);
}

const arg_table& share_plan::keys()
{
    // clang-format off
    static const arg_table t("shares", {
        arg_key::text("share", "take share h of a stream split over H hosts: h/H").depending("h/H"),
        arg_key::integer("share_block", 1, 65536, "16", "messages per block", "messages per block, the unit in which the shares take turns"),
        arg_key::number("share_wait", 0.1, 3600, "10", "seconds", "how long a host waits for the other shares' hosts"),
    });
    // clang-format on
    return t;
}

share_plan share_plan::from_args(const device_args& args)
{
    share_plan p;
    if (!args.has("share")) {
        for (const char* key : { "share_block", "share_wait" })
            if (args.has(key))
                throw std::invalid_argument(std::string("device args: ") + key +
                                            "= goes with share=h/H: add share= or drop " +
                                            key + "=");
        return p;
    }
    const std::string text = args.get("share", "");
    const size_t slash = text.find('/');
    bool ok = slash != std::string::npos && slash > 0 && slash + 1 < text.size() &&
              text.find_first_not_of("0123456789/") == std::string::npos &&
              text.find('/', slash + 1) == std::string::npos && text.size() <= 8;
    if (ok) {
        p.share = static_cast<unsigned>(std::stoul(text.substr(0, slash)));
        p.shares = static_cast<unsigned>(std::stoul(text.substr(slash + 1)));
        ok = p.shares >= 1 && p.shares <= max_shares && p.share < p.shares;
    }
    if (!ok)
        throw std::invalid_argument(
            "device args: share=" + text +
            " is invalid: expected h/H, this host's share h of H hosts, 0 <= h < H <= " +
            std::to_string(max_shares) + " (e.g. share=0/2 and share=1/2)");
    p.block = static_cast<uint32_t>(args.get_uint(keys()["share_block"]));
    p.wait_s = args.get_double(keys()["share_wait"]);
    return p;
}

} // namespace rdma
} // namespace gr
