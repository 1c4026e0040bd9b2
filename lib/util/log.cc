/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "log.h"
#include <mutex>

namespace gr {
namespace rdma {

namespace {
std::mutex s_factory_mutex;
logger_factory s_factory;

logger_ptr default_logger(const std::string& name)
{
    auto base = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>(
        name, base->sinks().begin(), base->sinks().end());
    logger->set_level(base->level());
    return logger;
}
} // namespace

logger_ptr make_logger(const std::string& name)
{
    std::lock_guard<std::mutex> lock(s_factory_mutex);
    return s_factory ? s_factory(name) : default_logger(name);
}

void set_logger_factory(logger_factory factory)
{
    std::lock_guard<std::mutex> lock(s_factory_mutex);
    s_factory = std::move(factory);
}

} // namespace rdma
} // namespace gr
