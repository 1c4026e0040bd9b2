/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_SHARE_COUNTERS_H
#define INCLUDED_RDMA_EMU_SHARE_COUNTERS_H

#include "../regs/link_registers.h"
#include "../regs/link_schedule.h"
#include <array>
#include <atomic>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * SHARE_SAMPLES_EMITTED of one run (docs/register-map.md, "Shares"): the samples the
 * converter produced, split by the share their message belongs to. The engine adds
 * every sample it adds to RX_SAMPLES_EMITTED here too, with its message, so that the
 * shares add up to the stream exactly. Written by the engine's thread (and by stop()
 * once it has left), read by the register file: atomics. No allocation.
 */
class share_counters
{
public:
    //! A new run of \p shares shares of \p block messages: every count 0.
    void reset(unsigned shares, uint64_t block);
    //! \p samples of stream message \p message were produced.
    void add(uint64_t message, uint64_t samples)
    {
        d_count[d_layout.share_of(message)].fetch_add(samples, std::memory_order_relaxed);
    }
    //! The samples from message \p first on (at its first sample) up to stream sample
    //! \p end (exclusive) were produced, \p spm samples per message: each whole message
    //! to its share, and the partial one at \p end to its own.
    void add_range(uint64_t first, uint64_t end, uint64_t spm);
    uint64_t samples(unsigned h) const
    {
        return h < d_count.size() ? d_count[h].load(std::memory_order_relaxed) : 0;
    }

private:
    regs::link_schedule d_layout; // share_of() and local_count() only
    std::array<std::atomic<uint64_t>, regs::max_shares> d_count{};
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
