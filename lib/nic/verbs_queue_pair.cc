/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "verbs_queue_pair.h"
#include <spdlog/fmt/fmt.h>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {

constexpr uint32_t mask24 = 0x00FFFFFF;
constexpr unsigned qp_access_mask = access_remote_write | access_remote_read;
// RoCE v2 packets leave with this IP TTL (the GRH hop limit); 64 as Linux uses.
constexpr uint8_t hop_limit = 64;
// RC: the RNR NAK timer code the responder advertises (12: 0.64 ms, as the soft
// NIC), and the requester's ACK timeout (14: 4.096 us * 2^14 = 67 ms) and retries
// (7; for RNR, 7 means "retry forever").
constexpr uint8_t min_rnr_timer = 12;
constexpr uint8_t ack_timeout = 14;
constexpr uint8_t retry_count = 7;
constexpr uint8_t rnr_retry = 7;

ibv_qp_init_attr init_attr(ibv_cq* cq, qp_type type, int max_receives, int max_sends)
{
    if (max_receives < 0 || max_sends < 0)
        throw std::invalid_argument("create_qp: negative queue size");
    ibv_qp_init_attr attr{};
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = qp_type_to_ibv(type);
    attr.cap.max_recv_wr = static_cast<uint32_t>(max_receives);
    attr.cap.max_recv_sge = 1;
    attr.cap.max_send_wr = static_cast<uint32_t>(max_sends);
    attr.cap.max_send_sge = max_sends ? 1 : 0;
    attr.sq_sig_all = 0;
    return attr;
}

} // namespace

verbs_queue_pair::verbs_queue_pair(std::shared_ptr<verbs_pd_core> pd,
                                   std::shared_ptr<verbs_cq_core> cq,
                                   qp_type type,
                                   int max_receives,
                                   int max_sends)
    : d_pd(std::move(pd)),
      d_cq(std::move(cq)),
      d_type(type),
      d_max_receives(max_receives),
      d_qp([&] {
          auto attr = init_attr(d_cq->native(), type, max_receives, max_sends);
          return ibv_qp_t(d_pd->pd.get(), attr);
      }()),
      d_posted(std::make_shared<std::atomic<int>>(0)),
      d_wrs(static_cast<size_t>(max_receives))
{
    d_cq->track_receives(d_qp->qp_num, d_posted);
}

verbs_queue_pair::~verbs_queue_pair() { d_cq->untrack_receives(d_qp->qp_num); }

void verbs_queue_pair::bad_transition(const char* what,
                                      const char* needs,
                                      qp_state now) const
{
    throw std::logic_error(
        fmt::format("queue pair {:#x}: {} needs state {}, but it is {}",
                    qpn(),
                    what,
                    needs,
                    to_string(now)));
}

qp_state verbs_queue_pair::state() const
{
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (const int err = ibv_query_qp(d_qp.get(), &attr, IBV_QP_STATE, &init))
        throw_errno("ibv_query_qp", err);
    return qp_state_from_ibv(attr.qp_state);
}

void verbs_queue_pair::to_init(unsigned remote_access)
{
    if (remote_access & ~qp_access_mask)
        throw std::invalid_argument("to_init: remote access may only combine "
                                    "access_remote_write and access_remote_read");
    const qp_state now = state();
    // INIT -> INIT is legal in verbs (it changes the access flags).
    if (now != qp_state::reset && now != qp_state::init)
        bad_transition("to_init", "RESET or INIT", now);
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = static_cast<uint8_t>(d_pd->ctx->location.port);
    attr.qp_access_flags = static_cast<unsigned>(access_to_ibv(remote_access));
    d_qp.modify(attr,
                IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
                now == qp_state::reset ? "RESET->INIT" : "INIT->INIT");
    d_state = qp_state::init;
}

