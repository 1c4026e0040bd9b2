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
    // Map 1.4's counters: a device without CAP_TX_BURSTS answers DECERR there.
    if (d_capabilities & regs::cap::tx_bursts) {
        constexpr uint32_t first2 = regs::span_of(regs::tx_burst_counter_fields).first;
        constexpr uint32_t end2 = regs::span_of(regs::tx_burst_counter_fields).second;
        uint32_t w2[(end2 - first2) / 4] = {};
        read_registers(regs::block::tx, stream, first2, end2, w2);
        regs::tx_burst_counter_fields.unpack(w2, first2, (end2 - first2) / 4, c);
        c.has_burst_counters = true;
    }
    return c;
}

void device_controller::push_tx_entry(unsigned stream,
                                      uint32_t op,
                                      uint64_t item,
                                      uint64_t time_ns)
{
    // TBQ_TIME, TBQ_ITEM, TBQ_RESERVED (0) and TBQ_PUSH at one instant: a push is
    // never split (another client's entry could not come between, and a refused
    // burst queues nothing).
    const std::string what = "device at " + d_address.to_string() + ", TX stream " +
                             std::to_string(stream) + ": ";
    if (d_client.max_burst_words() < regs::tbq::push_words)
        throw std::runtime_error(
            what + "the device takes at most " +
            std::to_string(d_client.max_burst_words()) +
            " word(s) per AXIoE burst (ID_MAX_BURST_WORDS); a TX burst entry needs " +
            std::to_string(regs::tbq::push_words));
    const uint32_t words[regs::tbq::push_words] = { regs::low_word(time_ns),
                                                    regs::high_word(time_ns),
                                                    regs::low_word(item),
                                                    regs::high_word(item),
                                                    0,
                                                    0,
                                                    op };
    try {
        d_client.write_atomic(
            regs::tbq_reg(stream, regs::tbq::time_lo), words, regs::tbq::push_words);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error(what + "the stream belongs to another host");
        if (e.code() != axioe::status::slverr)
            throw;
        const uint32_t code = read_tx_burst_status(stream).error;
        const char* kind = op == regs::tbq::op::start ? "START" : "END";
        throw tx_burst_refused(what + "the device refused " + kind + " at item " +
                                   std::to_string(item) + ": " +
                                   regs::tbq::describe_error(code),
                               code);
    }
}

void device_controller::push_tx_start(unsigned stream,
                                      uint64_t first_item,
                                      uint64_t time_ns)
{
    push_tx_entry(stream, regs::tbq::op::start, first_item, time_ns);
}

void device_controller::push_tx_end(unsigned stream, uint64_t end_item)
{
    push_tx_entry(stream, regs::tbq::op::end, end_item, 0);
}

void device_controller::clear_tx_bursts(unsigned stream)
{
    try {
        d_client.write32(regs::tbq_reg(stream, regs::tbq::push), regs::tbq::op::clear);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error("device at " + d_address.to_string() +
                                     ": TX stream " + std::to_string(stream) +
                                     " belongs to another host");
        throw;
    }
}

tx_burst_queue_status device_controller::read_tx_burst_status(unsigned stream)
{
    const uint32_t st = d_client.read32(regs::tbq_reg(stream, regs::tbq::status));
    tx_burst_queue_status s;
    s.queued = regs::tbq::queued(st);
    s.capacity = regs::tbq::capacity(st);
    s.error = regs::tbq::last_error(st);
    return s;
}

} // namespace rdma
} // namespace gr
