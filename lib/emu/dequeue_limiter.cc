/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "dequeue_limiter.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

int64_t dequeue_limiter::cost_ns(uint64_t bytes) const
{
    using u128 = unsigned __int128;
    return static_cast<int64_t>(u128(bytes) * 1000000000u / d_rate);
}

void dequeue_limiter::set_rate(uint64_t bytes_per_s, int64_t now_ns)
{
    if (bytes_per_s == d_rate)
        return;
    // What the stream still owes (bytes it took ahead of the old rate) is owed at the
    // new one: a stream held near 0 and then given a share must not wait out a debt
    // priced at the old rate. Credit is capped as ever.
    if (d_rate && bytes_per_s && d_free_ns > now_ns) {
        using u128 = unsigned __int128;
        const u128 owed = u128(d_free_ns - now_ns) * d_rate; // bytes x 1e9
        d_free_ns = now_ns + static_cast<int64_t>(owed / bytes_per_s);
    }
    d_rate = bytes_per_s;
    // No limit owes nothing: a limit set later starts from the time it was lifted.
    d_free_ns = bytes_per_s ? std::max(d_free_ns, now_ns - burst_ns) : now_ns;
}

uint64_t dequeue_limiter::allowed(int64_t now_ns, uint64_t bytes, uint64_t wanted) const
{
    if (d_rate == 0 || wanted == 0)
        return wanted;
    const int64_t from = std::max(d_free_ns, now_ns - burst_ns);
    if (from > now_ns)
        return 0;
    const int64_t cost = std::max<int64_t>(1, cost_ns(bytes));
    // The message that starts at `from` may leave, and each one after it whose start
    // is not later than now.
    return std::min<uint64_t>(wanted, uint64_t((now_ns - from) / cost) + 1);
}

void dequeue_limiter::take(int64_t now_ns, uint64_t bytes, uint64_t count)
{
    if (d_rate == 0 || count == 0)
        return;
    d_free_ns = std::max(d_free_ns, now_ns - burst_ns) + int64_t(count) * cost_ns(bytes);
}

} // namespace emu
} // namespace rdma
} // namespace gr
