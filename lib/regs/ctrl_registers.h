/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_CTRL_REGISTERS_H
#define INCLUDED_RDMA_REGS_CTRL_REGISTERS_H

#include <cstdint>

/*
 * Map 1.5, cap::rate_control: the device's controller (docs/links.md, "Software
 * control of the data path"; the registers in docs/register-map.md, "Controller"). A
 * policy, the loop's period, its counters, and per RX stream the host's rate limit and
 * the rate the device holds the stream to. Included by register_map.h.
 */

namespace gr {
namespace rdma {
namespace regs {

namespace cap {
//! The controller block (0xA000): CTRL_*, RX_RATE_LIMIT, CTRL_RATE (and with cap::tx
//! TX_RATE_LIMIT, CTRL_TX_RATE).
constexpr uint32_t rate_control = 1u << 16;
} // namespace cap

constexpr uint32_t ctrl_base = 0xA000;
constexpr uint32_t ctrl_block_bytes = 0x100;
namespace ctrl {
constexpr uint32_t policy = 0x00;       // rw: ctrl_policy::*
constexpr uint32_t period_us = 0x04;    // rw: 1 .. max_period_us
constexpr uint32_t events_lo = 0x08;    // ro 64: events that arrived
constexpr uint32_t coalesced_lo = 0x10; // ro 64: of those, replaced while pending
constexpr uint32_t runs_lo = 0x18;      // ro 64: runs of the loop
constexpr uint32_t nak_cuts_lo = 0x20;  // ro 64: runs that cut a link for new NAKs
//! With cap::tx, ro 64: runs that cut a link's READ RESPONSEs for new re-reads.
constexpr uint32_t tx_nak_cuts_lo = 0x28;
//! With cap::tx: TX_RATE_LIMIT of TX stream t at tx_rate_limit + 4 t (rw, KiB/s of
//! sample bytes READ; 0 none), CTRL_TX_RATE at tx_rate + 4 t (ro: what the device
//! holds its READs to).
constexpr uint32_t tx_rate_limit = 0x40;
constexpr uint32_t tx_rate = 0x60;
constexpr uint32_t max_tx_streams = 8;
//! RX_RATE_LIMIT of stream s at rate_limit + 4 s (rw, KiB/s of sample bytes; 0 none).
constexpr uint32_t rate_limit = 0x80;
//! CTRL_RATE of stream s at rate + 4 s (ro, KiB/s: what the device holds it to).
constexpr uint32_t rate = 0xC0;
constexpr uint32_t max_streams = 16;
constexpr uint32_t default_period_us = 1000;
constexpr uint32_t max_period_us = 1000000;
//! The rate registers count in units of this many bytes per second.
constexpr uint64_t rate_unit = 1024;
} // namespace ctrl
//! CTRL_POLICY values.
namespace ctrl_policy {
constexpr uint32_t none = 0;          // weights and limits as the host wrote them
constexpr uint32_t water_filling = 1; // max-min fair rates over the links
constexpr uint32_t shortest_rtt = 2;  // weights proportional to 1 / RTT
} // namespace ctrl_policy
constexpr uint32_t ctrl_rate_limit_reg(unsigned s)
{
    return ctrl_base + ctrl::rate_limit + 4 * s;
}
constexpr uint32_t ctrl_rate_reg(unsigned s) { return ctrl_base + ctrl::rate + 4 * s; }
constexpr uint32_t ctrl_tx_rate_limit_reg(unsigned t)
{
    return ctrl_base + ctrl::tx_rate_limit + 4 * t;
}
constexpr uint32_t ctrl_tx_rate_reg(unsigned t)
{
    return ctrl_base + ctrl::tx_rate + 4 * t;
}

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
