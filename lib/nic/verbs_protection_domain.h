/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_PROTECTION_DOMAIN_H
#define INCLUDED_RDMA_NIC_VERBS_PROTECTION_DOMAIN_H

#include "verbs_device.h"
#include <memory>

namespace gr {
namespace rdma {
namespace nic {

class verbs_completion_queue;
class verbs_queue_pair;

//! A verbs PD with the context it came from; MRs and QPs hold it by shared_ptr.
struct verbs_pd_core {
    explicit verbs_pd_core(std::shared_ptr<verbs_context> c)
        : ctx(std::move(c)), pd(ctx->ctx.get())
    {
    }
    const std::shared_ptr<verbs_context> ctx; // first: released after the PD
    ibv_pd_t pd;
};

//! ibv_reg_mr of [addr, addr + length) with exactly the access asked for.
class verbs_memory_region : public memory_region
{
public:
    verbs_memory_region(std::shared_ptr<verbs_pd_core> pd,
                        void* addr,
                        size_t length,
                        unsigned access);

    uint32_t lkey() const override { return d_mr->lkey; }
    uint32_t rkey() const override { return d_mr->rkey; }
    void* addr() const override { return d_mr->addr; }
    size_t length() const override { return d_mr->length; }
    ibv_mr* native() const { return d_mr.get(); }

private:
    const std::shared_ptr<verbs_pd_core> d_pd;
    ibv_mr_t d_mr;
};

class verbs_protection_domain : public protection_domain
{
public:
    explicit verbs_protection_domain(std::shared_ptr<verbs_context> ctx)
        : d_core(std::make_shared<verbs_pd_core>(std::move(ctx)))
    {
    }

    /*!
     * Registers [addr, addr + length). \p access: access_local_write,
     * access_remote_write (needs access_local_write, as ibv_reg_mr requires),
     * access_remote_read. Invalid arguments throw std::invalid_argument, like the soft
     * NIC; a refusal by the kernel (e.g. RLIMIT_MEMLOCK) throws std::system_error.
     */
    std::unique_ptr<memory_region>
    register_memory(void* addr, size_t length, unsigned access) override;
    //! \p cq must be a completion queue of the same verbs device.
    std::unique_ptr<queue_pair>
    create_qp(qp_type type, completion_queue& cq, int max_receives) override;

    //! Also for tests and tools: a QP that can post \p max_sends work requests of its
    //! own (through native()); the interface's QPs only receive.
    std::unique_ptr<verbs_queue_pair>
    create_verbs_qp(qp_type type, completion_queue& cq, int max_receives, int max_sends);
    ibv_pd* native() const { return d_core->pd.get(); }

private:
    std::shared_ptr<verbs_pd_core> d_core;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