void verbs_queue_pair::to_rtr(const remote_peer& peer,
                              uint32_t expected_psn,
                              unsigned path_mtu)
{
    const verbs_context& ctx = *d_pd->ctx;
    const auto mtu = mtu_from_bytes(path_mtu);
    if (!mtu || path_mtu > ctx.max_path_mtu)
        throw std::invalid_argument(fmt::format(
            "to_rtr: path MTU {} is not one of 256...{} (powers of two from 256; the "
            "port's active MTU is the limit)",
            path_mtu,
            ctx.max_path_mtu));
    if (expected_psn > mask24)
        throw std::invalid_argument(
            fmt::format("to_rtr: PSN {:#x} exceeds 24 bits", expected_psn));
    if (peer.qpn > mask24)
        throw std::invalid_argument(
            fmt::format("to_rtr: peer QPN {:#x} exceeds 24 bits", peer.qpn));
    if (peer.address.ip() == 0)
        throw std::invalid_argument("to_rtr: the peer needs an IPv4 address");
    const qp_state now = state();
    if (now != qp_state::init)
        bad_transition("to_rtr", "INIT", now);

    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = *mtu;
    attr.dest_qp_num = peer.qpn;
    attr.rq_psn = expected_psn;
    // RoCE v2 over IPv4: the GRH's GIDs are the IPv4-mapped addresses; the sgid index
    // selects ours (and with it the source IP, the netdev and RoCE v2 framing).
    attr.ah_attr.is_global = 1;
    attr.ah_attr.port_num = static_cast<uint8_t>(ctx.location.port);
    attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(ctx.location.gid_index);
    attr.ah_attr.grh.hop_limit = hop_limit;
    const gid_bytes dgid = gid_from_ipv4(peer.address.ip());
    std::memcpy(attr.ah_attr.grh.dgid.raw, dgid.data(), dgid.size());
    int mask =
        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (d_type == qp_type::rc) {
        attr.max_dest_rd_atomic = ctx.max_dest_rd_atomic;
        attr.min_rnr_timer = min_rnr_timer;
        mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
    d_qp.modify(attr, mask, "INIT->RTR");
    d_state = qp_state::rtr;
    if (d_type == qp_type::rc) {
        ibv_qp_attr got{};
        ibv_qp_init_attr init{};
        if (const int err =
                ibv_query_qp(d_qp.get(), &got, IBV_QP_MAX_DEST_RD_ATOMIC, &init))
            throw_errno("ibv_query_qp(max_dest_rd_atomic)", err);
        d_dest_rd_atomic = got.max_dest_rd_atomic;
        d_read_back = true;
    }
}

unsigned verbs_queue_pair::max_dest_rd_atomic() const
{
    if (d_type != qp_type::rc)
        return 0;
    return d_read_back ? d_dest_rd_atomic : d_pd->ctx->max_dest_rd_atomic;
}

void verbs_queue_pair::to_rts(uint32_t send_psn)
{
    if (send_psn > mask24)
        throw std::invalid_argument(
            fmt::format("to_rts: PSN {:#x} exceeds 24 bits", send_psn));
    const qp_state now = state();
    if (now != qp_state::rtr && now != qp_state::rts)
        bad_transition("to_rts", "RTR or RTS", now);
    if (now == qp_state::rts) {
        if (send_psn != d_send_psn)
            throw std::invalid_argument(fmt::format(
                "to_rts: queue pair {:#x} is in RTS with send PSN {:#x}; verbs cannot "
                "change it to {:#x} there (go through RESET)",
                qpn(),
                d_send_psn,
                send_psn));
        return;
    }
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = send_psn;
    int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (d_type == qp_type::rc) {
        attr.timeout = ack_timeout;
        attr.retry_cnt = retry_count;
        attr.rnr_retry = rnr_retry;
        attr.max_rd_atomic = d_pd->ctx->max_rd_atomic;
        mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                IBV_QP_MAX_QP_RD_ATOMIC;
    }
    d_qp.modify(attr, mask, "RTR->RTS");
    d_state = qp_state::rts;
    d_send_psn = send_psn;
}

void verbs_queue_pair::to_reset()
{
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RESET;
    d_qp.modify(attr, IBV_QP_STATE, "->RESET");
    // The receive queue is emptied without completions.
    d_posted->store(0);
    d_state = qp_state::reset;
    d_send_psn = 0;
    d_dest_rd_atomic = 0;
    d_read_back = false;
}

void verbs_queue_pair::post_receives(uint64_t first_wr_id, int count)
{
    if (count < 0)
        throw std::invalid_argument("post_receives: negative count");
    const int posted = d_posted->load();
    if (count > d_max_receives - posted)
        throw std::length_error(
            fmt::format("post_receives: {} more would exceed max_receives {} ({} posted)",
                        count,
                        d_max_receives,
                        posted));
    if (count == 0)
        return;
    // Refused in RESET (rxe: EINVAL below INIT); say it as the soft NIC does. The
    // state we set is enough here: the device only ever moves a QP on to ERROR.
    if (d_state == qp_state::reset)
        bad_transition("post_receives", "INIT, RTR, RTS or ERROR", d_state);
    for (int i = 0; i < count; i++) {
        ibv_recv_wr& wr = d_wrs[static_cast<size_t>(i)];
        wr.wr_id = first_wr_id + static_cast<uint64_t>(i);
        wr.sg_list = nullptr;
        wr.num_sge = 0;
        wr.next = i + 1 < count ? &d_wrs[static_cast<size_t>(i) + 1] : nullptr;
    }
    // Count them before posting: a completion may be polled (and counted down) by the
    // consumer as soon as ibv_post_recv returns.
    d_posted->fetch_add(count);
    ibv_recv_wr* bad = nullptr;
    if (const int err = ibv_post_recv(d_qp.get(), d_wrs.data(), &bad)) {
        // The WRs before bad_wr were posted, the rest were not.
        const int accepted = bad ? static_cast<int>(bad - d_wrs.data()) : 0;
        d_posted->fetch_sub(count - accepted);
        throw_errno(
            fmt::format("ibv_post_recv ({} of {} receive WRs posted)", accepted, count),
            err);
    }
}

} // namespace nic
} // namespace rdma
} // namespace gr
