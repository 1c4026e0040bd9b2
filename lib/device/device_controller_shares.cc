/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Several hosts (docs/links.md, "Several hosts"; docs/register-map.md, "Shares"): the
// share blocks of an RX stream, claimed by the hosts that take its other shares.

#include "device_controller.h"
#include <stdexcept>

namespace gr {
namespace rdma {

void device_controller::claim_share(
    unsigned stream, unsigned share, uint64_t token, uint32_t lease_ms, bool take_over)
{
    if (share == 0)
        throw std::invalid_argument(
            "share 0 of a stream is its owner's: claim the stream (claim_rx)");
    const std::string what =
        "share " + std::to_string(share) + " of RX stream " + std::to_string(stream);
    try {
        claim_at(regs::rx_share_reg(stream, share, regs::share::token_lo),
                 regs::rx_share_reg(stream, share, regs::share::lease_ms),
                 what,
                 token,
                 lease_ms,
                 take_over);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error("device at " + d_address.to_string() + ": " + what +
                                     " is held by another host; wait for its lease "
                                     "to lapse or add take_over=1");
        if (e.code() == axioe::status::slverr)
            throw std::runtime_error(
                "device at " + d_address.to_string() + " refused to give " + what +
                ": the stream is not split into that many shares (RX_SHARES)");
        throw;
    }
}

void device_controller::release_share(unsigned stream, unsigned share)
{
    d_client.write32(regs::rx_share_reg(stream, share, regs::share::owner),
                     regs::owner_command::release);
}

uint32_t device_controller::read_share_ready(unsigned stream)
{
    return d_client.read32(regs::rx_reg(stream, regs::rx::share_ready));
}

uint64_t device_controller::read_share_emitted(unsigned stream, unsigned share)
{
    return d_client.read64(
        regs::rx_share_reg(stream, share, regs::share::samples_emitted_lo));
}

uint64_t device_controller::read_share_start_time(unsigned stream, unsigned share)
{
    return d_client.read64(regs::rx_share_reg(stream, share, regs::share::start_time_lo));
}

} // namespace rdma
} // namespace gr
