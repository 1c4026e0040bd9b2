/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_QA_VERBS_HW_H
#define INCLUDED_RDMA_NIC_QA_VERBS_HW_H

// Helpers of the hardware suites of qa_verbs (real verbs on an RDMA device: rxe in the
// guest, or a RoCE NIC). qa_verbs_main.cc picks the device before any test runs, or
// skips them all visibly (exit 77) when there is none.

#include "nic.h"
#include "verbs_completion_queue.h"
#include "verbs_device.h"
#include "verbs_protection_domain.h"
#include "verbs_queue_pair.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qa_verbs {

using namespace gr::rdma;
using namespace gr::rdma::nic;

//! The device the hardware tests use (chosen by qa_verbs_main.cc).
const verbs_device_config& test_device();

inline std::vector<uint8_t> pattern(size_t n, uint8_t seed)
{
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 9));
    return v;
}

//! Poll \p cq until one completion arrives or \p timeout passes (using wait()).
std::optional<work_completion> next_completion(completion_queue& cq,
                                               std::chrono::milliseconds timeout);

//! Post one signaled RDMA WRITE (with immediate when \p imm is set) on \p qp from
//! [local, local + len) of \p local_mr to \p remote_addr / \p rkey.
void post_write(verbs_queue_pair& qp,
                const memory_region& local_mr,
                const uint8_t* local,
                size_t len,
                uint64_t remote_addr,
                uint32_t rkey,
                std::optional<uint32_t> imm,
                uint64_t wr_id);

/*!
 * Two QPs of one device connected to each other over its own RoCE v2 address (rxe
 * loops the packets back): a sender that posts its own WRITEs, and a receiver made
 * through the NIC interface exactly as rx_stream makes it.
 */
struct loopback {
    static constexpr int receives = 8;
    static constexpr uint32_t sender_psn = 0x00ABCD;
    static constexpr uint32_t receiver_psn = 0x123456;

    std::unique_ptr<verbs_device> dev;
    std::unique_ptr<verbs_protection_domain> pd;
    std::unique_ptr<verbs_completion_queue> send_cq;
    std::unique_ptr<verbs_completion_queue> recv_cq;
    std::vector<uint8_t> src;
    std::unique_ptr<memory_region> src_mr;
    std::unique_ptr<verbs_queue_pair> sender;
    std::unique_ptr<queue_pair> receiver;

    explicit loopback(size_t src_bytes = 64 * 1024);
    //! Connect sender -> receiver; the receiver grants \p receiver_access and has
    //! \p receives receive WRs posted (wr_ids 1000...).
    void connect(qp_type type, unsigned receiver_access = access_remote_write);
    //! WRITE src[0, len) to \p remote_addr of \p mr.
    void write(const memory_region& mr,
               uint64_t remote_addr,
               size_t len,
               std::optional<uint32_t> imm,
               uint64_t wr_id = 1);
    //! The sender's completion for its last WRITE (fails the test if none comes).
    work_completion sender_completion();
};

} // namespace qa_verbs

#endif
