/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_TX_BURST_REGISTERS_H
#define INCLUDED_RDMA_REGS_TX_BURST_REGISTERS_H

#include <cstdint>

/*
 * Register map 1.4: TX bursts (docs/register-map.md, "TX burst queue"; docs/transmit.md,
 * "Queued bursts"): the TX burst queue of each TX stream and the TX counters it adds.
 * Included by register_map.h.
 */

namespace gr {
namespace rdma {
namespace regs {

namespace cap {
constexpr uint32_t tx_bursts = 1u << 13; // TX burst queues (0x4200), TX 0xE0..0xF4
} // namespace cap

// ---- TX burst queue of TX stream t at tbq_base + t * tbq_stride --------------------
// Right after the RX burst queues of 8 streams: a device with CAP_TX has at most 8.
constexpr uint32_t tbq_base = 0x4200;
constexpr uint32_t tbq_stride = 0x20;
namespace tbq {
constexpr uint32_t time_lo = 0x00;     // rw 64: START: device time of its first sample
constexpr uint32_t item_lo = 0x08;     // rw 64: START: first item; END: one past last
constexpr uint32_t reserved_lo = 0x10; // rw 64: no effect (the push burst has no hole)
constexpr uint32_t push = 0x18;        // wo: op::*
constexpr uint32_t status = 0x1C;      // ro
//! TIME lo, hi, ITEM lo, hi, RESERVED lo, hi, PUSH: one burst queues an entry.
constexpr uint32_t push_words = 7;
//! TBQ_STATUS.CAPACITY of the bundled emulator: entries queued and not taken up.
constexpr uint32_t emulator_capacity = 16;
//! TX_NUM_SAMPLES of a stream that plays only queued bursts.
constexpr uint64_t queued_mode = UINT64_MAX;
namespace op {
constexpr uint32_t start = 1;
constexpr uint32_t clear = 2;
constexpr uint32_t end = 3;
} // namespace op
namespace error {
constexpr uint32_t none = 0;
constexpr uint32_t full = 1;
constexpr uint32_t item_order = 3; // START item != the previous END's; END <= its START's
constexpr uint32_t time_behind =
    4; // a nonzero START time before the previous burst's end
constexpr uint32_t not_owner = 5;
constexpr uint32_t not_running = 6; // the stream does not run in queued mode
constexpr uint32_t sequence = 7;    // START while a burst is open, END without one
} // namespace error
//! What TBQ_STATUS.ERROR \p code means, as an error message can say it.
const char* describe_error(uint32_t code);
inline constexpr uint32_t queued(uint32_t status) { return status & 0xFF; }
inline constexpr uint32_t capacity(uint32_t status) { return (status >> 8) & 0xFF; }
inline constexpr uint32_t last_error(uint32_t status) { return (status >> 16) & 0xFF; }
} // namespace tbq
inline constexpr uint32_t tbq_reg(unsigned stream, uint32_t offset)
{
    return tbq_base + stream * tbq_stride + offset;
}

// ---- The TX counters of map 1.4 (cap::tx_bursts), reset by START -------------------
namespace tx {
constexpr uint32_t dropped_samples_lo = 0xE0; // ro 64: items of bursts dropped (late)
constexpr uint32_t idle_ticks_lo = 0xE8;      // ro 64: ticks outside every burst
constexpr uint32_t bursts_done = 0xF0;        // ro: bursts played to their END
constexpr uint32_t time_errors = 0xF4;        // ro: STARTs whose time had passed
} // namespace tx

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
