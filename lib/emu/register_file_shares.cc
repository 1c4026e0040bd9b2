/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register file's shares (docs/register-map.md, "Shares"): one RX stream split
// between several hosts. RX_SHARES, RX_SHARE_BLOCK and RX_SHARE_READY in the RX block,
// DST_SHARE, and the share blocks: each share h >= 1 has an owner by the protocol of
// the streams (register_file_ownership.cc), which owns the share's destinations.

#include "register_file.h"

namespace gr {
namespace rdma {
namespace emu {

using axioe::status;
using regs::block;

unsigned register_file::shares_of(unsigned s) const
{
    return shares_present() ? d_rx_words[s][regs::rx::shares / 4] : 1;
}

uint32_t register_file::share_ready(unsigned s) const
{
    // From the registers as they are now, by START's own rule (error 13).
    return destination_table::ready_shares(rx_descriptor_of(s), d_link_states);
}

unsigned register_file::share_slot(unsigned s, unsigned h) const
{
    return static_cast<unsigned>(d_engines.size() + d_tx.size()) + s * regs::max_shares +
           h;
}

bool register_file::any_share_owned(unsigned s) const
{
    for (unsigned h = 1; h < regs::max_shares; h++)
        if (d_owners[share_slot(s, h)].owned)
            return true;
    return false;
}

unsigned register_file::destination_slot(unsigned s, unsigned d) const
{
    // A share's destinations are its owner's while it is owned, else the stream's.
    const uint32_t h = regs::share_of_destination(d, shares_of(s));
    if (shares_present() && h != regs::share_none && h > 0 &&
        d_owners[share_slot(s, h)].owned)
        return share_slot(s, h);
    return s;
}

status register_file::read_share(const socket_address& client,
                                 const regs::decoded_address& a,
                                 const snapshot& snap,
                                 uint32_t& value) const
{
    const unsigned s = a.index / regs::max_shares;
    const unsigned h = a.index % regs::max_shares;
    const owner& o = d_owners[share_slot(s, h)];
    if (a.offset == regs::share::owner) {
        value = !o.owned             ? regs::owner_state::unowned
                : o.client == client ? regs::owner_state::mine
                                     : regs::owner_state::other;
        return status::okay;
    }
    if (a.offset == regs::share::lease_ms) {
        value = o.lease_ms;
        return status::okay;
    }
    // The 64-bit counters, low word first.
    const uint64_t v = a.offset < regs::share::start_time_lo
                           ? d_engines[s]->share_samples_emitted(h)
                           : snap.start_time_ns[s];
    value = a.offset % 8 ? regs::high_word(v) : regs::low_word(v);
    return status::okay;
}

status register_file::write_share(const regs::decoded_address& a, uint32_t value)
{
    // Claims and releases went to write_owner(): what is left is the lease.
    owner& o =
        d_owners[share_slot(a.index / regs::max_shares, a.index % regs::max_shares)];
    if (a.offset != regs::share::lease_ms || !o.owned || value < regs::lease::min_ms ||
        value > regs::lease::max_ms)
        return status::slverr;
    o.lease_ms = value;
    return status::okay;
}

status register_file::write_share_layout(unsigned s, uint32_t reg, uint32_t value)
{
    // The layout must not change under a host that claimed a share, nor during a run.
    const uint32_t most =
        reg == regs::rx::shares ? regs::max_shares : regs::max_share_block;
    if (value < 1 || value > most || any_share_owned(s) ||
        (d_engines[s]->status() & regs::status::running))
        return status::slverr;
    d_rx_words[s][reg / 4] = value;
    return status::okay;
}

void register_file::reset_share_destinations(unsigned s, unsigned h)
{
    const unsigned per = regs::destinations_per_share(shares_of(s));
    for (unsigned d = h * per; d < (h + 1) * per && d < regs::rx_dest_per_stream; d++)
        if (d > 0) // destination 0 is share 0's, and aliases the RX block
            d_dest_words[s * regs::rx_dest_per_stream + d] = fresh_destination();
}

void register_file::free_share(unsigned slot, uint32_t how)
{
    const unsigned at = slot - share_slot(0, 0);
    const unsigned s = at / regs::max_shares, h = at % regs::max_shares;
    // Its host left: the device must not write into its ring any longer.
    if (d_engines[s]->status() & regs::status::running) {
        d_engines[s]->stop(regs::stop_cause::make(regs::stop_cause::share_left, h, how));
        if (d_controller)
            d_controller->stream_stopped(s);
    }
    reset_share_destinations(s, h);
    d_owners[slot] = owner{};
    // The last host of a share of a stream nobody owns: the layout goes back to its
    // reset value, so that the next host of the whole stream finds one share.
    if (!d_owners[s].owned && !any_share_owned(s)) {
        d_rx_words[s][regs::rx::shares / 4] = 1;
        d_rx_words[s][regs::rx::share_block / 4] = regs::default_share_block;
    }
}

register_file::kept_shares register_file::keep_owned_shares(unsigned s) const
{
    kept_shares k;
    k.shares = shares_of(s);
    k.block = d_rx_words[s][regs::rx::share_block / 4];
    const unsigned per = regs::destinations_per_share(k.shares);
    for (unsigned h = 1; h < regs::max_shares; h++) {
        k.owned[h] = d_owners[share_slot(s, h)].owned;
        for (unsigned d = h * per; k.owned[h] && d < (h + 1) * per; d++)
            k.words[d] = d_dest_words[s * regs::rx_dest_per_stream + d];
    }
    return k;
}

void register_file::restore_owned_shares(unsigned s, const kept_shares& k)
{
    bool any = false;
    const unsigned per = regs::destinations_per_share(k.shares);
    for (unsigned h = 1; h < regs::max_shares; h++) {
        any = any || k.owned[h];
        for (unsigned d = h * per; k.owned[h] && d < (h + 1) * per; d++)
            d_dest_words[s * regs::rx_dest_per_stream + d] = k.words[d];
    }
    if (!any)
        return;
    d_rx_words[s][regs::rx::shares / 4] = k.shares;
    d_rx_words[s][regs::rx::share_block / 4] = k.block;
}

} // namespace emu
} // namespace rdma
} // namespace gr
