/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "handout_pacing.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace rdma {

handout_pacing::handout_pacing(double byte_rate, double latency_budget_s)
    : d_byte_rate(byte_rate), d_period(std::min(longest_period_s, latency_budget_s / 20))
{
}

uint32_t handout_pacing::payload_bytes(unsigned path_mtu, size_t item) const
{
    const double wanted = d_byte_rate * d_period / messages_per_period;
    uint32_t payload = static_cast<uint32_t>(std::max<size_t>(path_mtu, item));
    const uint64_t most =
        std::min<uint64_t>(largest_payload, uint64_t(path_mtu) * most_packets);
    while (payload < most && payload < wanted)
        payload *= 2;
    return payload;
}

uint32_t handout_pacing::notify_interval(uint32_t payload) const
{
    const double messages = std::floor(d_byte_rate * d_period / payload);
    return static_cast<uint32_t>(std::clamp(messages, 1.0, double(largest_notify)));
}

} // namespace rdma
} // namespace gr
