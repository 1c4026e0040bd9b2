/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "verbs_handles.h"
#include <fcntl.h>
#include <cerrno>
#include <cstring>

namespace gr {
namespace rdma {
namespace nic {

namespace {
//! The verbs that return NULL set errno, but not every provider does; never report
//! "Success" for a failure.
int errno_or(int fallback) { return errno ? errno : fallback; }
} // namespace

ibv_device_list_t::ibv_device_list_t()
{
    errno = 0;
    reset(ibv_get_device_list(&d_size));
    if (!get())
        throw_errno("ibv_get_device_list", errno_or(ENODEV));
}

ibv_device* ibv_device_list_t::find(const std::string& name) const
{
    for (int i = 0; i < d_size; i++)
        if (name == ibv_get_device_name(get()[i]))
            return get()[i];
    return nullptr;
}

ibv_context_t::ibv_context_t(ibv_device* device)
{
    errno = 0;
    reset(ibv_open_device(device));
    if (!get())
        throw_errno(std::string("ibv_open_device(") + ibv_get_device_name(device) + ")",
                    errno_or(ENODEV));
}

ibv_pd_t::ibv_pd_t(ibv_context* ctx)
{
    errno = 0;
    reset(ibv_alloc_pd(ctx));
    if (!get())
        throw_errno("ibv_alloc_pd", errno_or(ENOMEM));
}

ibv_mr_t::ibv_mr_t(ibv_pd* pd, void* addr, size_t length, int access)
{
    errno = 0;
    reset(ibv_reg_mr(pd, addr, length, access));
    if (!get())
        throw_errno("ibv_reg_mr(" + std::to_string(length) + " bytes)", errno_or(ENOMEM));
}

ibv_comp_channel_t::ibv_comp_channel_t(ibv_context* ctx)
{
    errno = 0;
    reset(ibv_create_comp_channel(ctx));
    if (!get())
        throw_errno("ibv_create_comp_channel", errno_or(ENOMEM));
    const int flags = ::fcntl(get()->fd, F_GETFL);
    if (flags < 0 || ::fcntl(get()->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        throw_errno("fcntl(completion channel, O_NONBLOCK)");
}

ibv_cq_t::ibv_cq_t(ibv_context* ctx, int entries, ibv_comp_channel* channel)
{
    errno = 0;
    reset(ibv_create_cq(ctx, entries, nullptr, channel, 0));
    if (!get())
        throw_errno("ibv_create_cq(" + std::to_string(entries) + " entries)",
                    errno_or(ENOMEM));
}

ibv_qp_t::ibv_qp_t(ibv_pd* pd, ibv_qp_init_attr& attr)
{
    errno = 0;
    reset(ibv_create_qp(pd, &attr));
    if (!get())
        throw_errno("ibv_create_qp", errno_or(EINVAL));
}

void ibv_qp_t::modify(ibv_qp_attr& attr, int mask, const char* what)
{
    // ibv_modify_qp returns the errno (and may or may not set errno).
    if (const int err = ibv_modify_qp(get(), &attr, mask))
        throw_errno(std::string("ibv_modify_qp(") + what + ")", err);
}

} // namespace nic
} // namespace rdma
} // namespace gr
