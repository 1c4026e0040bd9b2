/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "soft_completion_queue.h"
#include "soft_queue_pair.h"
#include "soft_tables.h"
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr uint32_t mask24 = 0x00FFFFFF;
constexpr unsigned qp_access_mask = access_remote_write | access_remote_read;

std::string hex(uint32_t v)
{
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}
} // namespace

const char* to_string(qp_state state)
{
    switch (state) {
    case qp_state::reset:
        return "RESET";
    case qp_state::init:
        return "INIT";
    case qp_state::rtr:
        return "RTR";
    case qp_state::rts:
        return "RTS";
    case qp_state::error:
        return "ERROR";
    }
    return "invalid qp_state";
}

receive_queue::receive_queue(int capacity)
{
    if (capacity < 0)
        throw std::invalid_argument("max_receives must not be negative");
    d_ids.resize(static_cast<size_t>(capacity));
}

void receive_queue::post(uint64_t first_wr_id, int count)
{
    if (count < 0)
        throw std::invalid_argument("post_receives: negative count");
    if (static_cast<size_t>(count) > d_ids.size() - d_count)
        throw std::length_error("post_receives: " + std::to_string(count) +
                                " more would exceed max_receives " +
                                std::to_string(d_ids.size()) + " (" +
                                std::to_string(d_count) + " posted)");
    for (int i = 0; i < count; i++)
        d_ids[(d_head + d_count + i) % d_ids.size()] = first_wr_id + i;
    d_count += static_cast<size_t>(count);
}

bool receive_queue::take(uint64_t& wr_id)
{
    if (d_count == 0)
        return false;
    wr_id = d_ids[d_head];
    d_head = (d_head + 1) % d_ids.size();
    d_count--;
    return true;
}

qp_context::qp_context(qp_type t,
                       uint32_t pd_id,
                       std::shared_ptr<completion_ring> ring,
                       int max_receives)
    : type(t),
      pd(pd_id),
      cq(std::move(ring)),
      receives(max_receives),
      reads(default_max_dest_rd_atomic)
{
}

void qp_context::reset_responder(uint32_t first_psn)
{
    expected_psn = first_psn;
    msn = 0;
    drop_msg = false;
    sent_psn_nak = false;
    end_message();
    for (auto& r : reads)
        r.valid = false;
    next_read = 0;
}

void qp_context::remember_read(const read_resource& r)
{
    reads[next_read] = r;
    next_read = (next_read + 1) % reads.size();
}

const read_resource* qp_context::find_read(uint32_t psn) const
{
    // 24-bit circular compare, as the responder's PSN check.
    for (const auto& r : reads)
        if (r.valid &&
            ((psn - r.first_psn) & mask24) <= ((r.last_psn - r.first_psn) & mask24))
            return &r;
    return nullptr;
}

void qp_context::complete(const work_completion& wc, soft_counters& counters)
{
    // Full CQ: the completion is lost and counted, as with a CQ overrun on hardware
    // (which would also raise an async error; the soft NIC only counts).
    if (cq->push(wc))
        counters.add(nic_event::completions);
    else
        counters.add(nic_event::cq_overflow);
}

void qp_context::flush_receives(soft_counters& counters)
{
    work_completion wc;
    wc.status = wc_status::flushed;
    wc.qpn = qpn;
    while (receives.take(wc.wr_id))
        complete(wc, counters);
}

void qp_context::enter_error(soft_counters& counters)
{
    if (in_message)
        counters.add(nic_event::message_aborted);
    end_message();
    state = qp_state::error;
    flush_receives(counters);
}

soft_queue_pair::soft_queue_pair(std::shared_ptr<soft_tables> tables,
                                 qp_type type,
                                 uint32_t pd,
                                 std::shared_ptr<completion_ring> cq,
                                 int max_receives,
                                 unsigned max_path_mtu)
    : d_tables(std::move(tables)),
      d_max_path_mtu(max_path_mtu),
      d_ctx(type, pd, std::move(cq), max_receives)
{
    // Registered last: from here on the receive path may look this QP up (it is in
    // RESET, so every request to it drops until it reaches RTR).
    d_ctx.qpn = d_tables->add_qp(&d_ctx);
}

soft_queue_pair::~soft_queue_pair() { d_tables->remove_qp(d_ctx.qpn); }

