/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "../util/poll_wait.h"
#include "verbs_completion_queue.h"
#include <arpa/inet.h>
#include <poll.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr auto error_log_interval = std::chrono::seconds(1);
} // namespace

verbs_cq_core::verbs_cq_core(std::shared_ptr<verbs_context> ctx, int entries)
    : d_ctx(std::move(ctx)),
      d_channel(d_ctx->ctx.get()),
      d_cq(d_ctx->ctx.get(), entries, d_channel.get())
{
}

verbs_cq_core::~verbs_cq_core()
{
    if (d_unacked)
        ibv_ack_cq_events(d_cq.get(), d_unacked);
}

void verbs_cq_core::track_receives(uint32_t qpn, std::shared_ptr<std::atomic<int>> posted)
{
    std::lock_guard<std::mutex> lock(d_receivers_mutex);
    d_receivers.emplace_back(qpn, std::move(posted));
}

void verbs_cq_core::untrack_receives(uint32_t qpn)
{
    std::lock_guard<std::mutex> lock(d_receivers_mutex);
    d_receivers.erase(std::remove_if(d_receivers.begin(),
                                     d_receivers.end(),
                                     [qpn](const auto& r) { return r.first == qpn; }),
                      d_receivers.end());
}

int verbs_cq_core::poll(work_completion* out, int max)
{
    int n = 0;
    if (d_stash_pos < d_stash_len && max > 0) {
        const int k = std::min(max, d_stash_len - d_stash_pos);
        translate(&d_stash[d_stash_pos], k, out);
        d_stash_pos += k;
        n += k;
    }
    ibv_wc wc[stash_size];
    while (n < max) {
        const int want = std::min(max - n, stash_size);
        const int k = ibv_poll_cq(d_cq.get(), want, wc);
        if (k < 0)
            throw std::runtime_error("ibv_poll_cq failed (" + std::to_string(k) +
                                     "): the CQ is in error, e.g. after an overrun");
        translate(wc, k, out + n);
        n += k;
        if (k < want)
            break;
    }
    return n;
}

int verbs_cq_core::fill_stash()
{
    const int k = ibv_poll_cq(d_cq.get(), stash_size, d_stash.data());
    if (k < 0)
        throw std::runtime_error("ibv_poll_cq failed (" + std::to_string(k) +
                                 "): the CQ is in error, e.g. after an overrun");
    d_stash_pos = 0;
    d_stash_len = k;
    return k;
}

void verbs_cq_core::translate(const ibv_wc* wc, int n, work_completion* out)
{
    if (n <= 0)
        return;
    completion_stats& stats = d_ctx->stats;
    stats.completions.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(d_receivers_mutex);
    for (int i = 0; i < n; i++) {
        const ibv_wc& w = wc[i];
        work_completion& c = out[i];
        c.wr_id = w.wr_id;
        c.status = translate_status(w.status);
        c.qpn = w.qp_num;
        const bool ok = w.status == IBV_WC_SUCCESS;
        // Only wr_id, status, qp_num and vendor_err are defined for a failed completion.
        c.byte_len = ok ? w.byte_len : 0;
        c.imm_data = ok && (w.wc_flags & IBV_WC_WITH_IMM) ? ntohl(w.imm_data) : 0;
        if (!ok) {
            if (w.status >= 0 && w.status < known_wc_statuses)
                stats.by_status[w.status].fetch_add(1, std::memory_order_relaxed);
            report_error(w);
        }
        // A failed completion has no opcode; the host posts no sends on its QPs, so it
        // is a receive (flushed, most likely).
        if (ok && !(w.opcode & IBV_WC_RECV))
            continue;
        for (auto& [qpn, posted] : d_receivers) {
            if (qpn == w.qp_num) {
                int now = posted->load(std::memory_order_relaxed);
                while (now > 0 && !posted->compare_exchange_weak(now, now - 1)) {
                }
                break;
            }
        }
    }
}

void verbs_cq_core::report_error(const ibv_wc& wc)
{
    // At most one line a second: a QP in ERROR flushes every posted receive at once.
    const auto now = std::chrono::steady_clock::now();
    if (now < d_next_error_log) {
        d_errors_unlogged++;
        return;
    }
    d_ctx->logger->warn("completion error on QP {:#x}, wr_id {}: {} (status {}, vendor "
                        "error {:#x}){}",
                        wc.qp_num,
                        wc.wr_id,
                        ibv_wc_status_str(wc.status),
                        static_cast<int>(wc.status),
                        wc.vendor_err,
                        d_errors_unlogged ? " and " + std::to_string(d_errors_unlogged) +
                                                " more not logged (see the wc_* counters)"
                                          : std::string());
    d_errors_unlogged = 0;
    d_next_error_log = now + error_log_interval;
}

void verbs_cq_core::take_events()
{
    // The channel fd is non-blocking: take what is there, stop at EAGAIN.
    ibv_cq* cq;
    void* cq_context;
    while (ibv_get_cq_event(d_channel.get(), &cq, &cq_context) == 0)
        d_unacked++;
    if (d_unacked >= ack_batch) {
        ibv_ack_cq_events(d_cq.get(), d_unacked);
        d_unacked = 0;
    }
}

bool verbs_cq_core::wait(std::chrono::microseconds timeout)
{
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + timeout;
    pollfd fds[2] = { { d_wake.fd(), POLLIN, 0 }, { d_channel->fd, POLLIN, 0 } };
    for (;;) {
        // interrupt() wins over queued completions, as with the soft NIC: stop() must
        // not wait for a busy stream to go quiet. It is latched in the eventfd.
        fds[0].revents = 0;
        if (poll_wait(fds, 1, std::chrono::microseconds(0)) > 0) {
            d_wake.drain();
            return false;
        }
        if (d_stash_pos < d_stash_len)
            return true;
        if (const int err = ibv_req_notify_cq(d_cq.get(), 0))
            throw_errno("ibv_req_notify_cq", err);
        // A completion that arrived before the arm raises no event: look once more.
        if (fill_stash() > 0)
            return true;
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - clock::now());
        if (left.count() <= 0)
            return false;
        fds[0].revents = fds[1].revents = 0;
        poll_wait(fds, 2, left);
        if (fds[0].revents & POLLIN) {
            d_wake.drain();
            return false;
        }
        // An event (possibly stale, from an arm whose completion was already polled):
        // consume it and loop, which re-arms and polls.
        if (fds[1].revents & POLLIN)
            take_events();
        else if (fds[1].revents & (POLLERR | POLLHUP | POLLNVAL))
            throw std::runtime_error("the completion channel of " +
                                     d_ctx->location.device +
                                     " failed (was the device removed?)");
    }
}

} // namespace nic
} // namespace rdma
} // namespace gr
