/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_COMPLETION_QUEUE_H
#define INCLUDED_RDMA_NIC_VERBS_COMPLETION_QUEUE_H

#include "../util/event_notifier.h"
#include "verbs_device.h"
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

/*!
 * A verbs CQ with its completion channel, shared by the completion_queue handle and
 * the QPs that complete into it (a QP keeps its CQ alive: ibv_destroy_cq fails while a
 * QP uses it).
 *
 * poll() and wait() belong to one consumer thread; interrupt() may come from any.
 * wait() arms the CQ (ibv_req_notify_cq) and then polls once more, because a
 * completion that arrived before the arm raises no event; what that poll finds is kept
 * in a small stash that the next poll() hands out first. So, as with the soft NIC,
 * wait() returns true only when a completion is there to poll.
 */
class verbs_cq_core
{
public:
    verbs_cq_core(std::shared_ptr<verbs_context> ctx, int entries);
    //! Acknowledges the events it took: ibv_destroy_cq waits for that forever.
    ~verbs_cq_core();
    verbs_cq_core(const verbs_cq_core&) = delete;
    verbs_cq_core& operator=(const verbs_cq_core&) = delete;

    int poll(work_completion* out, int max);
    bool wait(std::chrono::microseconds timeout);
    void interrupt() { d_wake.notify(); }
    int capacity() const { return d_cq->cqe; }

    ibv_cq* native() const { return d_cq.get(); }
    const std::shared_ptr<verbs_context>& context() const { return d_ctx; }

    //! A QP's count of posted receives: poll() decrements it for each of its receive
    //! completions (a QP registers it while it lives).
    void track_receives(uint32_t qpn, std::shared_ptr<std::atomic<int>> posted);
    void untrack_receives(uint32_t qpn);

private:
    static constexpr int stash_size = 32;
    static constexpr unsigned ack_batch = 64; // ibv_ack_cq_events takes a mutex

    void translate(const ibv_wc* wc, int n, work_completion* out);
    void report_error(const ibv_wc& wc);
    void take_events();
    int fill_stash();

    // Creation order; destroyed in reverse (CQ before its channel, both before the
    // context is released).
    const std::shared_ptr<verbs_context> d_ctx;
    ibv_comp_channel_t d_channel;
    ibv_cq_t d_cq;
    event_notifier d_wake;
    unsigned d_unacked = 0;
    std::array<ibv_wc, stash_size> d_stash{};
    int d_stash_pos = 0;
    int d_stash_len = 0;
    // Rate limit of the error log (consumer thread only).
    std::chrono::steady_clock::time_point d_next_error_log{};
    uint64_t d_errors_unlogged = 0;
    std::mutex d_receivers_mutex;
    std::vector<std::pair<uint32_t, std::shared_ptr<std::atomic<int>>>> d_receivers;
};

class verbs_completion_queue : public completion_queue
{
public:
    verbs_completion_queue(std::shared_ptr<verbs_context> ctx, int entries)
        : d_core(std::make_shared<verbs_cq_core>(std::move(ctx), entries))
    {
    }

    int poll(work_completion* out, int max) override { return d_core->poll(out, max); }
    bool wait(std::chrono::microseconds timeout) override
    {
        return d_core->wait(timeout);
    }
    void interrupt() override { d_core->interrupt(); }
    //! What the provider made of the requested size (at least that many).
    int capacity() const override { return d_core->capacity(); }

    ibv_cq* native() const { return d_core->native(); }
    const std::shared_ptr<verbs_cq_core>& core() const { return d_core; }

private:
    std::shared_ptr<verbs_cq_core> d_core;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
