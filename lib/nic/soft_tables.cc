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
} // namespace

soft_tables::soft_tables() = default;

uint32_t soft_tables::new_pd()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_next_pd++;
}

uint32_t soft_tables::add_mr(mr_entry entry)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    // Random, unlike rxe's index << 8 | random byte: a peer that knows one key cannot
    // guess another (docs/security.md), and a stale key names a new MR only by a
    // 2^-32 chance. 0 is never a key.
    do
        entry.key = d_random();
    while (entry.key == 0 || d_mrs.count(entry.key));
    d_mrs.emplace(entry.key, entry);
    return entry.key;
}

void soft_tables::remove_mr(uint32_t key)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_mrs.erase(key);
}

uint32_t soft_tables::add_qp(qp_context* qp)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_qps.size() >= (qpn_mask - first_qpn) / 2)
        throw std::length_error("soft NIC: out of queue pair numbers");
    // Random too: a packet needs the QPN as well as the key, and a stray packet of a
    // previous run finds its QPN reused only by chance.
    uint32_t qpn;
    do
        qpn = d_random() & qpn_mask;
    while (qpn < first_qpn || d_qps.count(qpn));
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
    const auto it = d_mrs.find(key);
    return it == d_mrs.end() ? nullptr : &it->second;
}

} // namespace nic
} // namespace rdma
} // namespace gr
