/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_ERRORS_H
#define INCLUDED_RDMA_UTIL_ERRORS_H

#include <gnuradio/rdma/transport_api.h>
#include <cerrno>
#include <string>

namespace gr {
namespace rdma {

//! Throw std::system_error for the current errno, prefixed by \p what.
[[noreturn]] RDMA_TRANSPORT_API void throw_errno(const std::string& what);

//! Throw std::system_error for \p err, prefixed by \p what.
[[noreturn]] RDMA_TRANSPORT_API void throw_errno(const std::string& what, int err);

} // namespace rdma
} // namespace gr

#endif
