/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/hash.h"
#include "impairments.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr uint32_t max_loss_burst = 4096;

} // namespace

impairment_plan::impairment_plan(const impairment_config& config) : d_config(config)
{
    d_config.loss_burst = std::clamp<uint32_t>(d_config.loss_burst, 1, max_loss_burst);
    d_config.table_size = std::min<uint32_t>(d_config.table_size, regs::emu::max_faults);
    d_active = d_config.table_size || d_config.loss_ppm || d_config.duplicate_ppm ||
               d_config.corrupt_ppm || d_config.delay_ppm;
}

bool impairment_plan::chance(uint64_t message, uint32_t salt, uint32_t ppm) const
{
    if (ppm == 0)
        return false;
    const uint64_t h =
        splitmix64(splitmix64((uint64_t(d_config.seed) << 32) | salt) ^ message);
    return h % 1000000u < ppm;
}

uint32_t impairment_plan::fate(uint64_t message) const
{
    if (!d_active)
        return regs::fault::none;
    for (uint32_t i = 0; i < d_config.table_size; i++) {
        if (d_config.table[i].message == message)
            return d_config.table[i].kind;
    }
    const uint64_t first =
        message >= d_config.loss_burst - 1 ? message - (d_config.loss_burst - 1) : 0;
    for (uint64_t k = first; k <= message; k++) {
        if (chance(k, 'L', d_config.loss_ppm))
            return regs::fault::drop;
    }
    if (chance(message, 'C', d_config.corrupt_ppm))
        return regs::fault::corrupt_payload;
    if (chance(message, 'D', d_config.duplicate_ppm))
        return regs::fault::duplicate;
    if (chance(message, 'Y', d_config.delay_ppm))
        return regs::fault::delay;
    return regs::fault::none;
}

void fault_log::clear()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_records.clear();
    d_discarded = 0;
}

void fault_log::push(const fault_record& r)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_records.size() == capacity) {
        d_records.pop_front();
        d_discarded++;
    }
    d_records.push_back(r);
}

bool fault_log::pop(fault_record& r)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_records.empty())
        return false;
    r = d_records.front();
    d_records.pop_front();
    return true;
}

size_t fault_log::size() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_records.size();
}

uint64_t fault_log::discarded() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_discarded;
}

} // namespace emu
} // namespace rdma
} // namespace gr
