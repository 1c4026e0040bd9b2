/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream ownership (docs/register-map.md, "Ownership"): claims, releases and who owns
// an RX or a TX stream. The two blocks keep these registers at the same offsets, so one
// implementation serves both directions.

#include "device_controller.h"
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

static_assert(regs::rx::owner_token_lo == regs::tx::owner_token_lo &&
              regs::rx::owner == regs::tx::owner &&
              regs::rx::lease_ms == regs::tx::lease_ms &&
              regs::rx::status == regs::tx::status &&
              regs::rx::command == regs::tx::command);

uint32_t reg_of(stream_direction dir, unsigned stream, uint32_t reg)
{
    return dir == stream_direction::rx ? regs::rx_reg(stream, reg)
                                       : regs::tx_reg(stream, reg);
}

} // namespace

const char* to_string(stream_direction d)
{
    return d == stream_direction::rx ? "RX" : "TX";
}

void device_controller::claim(stream_direction dir,
                              unsigned stream,
                              uint64_t token,
                              uint32_t lease_ms,
                              bool take_over)
{
    try {
        claim_at(reg_of(dir, stream, regs::rx::owner_token_lo),
                 reg_of(dir, stream, regs::rx::lease_ms),
                 std::string(to_string(dir)) + " stream",
                 token,
                 lease_ms,
                 take_over);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error(owned_elsewhere(dir, stream));
        throw;
    }
}

void device_controller::claim_at(uint32_t token_reg,
                                 uint32_t lease_reg,
                                 const std::string& what,
                                 uint64_t token,
                                 uint32_t lease_ms,
                                 bool take_over)
{
    if (token == 0)
        throw std::invalid_argument("a " + what + " claim token must not be 0");
    if (lease_ms < regs::lease::min_ms || lease_ms > regs::lease::max_ms)
        throw std::invalid_argument("lease of " + std::to_string(lease_ms) +
                                    " ms is invalid: expected " +
                                    std::to_string(regs::lease::min_ms) + " .. " +
                                    std::to_string(regs::lease::max_ms) + " ms");
    // One burst: the device takes the token, and the take-over, at one instant.
    const uint32_t w[3] = { regs::low_word(token),
                            regs::high_word(token),
                            regs::owner_command::take_over };
    d_client.write_atomic(token_reg, w, take_over ? 3 : 2);
    d_client.write32(lease_reg, lease_ms);
}

void device_controller::release(stream_direction dir, unsigned stream)
{
    d_client.write32(reg_of(dir, stream, regs::rx::owner), regs::owner_command::release);
}

stream_owner device_controller::read_owner(stream_direction dir, unsigned stream)
{
    switch (d_client.read32(reg_of(dir, stream, regs::rx::owner))) {
    case regs::owner_state::mine:
        return stream_owner::this_host;
    case regs::owner_state::other:
        return stream_owner::another_host;
    default:
        return stream_owner::none;
    }
}

uint32_t device_controller::read_status(stream_direction dir, unsigned stream)
{
    return d_client.read32(reg_of(dir, stream, regs::rx::status));
}

void device_controller::stop(stream_direction dir, unsigned stream)
{
    if (dir == stream_direction::rx)
        stop_rx(stream);
    else
        stop_tx(stream);
}

std::string device_controller::owned_elsewhere(stream_direction dir, unsigned stream)
{
    std::string lease;
    try {
        char text[32];
        std::snprintf(text,
                      sizeof(text),
                      "%g s",
                      d_client.read32(reg_of(dir, stream, regs::rx::lease_ms)) / 1000.0);
        lease = std::string(" (") + text + ")";
    } catch (const std::exception&) {
        // The message is still right without the figure.
    }
    return "device at " + d_address.to_string() + ": " + to_string(dir) + " stream " +
           std::to_string(stream) + " is owned by another host; wait for its lease" +
           lease + " to lapse or add take_over=1";
}

} // namespace rdma
} // namespace gr
