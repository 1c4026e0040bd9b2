/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_COMPLETION_QUEUE_H
#define INCLUDED_RDMA_NIC_SOFT_COMPLETION_QUEUE_H

#include "../util/event_notifier.h"
#include "nic.h"
#include <gnuradio/rdma/transport_api.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

/*!
 * The completion ring of a soft CQ: single producer and single consumer, lock-free.
 * The producer is whoever holds the device's table lock (the receive path, or a host
 * thread flushing a QP in ERROR), so producers never overlap; the consumer is the
 * host thread that polls.
 *
 * Wake-ups follow ibv_req_notify_cq: the consumer arms, and the next push after the
 * arm signals once. Arming and the producer's publish are sequentially consistent,
 * so either the consumer's re-check sees the new entry or the producer sees the arm:
 * a wake-up cannot be lost. Signals that race with a consumer that found work anyway
 * leave a stale count in the eventfd; wait() treats a wake-up with an empty ring as
 * spurious and sleeps again.
 */
class RDMA_TRANSPORT_API completion_ring
{
public:
    //! \p entries is rounded up to a power of two; \p owner identifies the device.
    completion_ring(int entries, const void* owner);
    completion_ring(const completion_ring&) = delete;
    completion_ring& operator=(const completion_ring&) = delete;

    //! Producer: append one completion; false if the ring is full (it is dropped).
    bool push(const work_completion& wc);

    //! Consumer: take up to \p max completions, oldest first.
    int pop(work_completion* out, int max);
    //! Consumer: see completion_queue::wait(); also true at once if the ring is not
    //! empty.
    bool wait(std::chrono::microseconds timeout);
    //! Any thread: make the current or next wait() return false.
    void interrupt();

    int capacity() const { return static_cast<int>(d_mask + 1); }
    const void* owner() const { return d_owner; }

private:
    bool empty_after_arm() const;

    const uint64_t d_mask;
    const void* const d_owner;
    std::vector<work_completion> d_slots;
    event_notifier d_event;
    // Producer and consumer indices on their own cache lines: each side writes one.
    alignas(64) std::atomic<uint64_t> d_tail{ 0 };
    alignas(64) std::atomic<uint64_t> d_head{ 0 };
    alignas(64) std::atomic<bool> d_armed{ false };
    std::atomic<bool> d_interrupted{ false };
};

//! The completion_queue handle; the ring is shared with the QPs that complete into it.
class soft_completion_queue : public completion_queue
{
public:
    explicit soft_completion_queue(std::shared_ptr<completion_ring> ring)
        : d_ring(std::move(ring))
    {
    }

    int poll(work_completion* out, int max) override { return d_ring->pop(out, max); }
    bool wait(std::chrono::microseconds timeout) override
    {
        return d_ring->wait(timeout);
    }
    void interrupt() override { d_ring->interrupt(); }
    int capacity() const override { return d_ring->capacity(); }

    const std::shared_ptr<completion_ring>& ring() const { return d_ring; }

private:
    std::shared_ptr<completion_ring> d_ring;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
