/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Route the transport core's log messages into GNU Radio's logging system (its sinks
// and its configured levels) whenever the block library is loaded.

#include "../util/log.h"
#include <gnuradio/logger.h>

namespace {

const bool s_bridge_installed = [] {
    gr::rdma::set_logger_factory(
        [](const std::string& name) { return gr::logger(name).d_logger; });
    return true;
}();

} // namespace
