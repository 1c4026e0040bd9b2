/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_verbs_hw.h"
#include <system_error>

namespace qa_verbs {

std::optional<work_completion> next_completion(completion_queue& cq,
                                               std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    work_completion wc;
    for (;;) {
        if (cq.poll(&wc, 1) == 1)
            return wc;
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return std::nullopt;
        cq.wait(left);
    }
}

void post_write(verbs_queue_pair& qp,
                const memory_region& local_mr,
                const uint8_t* local,
                size_t len,
                uint64_t remote_addr,
                uint32_t rkey,
                std::optional<uint32_t> imm,
                uint64_t wr_id)
{
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uintptr_t>(local);
    sge.length = static_cast<uint32_t>(len);
    sge.lkey = local_mr.lkey();
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    if (imm)
        wr.imm_data = htonl(*imm);
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = rkey;
    ibv_send_wr* bad = nullptr;
    if (const int err = ibv_post_send(qp.native(), &wr, &bad))
        throw std::system_error(err, std::generic_category(), "ibv_post_send");
}

loopback::loopback(size_t src_bytes)
    : dev(std::make_unique<verbs_device>(test_device())),
      pd(dev->alloc_verbs_pd()),
      send_cq(dev->create_verbs_cq(64)),
      recv_cq(dev->create_verbs_cq(64)),
      src(pattern(src_bytes, 0x5A)),
      src_mr(pd->register_memory(src.data(), src.size(), access_local_write))
{
}

void loopback::connect(qp_type type, unsigned receiver_access)
{
    sender = pd->create_verbs_qp(type, *send_cq, 0, 16);
    receiver = pd->create_qp(type, *recv_cq, receives);
    const unsigned mtu = dev->max_path_mtu();
    const socket_address self = dev->roce_address();
    receiver->to_init(receiver_access);
    receiver->post_receives(1000, receives);
    receiver->to_rtr({ self, sender->qpn() }, sender_psn, mtu);
    receiver->to_rts(receiver_psn);
    sender->to_init(0);
    sender->to_rtr({ self, receiver->qpn() }, receiver_psn, mtu);
    sender->to_rts(sender_psn);
}

void loopback::write(const memory_region& mr,
                     uint64_t remote_addr,
                     size_t len,
                     std::optional<uint32_t> imm,
                     uint64_t wr_id)
{
    post_write(*sender, *src_mr, src.data(), len, remote_addr, mr.rkey(), imm, wr_id);
}

work_completion loopback::sender_completion()
{
    // RC retries take the ACK timeout (67 ms) times 7 under TCG: be generous.
    const auto wc = next_completion(*send_cq, std::chrono::seconds(10));
    CPPUNIT_ASSERT_MESSAGE("the sender's WRITE never completed", wc.has_value());
    return *wc;
}

} // namespace qa_verbs
