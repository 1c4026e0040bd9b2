/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_DESCRIPTOR_H
#define INCLUDED_RDMA_EMU_TX_DESCRIPTOR_H

#include "../regs/register_fields.h"
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! The device's QPN for TX stream \p stream: the host TX QP's remote QPN, and the
//! DestQP of the READ RESPONSEs and ACK/NAKs the host sends back (TX_SOURCE_QPN).
constexpr uint32_t tx_source_qpn(unsigned stream) { return 0x200 + stream; }

//! A TX stream descriptor as the host programs it (the TX block, docs/transmit.md),
//! and the emulator's TX extension block.
struct tx_descriptor : regs::tx_descriptor {
    regs::tx_emulation emulation;
    //! Queued mode: TX_NUM_SAMPLES all ones on a device with cap::tx_bursts (the
    //! register file decides; else all ones is a finite burst).
    bool queued = false;
};

//! Why \p d cannot be streamed over a link of \p link_mtu bytes (regs::error_code).
uint32_t validate(const tx_descriptor& d, unsigned link_mtu);

//! What a TX engine did in the current run: the TX block's counters.
using tx_counters = regs::tx_counters;

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
