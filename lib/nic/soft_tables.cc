/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "soft_tables.h"
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr uint32_t first_qpn = 0x11; // 0 and 1 are the special QPs; rxe starts at 0x11
constexpr uint32_t qpn_mask = 0x00FFFFFF;
constexpr uint32_t mr_index_mask = 0x00FFFFFF;
} // namespace

soft_tables::soft_tables() : d_next_qpn(first_qpn), d_random(std::random_device{}()) {}

uint32_t soft_tables::new_pd()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_next_pd++;
}

uint32_t soft_tables::add_mr(mr_entry entry)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_mrs.size() >= mr_index_mask)
        throw std::length_error("soft NIC: out of memory region keys");
    // Indices go round rather than reusing the lowest free one, so that a stale rkey
    // from a deregistered MR does not name a new MR soon after (rxe does the same).
    while (d_mrs.count(d_next_mr_index) || d_next_mr_index == 0)
        d_next_mr_index = (d_next_mr_index + 1) & mr_index_mask;
    const uint32_t index = d_next_mr_index;
    d_next_mr_index = (d_next_mr_index + 1) & mr_index_mask;
    entry.key = (index << 8) | static_cast<uint32_t>(d_random() & 0xFF);
    d_mrs.emplace(index, entry);
    return entry.key;
}

void soft_tables::remove_mr(uint32_t key)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_mrs.erase(key >> 8);
}

uint32_t soft_tables::add_qp(qp_context* qp)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_qps.size() >= qpn_mask - first_qpn)
        throw std::length_error("soft NIC: out of queue pair numbers");
    while (d_qps.count(d_next_qpn) || d_next_qpn < first_qpn)
        d_next_qpn = d_next_qpn >= qpn_mask ? first_qpn : d_next_qpn + 1;
    const uint32_t qpn = d_next_qpn;
    d_next_qpn = d_next_qpn >= qpn_mask ? first_qpn : d_next_qpn + 1;
    d_qps.emplace(qpn, qp);
    return qpn;
}

void soft_tables::remove_qp(uint32_t qpn)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_qps.erase(qpn);
}

qp_context* soft_tables::find_qp(uint32_t qpn) const
{
    const auto it = d_qps.find(qpn);
    return it == d_qps.end() ? nullptr : it->second;
}

const mr_entry* soft_tables::find_mr(uint32_t key) const
{
    const auto it = d_mrs.find(key >> 8);
    return it == d_mrs.end() || it->second.key != key ? nullptr : &it->second;
}

} // namespace nic
} // namespace rdma
} // namespace gr
