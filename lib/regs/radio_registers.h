/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_RADIO_REGISTERS_H
#define INCLUDED_RDMA_REGS_RADIO_REGISTERS_H

#include <cstdint>

/*
 * Register map 1.3: the radio (docs/radio.md): RF channels, settable device time,
 * timed commands, queued bursts, the emulator's RF scene. Included by register_map.h.
 */

namespace gr {
namespace rdma {
namespace regs {

namespace cap {
constexpr uint32_t rf = 1u << 9;             // RF channels (0x6000)
constexpr uint32_t time_set = 1u << 10;      // clock set / sources / PPS (0x0108..0x0130)
constexpr uint32_t command_queue = 1u << 11; // timed commands (0x4000)
constexpr uint32_t burst_queue = 1u << 12;   // queued bursts (0x4100)
} // namespace cap

constexpr uint32_t id_num_rf_channels = 0x0030;

// ---- Clock, settable (cap::time_set) ------------------------------------------------
namespace clock_set {
constexpr uint32_t now_lo = 0x0108;      // wo 64: device time becomes this, now
constexpr uint32_t pps_lo = 0x0110;      // wo 64: ... at the next PPS edge
constexpr uint32_t last_pps_lo = 0x0118; // ro 64: device time at the last PPS edge
constexpr uint32_t clock_source = 0x0120;
constexpr uint32_t clock_sources = 0x0124;
constexpr uint32_t time_source = 0x0128;
constexpr uint32_t time_sources = 0x012C;
constexpr uint32_t status = 0x0130;
namespace source {
constexpr uint32_t internal = 0;
constexpr uint32_t external = 1;
constexpr uint32_t gpsdo = 2;
} // namespace source
namespace status_bits {
constexpr uint32_t ref_locked = 1u << 0;
constexpr uint32_t pps_present = 1u << 1;
constexpr uint32_t pps_armed = 1u << 2;
} // namespace status_bits
} // namespace clock_set

// ---- RF channel c at rf_base + c * rf_stride (cap::rf) -----------------------------
constexpr uint32_t rf_base = 0x6000;
constexpr uint32_t rf_stride = 0x100;
namespace rf {
constexpr uint32_t freq_lo = 0x00;      // rw 64, mHz
constexpr uint32_t freq_time_lo = 0x08; // ro 64, ns
constexpr uint32_t freq_min_lo = 0x10;  // ro 64, mHz
constexpr uint32_t freq_max_lo = 0x18;  // ro 64, mHz
constexpr uint32_t freq_step = 0x20;    // ro, mHz
constexpr uint32_t gain = 0x24;         // rw, int32 milli-dB
constexpr uint32_t gain_time_lo = 0x28; // ro 64, ns
constexpr uint32_t gain_min = 0x30;     // ro, int32 milli-dB
constexpr uint32_t gain_max = 0x34;
constexpr uint32_t gain_step = 0x38;
constexpr uint32_t bandwidth = 0x3C; // rw, Hz
constexpr uint32_t bandwidth_min = 0x40;
constexpr uint32_t bandwidth_max = 0x44;
constexpr uint32_t antenna = 0x48;  // rw
constexpr uint32_t antennas = 0x4C; // ro
constexpr uint32_t status = 0x50;   // ro: bit 0 LO locked
constexpr uint32_t block_words = 0x54 / 4;
namespace status_bits {
constexpr uint32_t lo_locked = 1u << 0;
} // namespace status_bits
} // namespace rf
inline constexpr uint32_t rf_reg(unsigned channel, uint32_t offset)
{
    return rf_base + channel * rf_stride + offset;
}

// ---- Command queue (cap::command_queue) ---------------------------------------------
namespace cmd {
constexpr uint32_t time_lo = 0x4000; // rw 64
constexpr uint32_t addr = 0x4008;    // rw
constexpr uint32_t data_lo = 0x400C; // rw 64
constexpr uint32_t push = 0x4014;    // wo: 1 push, 2 clear
constexpr uint32_t status = 0x4018;  // ro
constexpr uint32_t executed = 0x401C;
constexpr uint32_t late = 0x4020;
constexpr uint32_t block_bytes = 0x100;
//! CMD_STATUS.CAPACITY of the bundled emulator.
constexpr uint32_t emulator_capacity = 64;
constexpr uint32_t push_words = 6; // time lo/hi, addr, data lo/hi, push
namespace op {
constexpr uint32_t push = 1;
constexpr uint32_t clear = 2;
} // namespace op
namespace error {
constexpr uint32_t none = 0;
constexpr uint32_t full = 1;
constexpr uint32_t not_timeable = 2;
constexpr uint32_t bad_value = 3;
constexpr uint32_t not_owner = 4;
} // namespace error
inline constexpr uint32_t queued(uint32_t status) { return status & 0xFF; }
inline constexpr uint32_t capacity(uint32_t status) { return (status >> 8) & 0xFF; }
inline constexpr uint32_t last_error(uint32_t status) { return (status >> 16) & 0xFF; }
} // namespace cmd

// ---- Burst queue of RX stream s at bq_base + s * bq_stride (cap::burst_queue) -------
constexpr uint32_t bq_base = 0x4100;
constexpr uint32_t bq_stride = 0x20;
namespace bq {
constexpr uint32_t time_lo = 0x00;          // rw 64
constexpr uint32_t samples_lo = 0x08;       // rw 64
constexpr uint32_t first_message_lo = 0x10; // rw 64; all ones: after the previous
constexpr uint32_t push = 0x18;             // wo: 1 push, 2 clear
constexpr uint32_t status = 0x1C;           // ro
constexpr uint32_t push_words = 7;
//! BQ_STATUS.CAPACITY of the bundled emulator.
constexpr uint32_t emulator_capacity = 16;
constexpr uint64_t next_message = UINT64_MAX;
//! RX_NUM_SAMPLES of a stream that sends only queued bursts.
constexpr uint64_t queued_mode = UINT64_MAX;
namespace error {
constexpr uint32_t none = 0;
constexpr uint32_t full = 1;
constexpr uint32_t no_samples = 2;
constexpr uint32_t message_behind = 3;
constexpr uint32_t time_behind = 4;
constexpr uint32_t not_owner = 5;
constexpr uint32_t not_running = 6; // the stream does not run in queued mode
} // namespace error
namespace op {
constexpr uint32_t push = 1;
constexpr uint32_t clear = 2;
} // namespace op
inline constexpr uint32_t queued(uint32_t status) { return status & 0xFF; }
inline constexpr uint32_t capacity(uint32_t status) { return (status >> 8) & 0xFF; }
inline constexpr uint32_t last_error(uint32_t status) { return (status >> 16) & 0xFF; }
} // namespace bq
inline constexpr uint32_t bq_reg(unsigned stream, uint32_t offset)
{
    return bq_base + stream * bq_stride + offset;
}

// ---- RX stream: where a run's messages are numbered from (cap::burst_queue) ---------
namespace rx {
constexpr uint32_t first_message_lo = 0xD8; // rw 64, latched: message index of sample 0
} // namespace rx

// ---- The emulator's RF scene (cap::emulator with cap::rf) ---------------------------
// At 0xE000, not inside the emulator extension blocks (0xF000 + 0x100 s), whose stream 8
// would start at 0xF800.
constexpr uint32_t scene_base = 0xE000;
constexpr uint32_t scene_block_bytes = 0x100;
namespace scene {
constexpr uint32_t tones = 0xE000; // rw, 0..max_tones
constexpr uint32_t noise = 0xE004; // rw, float32 bits
constexpr uint32_t tone_base = 0xE010;
constexpr uint32_t tone_stride = 0x10;
constexpr uint32_t tone_freq_lo = 0x0;   // rw 64, mHz
constexpr uint32_t tone_amplitude = 0x8; // rw, float32 bits
constexpr unsigned max_tones = 8;
} // namespace scene
inline constexpr uint32_t scene_tone_reg(unsigned tone, uint32_t offset)
{
    return scene::tone_base + tone * scene::tone_stride + offset;
}

//! EMU_SIGNAL of the scene (docs/radio.md).
constexpr uint32_t signal_scene = 7;

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
