/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_QUEUE_PAIR_H
#define INCLUDED_RDMA_NIC_VERBS_QUEUE_PAIR_H

#include "verbs_completion_queue.h"
#include "verbs_protection_domain.h"
#include <atomic>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

/*!
 * A UC or RC queue pair on the device's RoCE v2 port and GID. Its send and receive
 * completions go to one CQ. The connection is IPv4 over RoCE v2: the address vector
 * carries a GRH whose destination GID is the peer's IPv4-mapped address (the kernel
 * resolves its MAC by ARP during to_rtr).
 *
 * State changes are checked like the soft NIC's (std::logic_error naming the state,
 * std::invalid_argument for bad attributes) before ibv_modify_qp sees them; a refusal
 * by the provider throws std::system_error "ibv_modify_qp(<transition>)".
 */
class verbs_queue_pair : public queue_pair
{
public:
    verbs_queue_pair(std::shared_ptr<verbs_pd_core> pd,
                     std::shared_ptr<verbs_cq_core> cq,
                     qp_type type,
                     int max_receives,
                     int max_sends);
    ~verbs_queue_pair() override;
    verbs_queue_pair(const verbs_queue_pair&) = delete;
    verbs_queue_pair& operator=(const verbs_queue_pair&) = delete;

    uint32_t qpn() const override { return d_qp->qp_num; }
    qp_type type() const override { return d_type; }
    //! Asks the device (ibv_query_qp): an RC QP can enter ERROR on its own.
    qp_state state() const override;
    void to_init(unsigned remote_access) override;
    void
    to_rtr(const remote_peer& peer, uint32_t expected_psn, unsigned path_mtu) override;
    //! RTS -> RTS keeps the send PSN: verbs cannot change it there, so a different
    //! \p send_psn throws std::invalid_argument.
    void to_rts(uint32_t send_psn) override;
    void to_reset() override;
    //! One ibv_post_recv with a chain of \p count zero-length WRs (no scatter entry:
    //! a WRITE WITH IMMEDIATE only consumes the WR for its completion).
    void post_receives(uint64_t first_wr_id, int count) override;
    //! Posted and not yet seen as a completion by poll() on the QP's CQ.
    int posted_receives() const override { return d_posted->load(); }
    /*!
     * RC: before to_rtr(), what it will ask for (the device's max_qp_rd_atom, at most
     * 16); after, what the device reports it took (ibv_query_qp), since the device
     * decides how many READs it really holds and the host tells the device exactly
     * that (TX_MAX_RD_ATOMIC). UC: 0.
     */
    unsigned max_dest_rd_atomic() const override;

    ibv_qp* native() const { return d_qp.get(); }

private:
    [[noreturn]] void
    bad_transition(const char* what, const char* needs, qp_state now) const;

    // Creation order: parents first, so they outlive the QP.
    const std::shared_ptr<verbs_pd_core> d_pd;
    const std::shared_ptr<verbs_cq_core> d_cq;
    const qp_type d_type;
    const int d_max_receives;
    ibv_qp_t d_qp;
    const std::shared_ptr<std::atomic<int>> d_posted;
    std::vector<ibv_recv_wr> d_wrs;     // reused by post_receives: no allocation there
    qp_state d_state = qp_state::reset; //!< as this object last set it
    uint32_t d_send_psn = 0;
    unsigned d_dest_rd_atomic = 0; //!< read back at INIT -> RTR (RC)
    bool d_read_back = false;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
