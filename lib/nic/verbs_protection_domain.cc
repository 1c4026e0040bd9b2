/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "verbs_completion_queue.h"
#include "verbs_protection_domain.h"
#include "verbs_queue_pair.h"
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {

int checked_access(void* addr, size_t length, unsigned access)
{
    if (!addr || length == 0)
        throw std::invalid_argument("register_memory: needs an address and a length > 0");
    // Same rule and message as the soft NIC: code that works there works here.
    if ((access & access_remote_write) && !(access & access_local_write))
        throw std::invalid_argument(
            "register_memory: access_remote_write requires access_local_write");
    try {
        return access_to_ibv(access);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("register_memory: ") + e.what());
    }
}

} // namespace

verbs_memory_region::verbs_memory_region(std::shared_ptr<verbs_pd_core> pd,
                                         void* addr,
                                         size_t length,
                                         unsigned access)
    : d_pd(std::move(pd)),
      d_mr(d_pd->pd.get(), addr, length, checked_access(addr, length, access))
{
}

std::unique_ptr<memory_region>
verbs_protection_domain::register_memory(void* addr, size_t length, unsigned access)
{
    return std::make_unique<verbs_memory_region>(d_core, addr, length, access);
}

std::unique_ptr<queue_pair>
verbs_protection_domain::create_qp(qp_type type, completion_queue& cq, int max_receives)
{
    // The interface's QPs only receive (the device writes, the host completes).
    return create_verbs_qp(type, cq, max_receives, 0);
}

std::unique_ptr<verbs_queue_pair> verbs_protection_domain::create_verbs_qp(
    qp_type type, completion_queue& cq, int max_receives, int max_sends)
{
    auto* vcq = dynamic_cast<verbs_completion_queue*>(&cq);
    if (!vcq)
        throw std::invalid_argument("create_qp: the CQ is not a verbs CQ");
    if (vcq->core()->context() != d_core->ctx)
        throw std::invalid_argument("create_qp: the CQ belongs to another device");
    return std::make_unique<verbs_queue_pair>(
        d_core, vcq->core(), type, max_receives, max_sends);
}

} // namespace nic
} // namespace rdma
} // namespace gr
