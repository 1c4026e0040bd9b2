/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_IMPAIRMENTS_H
#define INCLUDED_RDMA_EMU_IMPAIRMENTS_H

#include "../regs/register_map.h"
#include <array>
#include <cstdint>
#include <deque>
#include <mutex>

namespace gr {
namespace rdma {
namespace emu {

struct targeted_fault {
    uint64_t message = 0;
    uint32_t kind = regs::fault::none;
};

//! Impairments the emulator applies to a stream (emulator extension registers).
struct impairment_config {
    uint32_t seed = 0;
    uint32_t loss_ppm = 0;
    uint32_t loss_burst = 1;
    uint32_t duplicate_ppm = 0;
    uint32_t corrupt_ppm = 0;
    uint32_t delay_ppm = 0;
    uint32_t delay_messages = 0;
    std::array<targeted_fault, regs::emu::max_faults> table{};
    uint32_t table_size = 0;
};

/*!
 * The fate of every WRITE message, as a pure function of the configuration and the
 * message index (counter-based randomness): the same stream is impaired the same way
 * every run, any message's fate can be recomputed by a checker, and nothing is
 * stateful on the sending path.
 *
 * Precedence: a targeted fault for the message; else a random loss (a burst of
 * loss_burst messages starts at message k with probability loss_ppm); else random
 * corruption, duplication, delay, in that order.
 */
class impairment_plan
{
public:
    explicit impairment_plan(const impairment_config& config);
    uint32_t fate(uint64_t message) const; //!< a regs::fault kind
    bool active() const { return d_active; }

private:
    bool chance(uint64_t message, uint32_t salt, uint32_t ppm) const;

    impairment_config d_config;
    bool d_active;
};

//! What the emulator injected, in order: read by the host as a FIFO register.
struct fault_record {
    uint64_t message = 0;
    uint32_t kind = regs::fault::none;
};

/*!
 * A bounded FIFO of injected faults (the last `capacity` records; older ones are
 * discarded and counted), shared by the RX engine (writer) and the register file
 * (reader).
 */
class fault_log
{
public:
    static constexpr size_t capacity = 4096;
    void clear();
    void push(const fault_record& r);
    bool pop(fault_record& r);
    size_t size() const;
    uint64_t discarded() const;

private:
    mutable std::mutex d_mutex;
    std::deque<fault_record> d_records;
    uint64_t d_discarded = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
