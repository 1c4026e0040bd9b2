/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_HANDLES_H
#define INCLUDED_RDMA_NIC_VERBS_HANDLES_H

#include <infiniband/verbs.h>
#include <cstddef>
#include <memory>
#include <string>

namespace gr {
namespace rdma {
namespace nic {

/*
 * RAII handles for libibverbs objects, as spead2's common_ibv.h has them: each is a
 * unique_ptr with a deleter, and its constructor creates the object or throws
 * std::system_error naming the verb. They know nothing of each other; the backend's
 * classes hold them in creation order, so that destruction runs in reverse.
 *
 * The deleters ignore the destroy verbs' results: they fail only with EBUSY (children
 * still alive), which the owners' ordering rules out, and a destructor cannot report.
 */

namespace detail {
struct device_list_deleter {
    void operator()(ibv_device** list) const { ibv_free_device_list(list); }
};
struct context_deleter {
    void operator()(ibv_context* ctx) const { ibv_close_device(ctx); }
};
struct pd_deleter {
    void operator()(ibv_pd* pd) const { ibv_dealloc_pd(pd); }
};
struct mr_deleter {
    void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
};
struct comp_channel_deleter {
    void operator()(ibv_comp_channel* channel) const
    {
        ibv_destroy_comp_channel(channel);
    }
};
struct cq_deleter {
    void operator()(ibv_cq* cq) const { ibv_destroy_cq(cq); }
};
struct qp_deleter {
    void operator()(ibv_qp* qp) const { ibv_destroy_qp(qp); }
};
} // namespace detail

//! ibv_get_device_list. Throws std::system_error when libibverbs cannot list devices
//! at all (ENOSYS: the kernel has no RDMA userspace interface).
class ibv_device_list_t : public std::unique_ptr<ibv_device*, detail::device_list_deleter>
{
public:
    ibv_device_list_t();
    int size() const { return d_size; }
    ibv_device* operator[](int i) const { return get()[i]; }
    //! The device called \p name, or nullptr.
    ibv_device* find(const std::string& name) const;

private:
    int d_size = 0;
};

class ibv_context_t : public std::unique_ptr<ibv_context, detail::context_deleter>
{
public:
    ibv_context_t() = default;
    explicit ibv_context_t(ibv_device* device);
};

class ibv_pd_t : public std::unique_ptr<ibv_pd, detail::pd_deleter>
{
public:
    ibv_pd_t() = default;
    explicit ibv_pd_t(ibv_context* ctx);
};

class ibv_mr_t : public std::unique_ptr<ibv_mr, detail::mr_deleter>
{
public:
    ibv_mr_t() = default;
    //! \p access: IBV_ACCESS_* flags, exactly as given.
    ibv_mr_t(ibv_pd* pd, void* addr, size_t length, int access);
};

//! A completion channel whose fd is non-blocking, so that ibv_get_cq_event can be
//! tried after poll() without ever blocking.
class ibv_comp_channel_t
    : public std::unique_ptr<ibv_comp_channel, detail::comp_channel_deleter>
{
public:
    ibv_comp_channel_t() = default;
    explicit ibv_comp_channel_t(ibv_context* ctx);
};

class ibv_cq_t : public std::unique_ptr<ibv_cq, detail::cq_deleter>
{
public:
    ibv_cq_t() = default;
    ibv_cq_t(ibv_context* ctx, int entries, ibv_comp_channel* channel);
};

class ibv_qp_t : public std::unique_ptr<ibv_qp, detail::qp_deleter>
{
public:
    ibv_qp_t() = default;
    ibv_qp_t(ibv_pd* pd, ibv_qp_init_attr& attr);
    //! ibv_modify_qp; throws std::system_error "ibv_modify_qp(<what>)".
    void modify(ibv_qp_attr& attr, int mask, const char* what);
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
