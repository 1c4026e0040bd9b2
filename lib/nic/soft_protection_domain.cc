/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "soft_completion_queue.h"
#include "soft_protection_domain.h"
#include "soft_queue_pair.h"
#include "soft_tables.h"
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr unsigned mr_access_mask =
    access_local_write | access_remote_write | access_remote_read;
}

soft_memory_region::soft_memory_region(std::shared_ptr<soft_tables> tables,
                                       uint32_t pd,
                                       void* addr,
                                       size_t length,
                                       unsigned access)
    : d_tables(std::move(tables)), d_addr(addr), d_length(length)
{
    if (!addr || length == 0)
        throw std::invalid_argument("register_memory: needs an address and a length > 0");
    if (access & ~mr_access_mask)
        throw std::invalid_argument("register_memory: unknown access flags");
    // ibv_reg_mr refuses remote write without local write (EINVAL); so do we, so that
    // code which works here also works on the verbs backend.
    if ((access & access_remote_write) && !(access & access_local_write))
        throw std::invalid_argument(
            "register_memory: access_remote_write requires access_local_write");
    mr_entry entry;
    entry.addr = static_cast<uint8_t*>(addr);
    entry.length = length;
    entry.access = access;
    entry.pd = pd;
    d_key = d_tables->add_mr(entry);
}

soft_memory_region::~soft_memory_region() { d_tables->remove_mr(d_key); }

soft_protection_domain::soft_protection_domain(std::shared_ptr<soft_tables> tables,
                                               unsigned max_path_mtu)
    : d_tables(std::move(tables)), d_max_path_mtu(max_path_mtu), d_pd(d_tables->new_pd())
{
}

std::unique_ptr<memory_region>
soft_protection_domain::register_memory(void* addr, size_t length, unsigned access)
{
    return std::make_unique<soft_memory_region>(d_tables, d_pd, addr, length, access);
}

std::unique_ptr<queue_pair>
soft_protection_domain::create_qp(qp_type type, completion_queue& cq, int max_receives)
{
    auto* soft_cq = dynamic_cast<soft_completion_queue*>(&cq);
    if (!soft_cq || soft_cq->ring()->owner() != d_tables.get())
        throw std::invalid_argument(
            "create_qp: the completion queue belongs to another device");
    return std::make_unique<soft_queue_pair>(
        d_tables, type, d_pd, soft_cq->ring(), max_receives, d_max_path_mtu);
}

} // namespace nic
} // namespace rdma
} // namespace gr
