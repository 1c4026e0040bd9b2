/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_LOG_H
#define INCLUDED_RDMA_UTIL_LOG_H

#include <gnuradio/rdma/transport_api.h>
#include <spdlog/spdlog.h>
#include <functional>
#include <memory>
#include <string>

namespace gr {
namespace rdma {

/*!
 * Loggers of the transport core.
 *
 * The core must not include GNU Radio headers, yet its messages should reach GNU Radio's
 * log sinks when it runs under a flowgraph. So loggers come from a replaceable factory:
 * by default a logger that shares spdlog's default sinks (no new sinks, no registry
 * entries); the block library installs a factory returning gr::logger's spdlog logger.
 */
using logger_ptr = std::shared_ptr<spdlog::logger>;
using logger_factory = std::function<logger_ptr(const std::string& name)>;

RDMA_TRANSPORT_API logger_ptr make_logger(const std::string& name);
RDMA_TRANSPORT_API void set_logger_factory(logger_factory factory);

} // namespace rdma
} // namespace gr

#endif