void soft_queue_pair::bad_transition(const char* what, const char* needs) const
{
    throw std::logic_error("queue pair " + hex(d_ctx.qpn) + ": " + what +
                           " needs state " + needs + ", but it is " +
                           to_string(d_ctx.state));
}

qp_state soft_queue_pair::state() const
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    return d_ctx.state;
}

void soft_queue_pair::to_init(unsigned remote_access)
{
    if (remote_access & ~qp_access_mask)
        throw std::invalid_argument("to_init: remote access may only combine "
                                    "access_remote_write and access_remote_read");
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    // INIT -> INIT is legal in verbs (it changes the access flags).
    if (d_ctx.state != qp_state::reset && d_ctx.state != qp_state::init)
        bad_transition("to_init", "RESET or INIT");
    d_ctx.remote_access = remote_access;
    d_ctx.state = qp_state::init;
}

void soft_queue_pair::to_rtr(const remote_peer& peer,
                             uint32_t expected_psn,
                             unsigned path_mtu)
{
    if (!valid_path_mtu(path_mtu) || path_mtu > d_max_path_mtu)
        throw std::invalid_argument(
            "to_rtr: path MTU " + std::to_string(path_mtu) + " is not one of 256..." +
            std::to_string(d_max_path_mtu) + " (powers of two from 256)");
    if (expected_psn > mask24)
        throw std::invalid_argument("to_rtr: PSN " + hex(expected_psn) +
                                    " exceeds 24 bits");
    if (peer.qpn > mask24)
        throw std::invalid_argument("to_rtr: peer QPN " + hex(peer.qpn) +
                                    " exceeds 24 bits");
    if (peer.address.ip() == 0)
        throw std::invalid_argument("to_rtr: the peer needs an IPv4 address");
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    if (d_ctx.state != qp_state::init)
        bad_transition("to_rtr", "INIT");
    d_ctx.peer = peer;
    d_ctx.path_mtu = path_mtu;
    d_ctx.reset_responder(expected_psn);
    d_ctx.state = qp_state::rtr;
}

void soft_queue_pair::to_rts(uint32_t send_psn)
{
    if (send_psn > mask24)
        throw std::invalid_argument("to_rts: PSN " + hex(send_psn) + " exceeds 24 bits");
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    if (d_ctx.state != qp_state::rtr && d_ctx.state != qp_state::rts)
        bad_transition("to_rts", "RTR or RTS");
    d_ctx.send_psn = send_psn;
    d_ctx.state = qp_state::rts;
}

void soft_queue_pair::to_reset()
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    // Like ibv_modify_qp(RESET): posted receives vanish without completions.
    d_ctx.receives.clear();
    d_ctx.reset_responder(0);
    d_ctx.remote_access = 0;
    d_ctx.peer = remote_peer();
    d_ctx.path_mtu = 0;
    d_ctx.state = qp_state::reset;
}

void soft_queue_pair::post_receives(uint64_t first_wr_id, int count)
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    // ibv_post_recv is refused in RESET (rxe: EINVAL below INIT).
    if (d_ctx.state == qp_state::reset)
        bad_transition("post_receives", "INIT, RTR, RTS or ERROR");
    d_ctx.receives.post(first_wr_id, count);
    // In ERROR they complete at once as flushed. The table lock makes this thread the
    // CQ's only producer for the moment.
    if (d_ctx.state == qp_state::error)
        d_ctx.flush_receives(d_tables->counters());
}

int soft_queue_pair::posted_receives() const
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    return d_ctx.receives.size();
}

void soft_queue_pair::set_max_dest_rd_atomic(unsigned n)
{
    if (n < 1 || n > max_max_dest_rd_atomic)
        throw std::invalid_argument("set_max_dest_rd_atomic: " + std::to_string(n) +
                                    " is not in 1..." +
                                    std::to_string(max_max_dest_rd_atomic));
    std::vector<read_resource> fresh(n); // allocated before the lock: control path
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    if (d_ctx.state != qp_state::reset && d_ctx.state != qp_state::init)
        bad_transition("set_max_dest_rd_atomic", "RESET or INIT");
    d_ctx.reads.swap(fresh);
    d_ctx.next_read = 0;
}

unsigned soft_queue_pair::max_dest_rd_atomic() const
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    return static_cast<unsigned>(d_ctx.reads.size());
}

} // namespace nic
} // namespace rdma
} // namespace gr
