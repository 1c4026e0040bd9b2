/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "address_registry.h"
#include "frame_queue.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {
namespace wire {

namespace {

static_assert((frame_queue::slots & (frame_queue::slots - 1)) == 0,
              "the slot count must be a power of two");
constexpr uint64_t mask = frame_queue::slots - 1;

// The in-process "network": soft NICs by RoCE address.
using queue_registry = address_registry<frame_queue>;

} // namespace

frame_queue::frame_queue(event_notifier& wake, size_t slot_bytes)
    : d_wake(wake), d_slot_bytes(slot_bytes), d_slots(slots)
{
}

void frame_queue::publish(const socket_address& address,
                               const std::shared_ptr<frame_queue>& queue)
{
    queue_registry::publish(address, queue);
}

void frame_queue::withdraw(const socket_address& address,
                                const frame_queue* queue)
{
    queue_registry::withdraw(address, queue);
}

std::shared_ptr<frame_queue> frame_queue::find(const socket_address& address)
{
    const std::shared_ptr<frame_queue> queue = queue_registry::find(address);
    if (!queue)
        return nullptr;
    std::lock_guard<std::mutex> lock(queue->d_producer);
    if (queue->d_memory.empty() && !queue->d_closed) {
        // Allocated once and never moved: the consumer reads slots without the lock.
        queue->d_memory.assign(slots * queue->d_slot_bytes, 0);
        for (size_t i = 0; i < slots; i++)
            queue->d_slots[i].memory = queue->d_memory.data() + i * queue->d_slot_bytes;
    }
    return queue;
}

size_t frame_queue::push(const inproc_frame* frames, size_t count)
{
    std::lock_guard<std::mutex> lock(d_producer);
    if (d_closed || d_memory.empty())
        return count;
    const uint64_t tail = d_tail.load(std::memory_order_relaxed);
    const uint64_t used = tail - d_head.load(std::memory_order_acquire);
    const size_t n = std::min<size_t>(count, slots - used);
    for (size_t i = 0; i < n; i++) {
        slot& s = d_slots[(tail + i) & mask];
        const size_t len = frames[i].length <= d_slot_bytes ? frames[i].length : 0;
        std::memcpy(s.memory, frames[i].data, len);
        s.frame = frames[i];
        s.frame.data = s.memory;
        s.frame.length = len;
    }
    if (n == 0)
        return 0;
    // seq_cst publish, then seq_cst look at the sleep announcement: pairs with
    // prepare_sleep()'s announce-then-check, so a wake-up cannot be lost.
    d_tail.store(tail + n, std::memory_order_seq_cst);
    if (d_sleeping.load(std::memory_order_seq_cst) &&
        d_sleeping.exchange(false, std::memory_order_seq_cst))
        d_wake.notify();
    return n;
}

size_t frame_queue::available(size_t max) const
{
    const uint64_t head = d_head.load(std::memory_order_relaxed);
    return std::min<size_t>(max, d_tail.load(std::memory_order_acquire) - head);
}

const inproc_frame& frame_queue::at(size_t i) const
{
    return d_slots[(d_head.load(std::memory_order_relaxed) + i) & mask].frame;
}

void frame_queue::release(size_t n)
{
    d_head.store(d_head.load(std::memory_order_relaxed) + n, std::memory_order_release);
}

bool frame_queue::prepare_sleep()
{
    d_sleeping.store(true, std::memory_order_seq_cst);
    if (d_tail.load(std::memory_order_seq_cst) !=
        d_head.load(std::memory_order_relaxed)) {
        d_sleeping.store(false, std::memory_order_relaxed);
        return false;
    }
    return true;
}

void frame_queue::close()
{
    std::lock_guard<std::mutex> lock(d_producer);
    d_closed = true;
}

} // namespace wire
} // namespace rdma
} // namespace gr
