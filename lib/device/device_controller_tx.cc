/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The TX stream block's registers (docs/transmit.md), as device_controller.cc does the
// RX block's.

#include "device_controller.h"
#include <stdexcept>

namespace gr {
namespace rdma {

void device_controller::configure_tx(unsigned stream, const tx_setup& s)
{
    // The whole descriptor; write_registers() leaves TX_SOURCE_QPN and the counters
    // (read-only) out. Latched at START, so several bursts are fine.
    constexpr uint32_t first = regs::span_of(regs::tx_descriptor_fields).first;
    constexpr uint32_t end = regs::span_of(regs::tx_descriptor_fields).second;
    uint32_t w[(end - first) / 4] = {};
    regs::tx_descriptor_fields.pack(s, first, w, (end - first) / 4);
    // Two parts: the ownership words (0x70..0x7C) lie between, and writing them would
    // be a claim (or a refused one).
    static_assert(first < regs::tx::owner_token_lo && regs::tx::min_lead_ns < end);
    write_registers(regs::block::tx, stream, first, regs::tx::owner_token_lo, w);
    write_registers(regs::block::tx,
                    stream,
                    regs::tx::min_lead_ns,
                    end,
                    w + (regs::tx::min_lead_ns - first) / 4);
}

void device_controller::configure_tx_emulation(unsigned stream,
                                               const regs::tx_emulation& e)
{
    constexpr uint32_t first = regs::span_of(regs::tx_emulation_fields).first;
    constexpr uint32_t end = regs::span_of(regs::tx_emulation_fields).second;
    uint32_t w[(end - first) / 4] = {};
    regs::tx_emulation_fields.pack(e, first, w, (end - first) / 4);
    write_registers(regs::block::tx_emulator, stream, first, end, w);
}

uint64_t device_controller::start_tx(unsigned stream)
{
    try {
        d_client.write32(regs::tx_reg(stream, regs::tx::command), regs::command::start);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error(owned_elsewhere(stream_direction::tx, stream));
        const uint32_t status = d_client.read32(regs::tx_reg(stream, regs::tx::status));
        const uint32_t code =
            (status & regs::status::error_mask) >> regs::status::error_shift;
        throw std::runtime_error("device at " + d_address.to_string() +
                                 " refused to start TX stream " + std::to_string(stream) +
                                 ": " + regs::describe_error(code));
    }
    return d_client.read64(regs::tx_reg(stream, regs::tx::start_time_lo));
}

void device_controller::stop_tx(unsigned stream)
{
    d_client.write32(regs::tx_reg(stream, regs::tx::command), regs::command::stop);
}

tx_device_counters device_controller::read_tx_counters(unsigned stream)
{
    tx_device_counters c;
    // Status first: counters read after a "done" or a stop are final.
    c.status = d_client.read32(regs::tx_reg(stream, regs::tx::status));
    constexpr uint32_t first = regs::span_of(regs::tx_counter_fields).first;
    constexpr uint32_t end = regs::span_of(regs::tx_counter_fields).second;
    uint32_t w[(end - first) / 4] = {};
    read_registers(regs::block::tx, stream, first, end, w);
    regs::tx_counter_fields.unpack(w, first, (end - first) / 4, c);
    return c;
}

} // namespace rdma
} // namespace gr
