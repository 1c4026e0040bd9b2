/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_THREAD_ROLE_H
#define INCLUDED_RDMA_UTIL_THREAD_ROLE_H

#include <gnuradio/rdma/cpu_accounting.h>
#include <gnuradio/rdma/transport_api.h>

namespace gr {
namespace rdma {

/*!
 * Names the calling thread (visible in top -H, at most 15 characters) and registers
 * its role for process_cpu_by_role() for as long as the object lives. Create one at
 * the top of every thread the transport starts.
 */
class RDMA_TRANSPORT_API thread_role_scope
{
public:
    thread_role_scope(thread_role role, const char* name);
    ~thread_role_scope();
    thread_role_scope(const thread_role_scope&) = delete;
    thread_role_scope& operator=(const thread_role_scope&) = delete;

private:
    thread_role d_role;
};

} // namespace rdma
} // namespace gr

#endif
