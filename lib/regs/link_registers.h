/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_LINK_REGISTERS_H
#define INCLUDED_RDMA_REGS_LINK_REGISTERS_H

#include <cstdint>

/*
 * Register map 1.5: one stream over several links (docs/links.md; the registers in
 * docs/register-map.md, "Several links"): the link block's control and capacity, the
 * destinations of each RX stream, its epochs (schedule changes), and the emulator's
 * emulated links. Included by register_map.h.
 */

namespace gr {
namespace rdma {
namespace regs {

namespace cap {
//! Destinations (0x7000), epochs (0xB000), LINK_CONTROL .. LINK_CAPACITY, and with
//! cap::emulator the emulated links (0xE400).
constexpr uint32_t multi_link = 1u << 14;
//! Several hosts: RX_SHARES .. RX_SHARE_READY, DST_SHARE and the share blocks (0x9000);
//! set only with multi_link.
constexpr uint32_t shares = 1u << 15;
//! A run over several destinations may continue a stream: RX_FIRST_MESSAGE any
//! multiple of RX_NOTIFY_INTERVAL, its epoch 0 beginning there (docs/register-map.md,
//! "Continuing a stream over several destinations"); set only with multi_link and
//! cap::burst_queue. Without it such a run starts at message 0.
constexpr uint32_t links_continue = 1u << 17;
//! RC over several destinations (docs/links.md, "RC over several links"): START takes
//! RX_TRANSPORT 1 with several destinations, each its own requester on its own device
//! QP, and the RC block of each destination (0x8000) is present; set only with
//! multi_link and cap::rx_rc.
constexpr uint32_t rc_links = 1u << 18;
} // namespace cap

// ---- Link n, map 1.5 additions (cap::multi_link)
// ---------------------------------------
namespace link {
constexpr uint32_t control = 0x38;     // rw: link_control::*
constexpr uint32_t down_events = 0x3C; // ro: times the link went out of the schedules
constexpr uint32_t capacity_lo = 0x40; // ro 64: bytes per second it carries; 0 unknown
} // namespace link

//! LINK_CONTROL values.
namespace link_control {
constexpr uint32_t up = 1;   // the host wants the link used (written: a rejoin request)
constexpr uint32_t down = 2; // the host declared it down: no stream schedules on it
} // namespace link_control

// ---- RX stream s, destination d at rx_dest_reg(s, d, offset)
// --------------------------- Destination 0's address registers (DST_IPV4 ..
// DST_RING_BYTES) are the RX block's RX_DEST_IPV4 .. RX_RING_BYTES: a host that programs
// only the RX block streams as in map 1.4.
constexpr uint32_t rx_dest_base = 0x7000;
constexpr uint32_t rx_dest_stride = 0x40;  // per destination
constexpr uint32_t rx_dest_per_stream = 8; // destinations of one stream
constexpr uint32_t rx_dest_stream_stride = 0x200;
namespace dst {
constexpr uint32_t ipv4 = 0x00;
constexpr uint32_t udp_port = 0x04;
constexpr uint32_t qpn = 0x08; // 0: the destination is not used (d >= 1)
constexpr uint32_t start_psn = 0x0C;
constexpr uint32_t rkey = 0x10;
constexpr uint32_t va_lo = 0x14;         // 64
constexpr uint32_t ring_bytes_lo = 0x1C; // 64
constexpr uint32_t link = 0x24;
constexpr uint32_t weight = 0x28; // not latched: a write while running opens an epoch
constexpr uint32_t share = 0x2C;  // ro (cap::shares): share_of_destination()
constexpr uint32_t messages_lo = 0x30; // ro 64
constexpr uint32_t state = 0x38;       // ro: state_bits
//! rw (cap::multi_link | cap::rate_control), not latched: the host's measure of the
//! path to the destination, ns (0: none); the controller's RTT of its link.
constexpr uint32_t path_ns = 0x3C;
//! The RX block offset that destination 0's DST_IPV4 .. DST_RING_BYTES alias.
constexpr uint32_t rx_alias_offset = 0x08;
constexpr uint32_t alias_end = 0x24; // DST_LINK and above are the destination's own
//! The largest DST_WEIGHT.
constexpr uint32_t max_weight = 65535;
namespace state_bits {
constexpr uint32_t active = 1u << 0;      // takes messages in the current epoch
constexpr uint32_t device_down = 1u << 1; // its link went down (latched until rejoin)
constexpr uint32_t host_down = 1u << 2;   // its link's LINK_CONTROL is 2
constexpr uint32_t used = 1u << 3;        // programmed at START (QPN non-zero)
} // namespace state_bits
} // namespace dst
constexpr uint32_t rx_dest_reg(unsigned s, unsigned d, uint32_t offset)
{
    return rx_dest_base + s * rx_dest_stream_stride + d * rx_dest_stride + offset;
}

// ---- RX stream s, destination d's RC requester at rx_dest_rc_reg(s, d, offset)
// (cap::rc_links): what the device's QP of the destination is and has measured. Laid
// out as the destinations (0x7000), 0x1000 above them.
constexpr uint32_t rx_dest_rc_base = 0x8000;
namespace dst_rc {
//! ro, device: the QP destination d sends from, the host QP's remote QPN and the DestQP
//! of its ACK/NAKs; destination 0's is RX_SOURCE_QPN.
constexpr uint32_t source_qpn = 0x00;
constexpr uint32_t rtt_ns = 0x04;         // ro: smoothed RTT from its ACKs; 0: none yet
constexpr uint32_t rtt_samples = 0x08;    // ro: ACKs that gave an RTT sample
constexpr uint32_t retransmits_lo = 0x10; // ro 64: packets it sent again
constexpr uint32_t naks_lo = 0x18;        // ro 64: NAKs of its packets received
constexpr uint32_t abandoned_lo = 0x20;   // ro 64: packets it gave up on
constexpr uint32_t end = 0x28;            // 0x0C and 0x28 .. 0x3C: no register (DECERR)
} // namespace dst_rc
constexpr uint32_t rx_dest_rc_reg(unsigned s, unsigned d, uint32_t offset)
{
    return rx_dest_rc_base + s * rx_dest_stream_stride + d * rx_dest_stride + offset;
}

// ---- RX stream s, its epochs at epoch_reg(s, offset)
// ----------------------------------- An epoch is a change of the schedule: from local
// message EPOCH_FIRST on, the destinations take messages by EPOCH_WEIGHTS
// (docs/links.md). The device keeps the last EPOCH_KEPT; epoch k is entry k mod
// EPOCH_KEPT.
constexpr uint32_t epoch_base = 0xB000;
constexpr uint32_t epoch_stride = 0x100;
namespace epoch {
constexpr uint32_t count = 0x00;        // ro: epochs begun in the run (0 before START)
constexpr uint32_t kept = 0x04;         // ro: entries the device keeps (the emulator 4)
constexpr uint32_t scheduled_lo = 0x08; // ro 64: local messages scheduled so far
constexpr uint32_t entries = 0x10;      // entry j at entries + j * entry_bytes
constexpr uint32_t entry_bytes = 0x20;
constexpr uint32_t entry_words = 8; // FIRST (2), NUMBER, CAUSE, WEIGHTS (4)
// Within an entry:
constexpr uint32_t first_lo = 0x00; // ro 64: its first local message
constexpr uint32_t number = 0x08;   // ro: k; all ones: the entry holds none yet
constexpr uint32_t cause = 0x0C;    // ro: bits 7..0 cause::*, 15..8 the link
constexpr uint32_t weights = 0x10;  // ro 32x4: destination 2i bits 15..0, 2i+1 31..16
constexpr uint32_t emulator_kept = 4;
constexpr uint32_t none = 0xFFFFFFFF;
namespace cause_code {
constexpr uint32_t start = 0;     // START: epoch 0
constexpr uint32_t link_down = 1; // the link's status fell (the device saw it)
constexpr uint32_t host_down = 2; // LINK_CONTROL = 2
constexpr uint32_t link_up = 3;   // LINK_CONTROL = 1 on an up link: rejoin
constexpr uint32_t weights = 4;   // a DST_WEIGHT written while the stream runs
} // namespace cause_code
} // namespace epoch
constexpr uint32_t epoch_reg(unsigned s, uint32_t offset)
{
    return epoch_base + s * epoch_stride + offset;
}
constexpr uint32_t epoch_entry_reg(unsigned s, unsigned j, uint32_t offset)
{
    return epoch_reg(s, epoch::entries + j * epoch::entry_bytes + offset);
}

// ---- The emulator's link n at emu_link_reg(n, offset) (cap::emulator, multi_link)
// ------ What the emulated network does to the frames of link n: not latched,
// device-wide.
constexpr uint32_t emu_link_base = 0xE400;
constexpr uint32_t emu_link_stride = 0x40;
namespace emu_link {
constexpr uint32_t down = 0x00;       // rw: 1 every frame dropped, LINK_STATUS down
constexpr uint32_t loss_ppm = 0x04;   // rw: frames dropped per million
constexpr uint32_t delay_us = 0x08;   // rw: every frame held this long (order kept)
constexpr uint32_t reorder_us = 0x0C; // rw: and a random 0..this much longer
constexpr uint32_t rate_lo = 0x10;    // rw 64: bytes per second at most; 0 none
constexpr uint32_t seed = 0x18;       // rw: seed of the loss and reorder generators
constexpr uint32_t queue_us = 0x1C;   // rw: longest wait for the rate before a drop
constexpr uint32_t frames_dropped_lo = 0x20;  // ro 64
constexpr uint32_t samples_dropped_lo = 0x28; // ro 64
constexpr uint32_t frames_delayed_lo = 0x30;  // ro 64
constexpr uint32_t frames_passed_lo = 0x38;   // ro 64
constexpr uint32_t max_delay_us = 100000;
constexpr uint32_t max_queue_us = 100000;
} // namespace emu_link
constexpr uint32_t emu_link_reg(unsigned n, uint32_t offset)
{
    return emu_link_base + n * emu_link_stride + offset;
}

// ---- Several hosts (cap::shares; docs/register-map.md, "Shares")
// ----------------------- One RX stream's messages split into H shares of B-message
// blocks, each share the messages of one host (regs::link_schedule::share_of).
namespace rx {
constexpr uint32_t shares = 0xE0;      // rw, latched: H, 1..8
constexpr uint32_t share_block = 0xE4; // rw, latched: B messages, 1..65536
constexpr uint32_t share_ready = 0xE8; // ro: bit h, share h may be streamed to
} // namespace rx
constexpr uint32_t max_shares = 8;
constexpr uint32_t max_share_block = 65536;
constexpr uint32_t default_share_block = 16;
//! Destinations per share with \p shares shares: share h owns h·D .. h·D + D - 1.
constexpr unsigned destinations_per_share(unsigned shares)
{
    return shares ? rx_dest_per_stream / shares : rx_dest_per_stream;
}
//! DST_SHARE of destination \p d: its share, or share_none (no share: refused if used).
constexpr uint32_t share_none = 0xFFFFFFFF;
constexpr uint32_t share_of_destination(unsigned d, unsigned shares)
{
    const unsigned per = destinations_per_share(shares);
    return d < per * shares ? d / per : share_none;
}
//! Share h of RX stream s at rx_share_reg(s, h, offset): its owner (offsets 0x00-0x0C
//! are RX_OWNER_TOKEN .. RX_LEASE_MS's, 0x70 lower; share 0's answer DECERR: share 0 is
//! the stream owner's) and its counters.
constexpr uint32_t rx_share_base = 0x9000;
constexpr uint32_t rx_share_stride = 0x20;
constexpr uint32_t rx_share_stream_stride = 0x100;
namespace share {
constexpr uint32_t token_lo = 0x00; // wo 64: a claim, as rx::owner_token_lo
constexpr uint32_t token_hi = 0x04;
constexpr uint32_t owner = 0x08;    // rw: owner_state / owner_command, as rx::owner
constexpr uint32_t lease_ms = 0x0C; // rw: as rx::lease_ms
constexpr uint32_t samples_emitted_lo = 0x10; // ro 64: of the share's messages
constexpr uint32_t start_time_lo = 0x18;      // ro 64: the run's RX_START_TIME as used
//! Share offset + this = the RX block offset of the same ownership register.
constexpr uint32_t rx_owner_offset = 0x70;
constexpr uint32_t owner_end = 0x10; // share 0 has none of 0x00 .. owner_end
} // namespace share
constexpr uint32_t rx_share_reg(unsigned s, unsigned h, uint32_t offset)
{
    return rx_share_base + s * rx_share_stream_stride + h * rx_share_stride + offset;
}

namespace error_code {
//! Several hosts: a share h < RX_SHARES has no used destination that may be active.
constexpr uint32_t share_not_ready = 13;
//! Several destinations (DST_QPN of a destination above 0 non-zero) need UC, a run
//! not queued that starts at message 0 (cap::links_continue: RX_FIRST_MESSAGE a
//! multiple of RX_NOTIFY_INTERVAL, with one share) and weights of the
//! destinations that may be active adding up to 1..1024; with RX_SHARES > 1 the same
//! for every stream (one destination per share too), each share's weights 1..1024,
//! and no used destination outside the shares.
constexpr uint32_t bad_destinations = 14;
} // namespace error_code

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
