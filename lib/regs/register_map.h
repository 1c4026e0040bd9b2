/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_REGISTER_MAP_H
#define INCLUDED_RDMA_REGS_REGISTER_MAP_H

#include <cstdint>
#include <string>

/*
 * The SDR's register map, shared by the device (emulator) and the host (controller).
 * The normative description, written for an FPGA team, is docs/register-map.md. Every
 * register is a row of register_table.h, which the docs are tested against; each
 * constant here is checked against its row when register_table.cc compiles. All
 * registers are 32 bits at 4-byte aligned byte addresses. A 64-bit value is two
 * registers, low word first; read both in one burst (a burst is taken at one instant).
 * A MAC is two registers, high part first (docs/register-map.md, "Word order").
 */

namespace gr {
namespace rdma {
namespace regs {

constexpr uint32_t magic_value = 0x4752444D; // "GRDM"
// 1.1: stream ownership (cap::ownership); 1.2: link counters, a START_TIME in the past
// refused (error_code::start_time_passed); 1.3: the radio (radio_registers.h); 1.4: TX
// bursts (tx_burst_registers.h); 1.5: several links (link_registers.h); 1.6: why a
// run ended (rx::stop_cause, cap::stop_cause).
constexpr uint32_t map_version = 0x00010006;

//! 64-bit registers are a _lo word at an address and a _hi word 4 bytes above it.
inline constexpr uint32_t low_word(uint64_t v) { return static_cast<uint32_t>(v); }
inline constexpr uint32_t high_word(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
inline constexpr uint64_t join_words(uint32_t low, uint32_t high)
{
    return (uint64_t(high) << 32) | low;
}

// ---- Identity and capabilities (read-only) ------------------------------------------
constexpr uint32_t id_magic = 0x0000;
constexpr uint32_t id_version = 0x0004;
constexpr uint32_t id_capabilities = 0x0008;
constexpr uint32_t id_num_links = 0x000C;
constexpr uint32_t id_num_rx_streams = 0x0010;
constexpr uint32_t id_num_tx_streams = 0x0014;
constexpr uint32_t id_max_payload = 0x0018;
constexpr uint32_t id_formats = 0x001C;
constexpr uint32_t id_serial_lo = 0x0020;
constexpr uint32_t id_serial_hi = 0x0024;
constexpr uint32_t id_max_burst_words = 0x0028;
constexpr uint32_t scratch = 0x002C; // read/write, no effect

namespace cap {
constexpr uint32_t rx_uc = 1u << 0;
constexpr uint32_t rx_rc = 1u << 1;
constexpr uint32_t tx = 1u << 2;
constexpr uint32_t immediate = 1u << 3;
constexpr uint32_t clock = 1u << 4;
constexpr uint32_t metadata = 1u << 5;
constexpr uint32_t emulator = 1u << 6; // emulator extension block present
constexpr uint32_t loss_injection = 1u << 7;
constexpr uint32_t ownership = 1u << 8; // RX_OWNER_* and RX_LEASE_MS: streams have owners
// map 1.6: RX_STOP_CAUSE says why each RX stream's last run ended
constexpr uint32_t stop_cause = 1u << 19;
} // namespace cap

namespace format {
constexpr uint32_t sc16 = 0; // complex int16, I then Q, little-endian: 4-byte items
constexpr uint32_t fc32 = 1; // complex float32, I then Q, little-endian: 8-byte items
constexpr uint32_t sc8 = 2;  // complex int8, I then Q: 2-byte items
} // namespace format

// ---- Clock ----------------------------------------------------------------------------
constexpr uint32_t clock_time_ns_lo = 0x0100; // device time, ns since the Unix epoch
constexpr uint32_t clock_time_ns_hi = 0x0104;

// ---- Links: block n at link_base + n * link_stride ------------------------------------
constexpr uint32_t link_base = 0x1000;
constexpr uint32_t link_stride = 0x100;
namespace link {
constexpr uint32_t ipv4 = 0x00;      // ro: source address of the link's RoCEv2 frames
constexpr uint32_t mac_hi = 0x04;    // ro: bits 47..32 of the link MAC
constexpr uint32_t mac_lo = 0x08;    // ro: bits 31..0
constexpr uint32_t udp_sport = 0x0C; // ro: UDP source port of RoCEv2 frames
constexpr uint32_t mtu = 0x10;       // ro: link (IP) MTU in bytes
constexpr uint32_t status = 0x14;    // ro: bit 0 link up
constexpr uint32_t weight = 0x18;    // rw: default weight of destinations on the link
constexpr uint32_t roce_port = 0x1C; // ro: UDP port the link receives RoCEv2 on (ACK/NAK)
// Counters since reset: packets and IPv4 bytes sent, packets received on its RoCE port.
constexpr uint32_t tx_packets_lo = 0x20;
constexpr uint32_t tx_packets_hi = 0x24;
constexpr uint32_t tx_bytes_lo = 0x28;
constexpr uint32_t tx_bytes_hi = 0x2C;
constexpr uint32_t rx_packets_lo = 0x30;
constexpr uint32_t rx_packets_hi = 0x34;
} // namespace link
constexpr uint32_t link_reg(unsigned n, uint32_t reg)
{
    return link_base + n * link_stride + reg;
}

// ---- RX streams: block s at rx_base + s * rx_stride -----------------------------------
constexpr uint32_t rx_base = 0x2000;
constexpr uint32_t rx_stride = 0x100;
namespace rx {
constexpr uint32_t command = 0x00; // wo: command::start / command::stop
constexpr uint32_t status = 0x04;  // ro: status bits, error code in bits 15..8
constexpr uint32_t dest_ipv4 = 0x08;
constexpr uint32_t dest_udp_port = 0x0C; // 4791 for hardware NICs
constexpr uint32_t dest_qpn = 0x10;
constexpr uint32_t start_psn = 0x14;
constexpr uint32_t rkey = 0x18;
constexpr uint32_t va_lo = 0x1C;
constexpr uint32_t va_hi = 0x20;
constexpr uint32_t ring_bytes_lo = 0x24;
constexpr uint32_t ring_bytes_hi = 0x28;
constexpr uint32_t payload_bytes = 0x2C;   // sample bytes per WRITE message
constexpr uint32_t path_mtu = 0x30;        // bytes per packet at most: 256..4096
constexpr uint32_t notify_interval = 0x34; // every N-th message WITH IMMEDIATE; 0: none
constexpr uint32_t rate_num = 0x38;        // sample rate = num / den samples per second
constexpr uint32_t rate_den = 0x3C;
constexpr uint32_t format = 0x40; // regs::format
constexpr uint32_t link_mask = 0x44;
constexpr uint32_t transport = 0x48;     // transport_type: 0 UC, 1 RC, 2 UDP (benchmarks)
constexpr uint32_t source_qpn = 0x4C;    // ro: the device's QPN for this stream
constexpr uint32_t start_time_lo = 0x50; // rw: device time (ns) of sample 0; 0: at START
constexpr uint32_t start_time_hi = 0x54;
constexpr uint32_t num_samples_lo = 0x58; // 0: continuous; else a finite burst
constexpr uint32_t num_samples_hi = 0x5C;
constexpr uint32_t retx_window_bytes = 0x60; // RC retransmit buffer
constexpr uint32_t dest_mac_hi = 0x64;       // raw-frame senders: next-hop MAC
constexpr uint32_t dest_mac_lo = 0x68;
constexpr uint32_t fifo_us =
    0x6C; // ro: device FIFO depth; samples not sent within it overflow
// Ownership (cap::ownership; docs/register-map.md, "Ownership"). A claim is ONE 2-word
// WRITE burst of the token at owner_token_lo; a take-over claim is ONE 3-word burst
// token lo, token hi, owner_command::take_over at owner_token_lo.
constexpr uint32_t owner_token_lo = 0x70; // wo (reads 0): the claim's 64-bit token
constexpr uint32_t owner_token_hi = 0x74;
constexpr uint32_t owner = 0x78;    // read: owner_state; write: owner_command::release
constexpr uint32_t lease_ms = 0x7C; // rw (writes by the owner): silence that frees it
// Counters (ro, 64 bit, reset by START)
constexpr uint32_t packets_sent_lo = 0x80;
constexpr uint32_t packets_sent_hi = 0x84;
constexpr uint32_t samples_emitted_lo = 0x88; // samples produced by the converter
constexpr uint32_t samples_emitted_hi = 0x8C;
constexpr uint32_t packets_dropped_lo = 0x90; // not sent (loss injection, overflow)
constexpr uint32_t packets_dropped_hi = 0x94;
constexpr uint32_t samples_dropped_lo = 0x98;
constexpr uint32_t samples_dropped_hi = 0x9C;
constexpr uint32_t imm_sent_lo = 0xA0;
constexpr uint32_t imm_sent_hi = 0xA4;
constexpr uint32_t naks_received = 0xA8;
constexpr uint32_t retransmits = 0xAC;
constexpr uint32_t zero_substituted_lo = 0xB0; // samples resent as zeros (RC)
constexpr uint32_t zero_substituted_hi = 0xB4;
constexpr uint32_t packets_faulted_lo = 0xB8; // sent with an injected fault (emulator)
constexpr uint32_t packets_faulted_hi = 0xBC;
constexpr uint32_t samples_faulted_lo = 0xC0; // samples in those packets' messages
constexpr uint32_t samples_faulted_hi = 0xC4;
constexpr uint32_t packets_duplicated_lo = 0xC8; // extra copies sent (emulator)
constexpr uint32_t packets_duplicated_hi = 0xCC;
constexpr uint32_t messages_delayed_lo = 0xD0; // sent out of order (emulator)
constexpr uint32_t messages_delayed_hi = 0xD4;
constexpr uint32_t stop_cause = 0xEC; // ro (cap::stop_cause): regs::stop_cause
} // namespace rx
constexpr uint32_t rx_reg(unsigned s, uint32_t reg)
{
    return rx_base + s * rx_stride + reg;
}

//! RX_TRANSPORT values.
namespace transport_type {
constexpr uint32_t uc = 0;
constexpr uint32_t rc = 1;  // when cap::rx_rc
constexpr uint32_t udp = 2; // plain UDP sample datagrams: the benchmarks' socket baseline
} // namespace transport_type

namespace command {
constexpr uint32_t start = 1;
constexpr uint32_t stop = 2;
} // namespace command

namespace status {
constexpr uint32_t running = 1u << 0;
constexpr uint32_t done = 1u << 1; // finite burst sent completely
constexpr uint32_t error = 1u << 2;
constexpr uint32_t error_shift = 8;
constexpr uint32_t error_mask = 0xFFu << error_shift;
} // namespace status

//! RX_OWNER as read: who owns the stream, relative to the client that reads it.
namespace owner_state {
constexpr uint32_t unowned = 0; // free: anyone may claim it
constexpr uint32_t mine = 1;    // owned by the reading client
constexpr uint32_t other = 2;   // owned by another client
} // namespace owner_state

//! RX_OWNER as written.
namespace owner_command {
constexpr uint32_t release = 1;   // alone: the owner gives the stream up (stops it)
constexpr uint32_t take_over = 2; // third word of a claim burst: claim even if owned
} // namespace owner_command

//! RX_LEASE_MS: reset value and the range a write must lie in (else SLVERR).
namespace lease {
constexpr uint32_t default_ms = 5000;
constexpr uint32_t min_ms = 100;
constexpr uint32_t max_ms = 600000;
} // namespace lease

//! Why a START was refused (RX status bits 15..8).
namespace error_code {
constexpr uint32_t none = 0;
constexpr uint32_t bad_format = 1;
constexpr uint32_t bad_payload = 2; // not a multiple of the item size, or too large
constexpr uint32_t bad_ring = 3;    // zero, or not a multiple of the payload
constexpr uint32_t bad_rate = 4;
constexpr uint32_t bad_mtu = 5;
constexpr uint32_t bad_destination = 6;
constexpr uint32_t bad_link = 7;
constexpr uint32_t bad_transport = 8;
constexpr uint32_t busy = 9;               // START while running: STOP first
constexpr uint32_t start_time_passed = 10; // RX_START_TIME is before the device time
constexpr uint32_t bad_control_page = 11;  // TX: TX_CTRL_VA is 0 or not 8-byte aligned
constexpr uint32_t bad_read_depth = 12;    // TX: TX_MAX_RD_ATOMIC is not 1..16
} // namespace error_code
const char* describe_error(uint32_t code);

/*!
 * RX_STOP_CAUSE (map 1.6, cap::stop_cause): why the stream's last run ended, latched
 * as RUNNING clears and kept until the next START (which sets none). Bits 7..0 the
 * cause; for share_left bits 15..8 the share; for owner_left and share_left bits
 * 23..16 how its owner left. The hosts of the other shares learn from it that a
 * share's host left, and every host why its run ended without its own STOP.
 */
namespace stop_cause {
constexpr uint32_t none = 0;       // the run goes on, or the stream never ran
constexpr uint32_t done = 1;       // a finite burst sent completely (DONE)
constexpr uint32_t command = 2;    // a STOP: RX_COMMAND, a timed STOP, the queue's end
constexpr uint32_t owner_left = 3; // the stream became free: its owner left
constexpr uint32_t share_left = 4; // share h >= 1 became free: its host left
constexpr uint32_t failed = 5;     // the device failed the run (RC: the requester gave up)
constexpr uint32_t kind_mask = 0xFF;
constexpr uint32_t share_shift = 8;
constexpr uint32_t share_mask = 0xFFu << share_shift;
constexpr uint32_t how_shift = 16;
constexpr uint32_t how_mask = 0xFFu << how_shift;
//! How an owner left (owner_left, share_left).
namespace how {
constexpr uint32_t released = 1;   // it released the stream (or share)
constexpr uint32_t lapsed = 2;     // it was silent beyond its lease
constexpr uint32_t taken_over = 3; // another client took it over
} // namespace how
constexpr uint32_t make(uint32_t kind, uint32_t share = 0, uint32_t how = 0)
{
    return kind | (share << share_shift) | (how << how_shift);
}
constexpr uint32_t kind_of(uint32_t word) { return word & kind_mask; }
constexpr uint32_t share_of(uint32_t word) { return (word & share_mask) >> share_shift; }
constexpr uint32_t how_of(uint32_t word) { return (word & how_mask) >> how_shift; }
} // namespace stop_cause
//! RX_STOP_CAUSE in words ("share 1's host left: its lease lapsed"); a value the map
//! does not define is named as such.
std::string describe_stop_cause(uint32_t word);

// ---- TX streams: block t at tx_base + t * tx_stride (cap::tx; docs/transmit.md) -------
// The device fetches samples from the host's TX ring by RC RDMA READ and tells the host
// what it fetched by SEND ONLY WITH IMMEDIATE. Offsets 0x70..0x7C (ownership) mean what
// they mean in the RX block.
constexpr uint32_t tx_base = 0x3000;
constexpr uint32_t tx_stride = 0x100;
namespace tx {
constexpr uint32_t command = 0x00; // wo: command::start / command::stop
constexpr uint32_t status = 0x04;  // ro: status bits, error code in bits 15..8
constexpr uint32_t host_ipv4 = 0x08;
constexpr uint32_t host_udp_port = 0x0C;
constexpr uint32_t host_qpn = 0x10;  // the host RC QP: READ responder, SEND receiver
constexpr uint32_t start_psn = 0x14; // PSN of the device's first request
constexpr uint32_t rkey = 0x18;      // of the TX ring (remote READ)
constexpr uint32_t va_lo = 0x1C;
constexpr uint32_t va_hi = 0x20;
constexpr uint32_t ring_bytes_lo = 0x24;
constexpr uint32_t ring_bytes_hi = 0x28;
constexpr uint32_t payload_bytes = 0x2C;   // bytes per READ (one message)
constexpr uint32_t path_mtu = 0x30;        // READ RESPONSE packet size
constexpr uint32_t notify_interval = 0x34; // a SEND WITH IMMEDIATE every N messages
constexpr uint32_t rate_num = 0x38;
constexpr uint32_t rate_den = 0x3C;
constexpr uint32_t format = 0x40;
constexpr uint32_t link_mask = 0x44;
constexpr uint32_t ctrl_rkey = 0x48;  // of the control page (remote READ)
constexpr uint32_t source_qpn = 0x4C; // ro: the device's QPN for this stream
constexpr uint32_t start_time_lo = 0x50;
constexpr uint32_t start_time_hi = 0x54;
constexpr uint32_t num_samples_lo = 0x58;
constexpr uint32_t num_samples_hi = 0x5C;
constexpr uint32_t ctrl_va_lo = 0x60;
constexpr uint32_t ctrl_va_hi = 0x64;
constexpr uint32_t max_rd_atomic = 0x68;  // READs outstanding at most, 1..16
constexpr uint32_t run = 0x6C;            // the run number of the control page
constexpr uint32_t owner_token_lo = 0x70; // as rx::owner_token_lo
constexpr uint32_t owner_token_hi = 0x74;
constexpr uint32_t owner = 0x78;
constexpr uint32_t lease_ms = 0x7C;
// Counters (ro, reset by START)
constexpr uint32_t samples_played_lo = 0x80;
constexpr uint32_t underflow_samples_lo = 0x88;
constexpr uint32_t late_zero_samples_lo = 0x90;
constexpr uint32_t reads_lo = 0x98;
constexpr uint32_t rereads_lo = 0xA0;
constexpr uint32_t lead_ns = 0xA8;
constexpr uint32_t rtt_ns = 0xAC;
constexpr uint32_t check_samples_lo = 0xB0;
constexpr uint32_t check_mismatches_lo = 0xB8;
constexpr uint32_t samples_fetched_lo = 0xC0;
constexpr uint32_t notifies_sent_lo = 0xC8;
constexpr uint32_t samples_not_played_lo = 0xD0;
constexpr uint32_t min_lead_ns = 0xD8; // rw: bounds of the adapted lead
constexpr uint32_t max_lead_ns = 0xDC;
//! TX_MAX_RD_ATOMIC's range.
constexpr uint32_t max_read_depth = 16;
//! Bytes of the control page the device reads: committed, run number.
constexpr uint32_t control_bytes = 16;
} // namespace tx
constexpr uint32_t tx_reg(unsigned t, uint32_t reg)
{
    return tx_base + t * tx_stride + reg;
}

// ---- Reserved blocks (documented in docs/register-map.md) -----------------------------
constexpr uint32_t cmdq_base = 0x4000;     // timed command queue
constexpr uint32_t metadata_base = 0x5000; // metadata channel (below)

// ---- Metadata channel (docs/metadata.md): one destination per device --------------
// Writable at any time (not latched by START). Records carry the stream index.
namespace metadata {
constexpr uint32_t dest_ipv4 = 0x00;       // rw: host IPv4 address the records go to
constexpr uint32_t dest_udp_port = 0x04;   // rw: its UDP port (1..65535)
constexpr uint32_t interval_us = 0x08;     // rw: periodic timestamp interval; 0: none
constexpr uint32_t control = 0x0C;         // rw: control::enable; other bits 0
constexpr uint32_t packets_sent_lo = 0x10; // ro 64: records put on the wire
constexpr uint32_t packets_sent_hi = 0x14;
constexpr uint32_t packets_dropped_lo =
    0x18; // ro 64: records not sent (transmit queue full)
constexpr uint32_t packets_dropped_hi = 0x1C;
constexpr uint32_t source_udp_port = 0x20; // ro: the UDP port the records leave from
namespace control_bits {
constexpr uint32_t enable = 1u << 0;
} // namespace control_bits
} // namespace metadata
constexpr uint32_t metadata_reg(uint32_t reg) { return metadata_base + reg; }
constexpr uint32_t metadata_block_bytes = 0x100;

// ---- Emulator extension (present when cap::emulator): block s per RX stream ----------
constexpr uint32_t emu_base = 0xF000;
constexpr uint32_t emu_stride = 0x100;
namespace emu {
constexpr uint32_t signal = 0x00;       // signal::*
constexpr uint32_t tone_freq_hz = 0x04; // int32, may be negative
constexpr uint32_t amplitude = 0x08;    // float32 bits, full scale 1.0
constexpr uint32_t seed = 0x0C;         // noise generator seed
// Impairments, decided per WRITE message by a counter-based generator keyed by
// (fault_seed, message index): reproducible, and a checker can recompute them.
constexpr uint32_t fault_seed = 0x10;
constexpr uint32_t loss_ppm = 0x14;       // probability that a loss burst starts, ppm
constexpr uint32_t loss_burst = 0x18;     // messages lost per burst (0 counts as 1)
constexpr uint32_t duplicate_ppm = 0x1C;  // a message is sent twice
constexpr uint32_t corrupt_ppm = 0x20;    // a payload bit flips after the ICRC
constexpr uint32_t delay_ppm = 0x24;      // a message is held back ...
constexpr uint32_t delay_messages = 0x28; // ... until this many later ones are sent
// A table of targeted faults: fault_count entries of 3 words at fault_table.
constexpr uint32_t fault_count = 0x40;
constexpr uint32_t fault_table = 0x44; // entry i: message lo, message hi, fault kind
constexpr uint32_t fault_entry_bytes = 12;
constexpr uint32_t max_faults = 8;
// Injection log (FIFO, read with READ_FIXED): 3 words per injected fault (message lo,
// message hi, kind); reads 0xFFFFFFFF when empty. Holds the last 4096 entries.
constexpr uint32_t fault_log = 0xA4;
constexpr uint32_t fault_log_level = 0xA8; // entries waiting in the log
} // namespace emu

//! What a fault does to a message (fault table, injection log).
namespace fault {
constexpr uint32_t none = 0;
constexpr uint32_t drop = 1;         // not sent
constexpr uint32_t duplicate = 2;    // sent twice
constexpr uint32_t corrupt_icrc = 3; // last ICRC byte flipped
constexpr uint32_t corrupt_payload =
    4;                           // a payload bit flipped after the ICRC was computed
constexpr uint32_t bad_rkey = 5; // RETH carries rkey + 1
constexpr uint32_t bad_va = 6;   // RETH targets the first byte past the ring
constexpr uint32_t delay = 7;    // sent after delay_messages later messages
constexpr uint32_t overflow =
    8; // not sent: the link fell behind the converter (not injected)
} // namespace fault
constexpr uint32_t emu_reg(unsigned s, uint32_t reg)
{
    return emu_base + s * emu_stride + reg;
}

// ---- Emulator TX extension (cap::emulator with cap::tx): block t per TX stream -------
// Where RX stream 8's extension block would be: a device with TX has at most 8 RX
// streams.
constexpr uint32_t emu_tx_base = 0xF800;
constexpr uint32_t emu_tx_stride = 0x100;
namespace emu_tx {
constexpr uint32_t check = 0x00;      // 1: compare every played sample with the ramp
constexpr uint32_t loss_ppm = 0x04;   // READ RESPONSE packets dropped on arrival, ppm
constexpr uint32_t fault_seed = 0x08; // seed of that generator
} // namespace emu_tx
constexpr uint32_t emu_tx_reg(unsigned t, uint32_t reg)
{
    return emu_tx_base + t * emu_tx_stride + reg;
}

//! EMU_SIGNAL values: gnuradio/rdma/test_signal.h (test_signal_kind) defines each.
namespace signal {
constexpr uint32_t ramp = 0;
constexpr uint32_t tone = 1;
constexpr uint32_t noise = 2;
constexpr uint32_t clipped_noise = 3;
constexpr uint32_t clipped_tone = 4;
constexpr uint32_t square = 5;
constexpr uint32_t extremes = 6;
} // namespace signal

} // namespace regs
} // namespace rdma
} // namespace gr

#include "ctrl_registers.h"     // map 1.5: the controller (docs/links.md)
#include "link_registers.h"     // map 1.5: several links (docs/links.md)
#include "radio_registers.h"    // map 1.3: the radio (docs/radio.md)
#include "tx_burst_registers.h" // map 1.4: TX bursts (docs/transmit.md)

#endif
