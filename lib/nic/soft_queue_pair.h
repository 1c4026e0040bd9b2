/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_QUEUE_PAIR_H
#define INCLUDED_RDMA_NIC_SOFT_QUEUE_PAIR_H

#include "nic.h"
#include <gnuradio/rdma/transport_api.h>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

class completion_ring;
class soft_counters;
class soft_tables;

//! Posted receive work requests, FIFO, bounded when the QP is created.
class RDMA_TRANSPORT_API receive_queue
{
public:
    explicit receive_queue(int capacity);
    //! Append wr_ids first..first+count-1; std::length_error if they do not fit.
    void post(uint64_t first_wr_id, int count);
    //! Consume the oldest; false if none is posted.
    bool take(uint64_t& wr_id);
    bool empty() const { return d_count == 0; }
    int size() const { return static_cast<int>(d_count); }
    int capacity() const { return static_cast<int>(d_ids.size()); }
    void clear() { d_head = d_count = 0; }

private:
    std::vector<uint64_t> d_ids;
    size_t d_head = 0;
    size_t d_count = 0;
};

//! Default max_dest_rd_atomic: READs the responder remembers for replay (as
//! verbs_device).
constexpr unsigned default_max_dest_rd_atomic = 16;
//! Largest max_dest_rd_atomic (rxe's max_qp_rd_atom).
constexpr unsigned max_max_dest_rd_atomic = 128;

//! A READ the responder served, kept so that a duplicate request can be replayed
//! (rxe's struct resp_res).
struct read_resource {
    bool valid = false;
    uint32_t first_psn = 0;
    uint32_t last_psn = 0; //!< first_psn + packets - 1 (24 bits)
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint32_t length = 0;
    uint32_t msn = 0; //!< the MSN its responses carried
};

/*!
 * Everything the responder reads and writes about one QP: attributes from the state
 * transitions and the responder state of rxe's qp->resp. Guarded by the table lock.
 */
struct RDMA_TRANSPORT_API qp_context {
    qp_context(qp_type t,
               uint32_t pd_id,
               std::shared_ptr<completion_ring> ring,
               int max_receives);

    uint32_t qpn = 0;
    const qp_type type;
    const uint32_t pd;
    const std::shared_ptr<completion_ring> cq;

    qp_state state = qp_state::reset;
    unsigned remote_access = 0;
    remote_peer peer;
    unsigned path_mtu = 0;
    uint32_t send_psn = 0;

    uint32_t expected_psn = 0;
    uint32_t msn = 0;          //!< messages completed (24 bits), carried in ACKs
    bool in_message = false;   //!< a FIRST was executed, its LAST was not
    bool drop_msg = false;     //!< UC: drop MIDDLE/LAST until the next START
    bool sent_psn_nak = false; //!< RC: the current gap has been NAKed
    uint64_t va = 0;           //!< message in progress: next address
    uint32_t rkey = 0;
    uint32_t resid = 0;  //!< bytes still to come
    uint32_t length = 0; //!< RETH DMA length of the message

    receive_queue receives;

    //! The last max_dest_rd_atomic READs, oldest overwritten first.
    std::vector<read_resource> reads;
    size_t next_read = 0; //!< slot of reads the next READ takes

    void end_message()
    {
        in_message = false;
        va = 0;
        rkey = 0;
        resid = 0;
        length = 0;
    }
    //! Forget the connection: used by RTR (fresh start) and RESET.
    void reset_responder(uint32_t first_psn);
    //! Remember a served READ, forgetting the oldest if all slots are taken.
    void remember_read(const read_resource& r);
    //! The remembered READ whose PSN range holds \p psn, or null.
    const read_resource* find_read(uint32_t psn) const;
    //! Push \p wc to the CQ, counting it (or the overflow).
    void complete(const work_completion& wc, soft_counters& counters);
    //! Complete every posted receive with wc_status::flushed (the QP is in ERROR).
    void flush_receives(soft_counters& counters);
    //! Enter ERROR as verbs does: the message is abandoned, the receives flushed.
    void enter_error(soft_counters& counters);
};

/*!
 * A UC or RC queue pair of the soft NIC. Only the responder side exists: the QP
 * accepts RDMA WRITE requests from its peer; it sends nothing but RC ACK/NAKs.
 */
class soft_queue_pair : public queue_pair
{
public:
    soft_queue_pair(std::shared_ptr<soft_tables> tables,
                    qp_type type,
                    uint32_t pd,
                    std::shared_ptr<completion_ring> cq,
                    int max_receives,
                    unsigned max_path_mtu);
    ~soft_queue_pair() override;
    soft_queue_pair(const soft_queue_pair&) = delete;
    soft_queue_pair& operator=(const soft_queue_pair&) = delete;

    uint32_t qpn() const override { return d_ctx.qpn; }
    qp_type type() const override { return d_ctx.type; }
    qp_state state() const override;
    void to_init(unsigned remote_access) override;
    void
    to_rtr(const remote_peer& peer, uint32_t expected_psn, unsigned path_mtu) override;
    void to_rts(uint32_t send_psn) override;
    void to_reset() override;
    void post_receives(uint64_t first_wr_id, int count) override;
    int posted_receives() const override;

    /*!
     * READs remembered for replaying duplicate requests (verbs' max_dest_rd_atomic, a
     * responder attribute set before RTR): 1..128, default 16. A requester must not keep
     * more READs outstanding. Throws std::invalid_argument out of range, and
     * std::logic_error unless the QP is in RESET or INIT.
     */
    void set_max_dest_rd_atomic(unsigned n);
    unsigned max_dest_rd_atomic() const override;

private:
    [[noreturn]] void bad_transition(const char* what, const char* needs) const;

    const std::shared_ptr<soft_tables> d_tables;
    const unsigned d_max_path_mtu;
    qp_context d_ctx; // registered in d_tables for the whole life of this object
};

const char* to_string(qp_state state);

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
