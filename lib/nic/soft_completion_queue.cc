/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "soft_completion_queue.h"
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr int max_entries = 1 << 22;

uint64_t round_up_pow2(int entries)
{
    if (entries <= 0 || entries > max_entries)
        throw std::invalid_argument("completion queue entries must be 1.." +
                                    std::to_string(max_entries) + ", not " +
                                    std::to_string(entries));
    uint64_t n = 1;
    while (n < static_cast<uint64_t>(entries))
        n <<= 1;
    return n;
}
} // namespace

completion_ring::completion_ring(int entries, const void* owner)
    : d_mask(round_up_pow2(entries) - 1), d_owner(owner), d_slots(d_mask + 1)
{
}

bool completion_ring::push(const work_completion& wc)
{
    const uint64_t tail = d_tail.load(std::memory_order_relaxed);
    if (tail - d_head.load(std::memory_order_acquire) > d_mask)
        return false;
    d_slots[tail & d_mask] = wc;
    // seq_cst store then seq_cst load of the arm: pairs with wait()'s arm-then-check.
    d_tail.store(tail + 1, std::memory_order_seq_cst);
    if (d_armed.load(std::memory_order_seq_cst) &&
        d_armed.exchange(false, std::memory_order_seq_cst))
        d_event.notify();
    return true;
}

int completion_ring::pop(work_completion* out, int max)
{
    if (max <= 0)
        return 0;
    const uint64_t head = d_head.load(std::memory_order_relaxed);
    const uint64_t available = d_tail.load(std::memory_order_acquire) - head;
    const uint64_t n = std::min<uint64_t>(available, static_cast<uint64_t>(max));
    for (uint64_t i = 0; i < n; i++)
        out[i] = d_slots[(head + i) & d_mask];
    d_head.store(head + n, std::memory_order_release);
    return static_cast<int>(n);
}

bool completion_ring::empty_after_arm() const
{
    return d_tail.load(std::memory_order_seq_cst) ==
           d_head.load(std::memory_order_relaxed);
}

bool completion_ring::wait(std::chrono::microseconds timeout)
{
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + timeout;
    for (;;) {
        if (d_interrupted.exchange(false, std::memory_order_acq_rel))
            return false;
        d_armed.store(true, std::memory_order_seq_cst);
        if (!empty_after_arm()) {
            d_armed.store(false, std::memory_order_relaxed);
            return true;
        }
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - clock::now());
        if (left.count() <= 0) {
            d_armed.store(false, std::memory_order_relaxed);
            return false;
        }
        // A wake-up is a hint: the loop re-checks interrupt and ring either way.
        d_event.wait(left);
    }
}

void completion_ring::interrupt()
{
    d_interrupted.store(true, std::memory_order_release);
    d_event.notify();
}

} // namespace nic
} // namespace rdma
} // namespace gr
