/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "errors.h"
#include <system_error>

namespace gr {
namespace rdma {

void throw_errno(const std::string& what) { throw_errno(what, errno); }

void throw_errno(const std::string& what, int err)
{
    throw std::system_error(err, std::generic_category(), what);
}

} // namespace rdma
} // namespace gr
