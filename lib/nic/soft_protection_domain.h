/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_PROTECTION_DOMAIN_H
#define INCLUDED_RDMA_NIC_SOFT_PROTECTION_DOMAIN_H

#include "nic.h"
#include <gnuradio/rdma/transport_api.h>
#include <memory>

namespace gr {
namespace rdma {
namespace nic {

class soft_tables;

//! A registered memory region; deregistered (unreachable for the NIC) on destruction.
class soft_memory_region : public memory_region
{
public:
    soft_memory_region(std::shared_ptr<soft_tables> tables,
                       uint32_t pd,
                       void* addr,
                       size_t length,
                       unsigned access);
    ~soft_memory_region() override;
    soft_memory_region(const soft_memory_region&) = delete;
    soft_memory_region& operator=(const soft_memory_region&) = delete;

    uint32_t lkey() const override { return d_key; }
    uint32_t rkey() const override { return d_key; }
    void* addr() const override { return d_addr; }
    size_t length() const override { return d_length; }

private:
    const std::shared_ptr<soft_tables> d_tables;
    void* const d_addr;
    const size_t d_length;
    uint32_t d_key;
};

//! A protection domain: MRs and QPs of one PD can reach each other, no others.
class RDMA_TRANSPORT_API soft_protection_domain : public protection_domain
{
public:
    soft_protection_domain(std::shared_ptr<soft_tables> tables, unsigned max_path_mtu);

    std::unique_ptr<memory_region>
    register_memory(void* addr, size_t length, unsigned access) override;
    std::unique_ptr<queue_pair>
    create_qp(qp_type type, completion_queue& cq, int max_receives) override;

private:
    const std::shared_ptr<soft_tables> d_tables;
    const unsigned d_max_path_mtu;
    const uint32_t d_pd;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
