/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_DESTINATION_TABLE_H
#define INCLUDED_RDMA_EMU_DESTINATION_TABLE_H

#include "../regs/link_fields.h"
#include "../regs/link_schedule.h"
#include "link_set.h"
#include "packetizer.h"
#include "rx_descriptor.h"
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The destinations of one run of an RX stream, and its schedule: the device side of
 * docs/links.md (docs/register-map.md, "Several links"). For each message, in order,
 * it picks the destination (regs::link_schedule, the class the host computes with
 * too), assigns the destination's next PSNs, its address and whether the message is
 * its last in the notification window (immediate data); at window boundaries it
 * begins the epochs that the links' changes and weight writes ask for, and keeps
 * them for the register file (the epoch block).
 *
 * Shares (several hosts, docs/register-map.md "Shares"): stream message m belongs to
 * share h and is its local message i; each share has a schedule of its own over its
 * own destinations, in local indices (the ring slot, the immediate, the windows and a
 * burst's end are i's), and the epochs are common: share 0 schedules every local
 * index first, so an epoch begins when share 0 reaches a window boundary. With one
 * share, i = m: the single-host rule.
 *
 * route() and poll() run on the engine's thread; the register file reads counters and
 * epochs and writes weights from its own: those are atomics, or behind a mutex that
 * only an epoch change takes on the engine's side.
 */
class destination_table : public message_router
{
public:
    static constexpr unsigned max_destinations = regs::link_schedule::max_destinations;
    static constexpr unsigned kept_epochs = regs::link_schedule::max_epochs;
    static_assert(kept_epochs == regs::epoch::emulator_kept, "EPOCH_KEPT");

    /*!
     * Why \p d's destinations cannot be streamed (regs::error_code; none: they can),
     * over \p links (null: one link, whose MTU \p link0_mtu the RX block's check used).
     */
    static uint32_t validate(const rx_descriptor& d, const link_set* links);
    /*!
     * RX_SHARE_READY of \p d over \p links (null: every link up): bit h (h <
     * d.shares) when share h has a used destination (QPN non-zero) that may be active
     * (a weight, its link up and not declared down).
     */
    static uint32_t ready_shares(const rx_descriptor& d, const link_set* links);

    //! A run of \p d (validated) over \p links (null: every destination's frames go to
    //! \p fallback). Begins epoch 0.
    destination_table(const rx_descriptor& d, const link_set* links, wire& fallback);

    //! Several destinations (or shares) are used: every message is routed.
    bool routing() const { return d_routing; }
    message_route route(uint64_t message, size_t packets, uint64_t end) override;
    //! The run's messages below \p scheduled have left the converter's queue (sent or
    //! dropped): a stream of one destination counts them here instead of routing them,
    //! and notes its links' changes.
    void poll(uint64_t scheduled);

    wire& wire_of(unsigned d) const { return *d_wire[d]; }
    const socket_address& address_of(unsigned d) const { return d_dest[d].destination; }

    //! DST_MESSAGES and DST_STATE of destination \p d.
    regs::destination_counters counters(unsigned d) const;
    uint32_t epoch_count() const { return d_epoch_count.load(); }
    uint64_t scheduled() const { return d_scheduled.load(); }
    //! Entry \p j of the epoch block (epoch k is entry k mod kept_epochs).
    regs::epoch_values epoch_entry(unsigned j) const;
    //! DST_WEIGHT written while the run goes on: the next window boundary begins an
    //! epoch with it. False (SLVERR) above dst::max_weight, for a destination not used,
    //! or when the used weights would add up to 0 or beyond the schedule's period.
    bool set_weight(unsigned d, uint32_t weight);
    //! Every used destination's weight at once (the controller's policy): one request,
    //! the same epoch as set_weight's, under the same rules; unused ones are ignored.
    bool set_weights(const std::array<uint16_t, max_destinations>& weights);
    //! The weight wanted for \p d (as written, by the host or the controller).
    uint32_t weight(unsigned d) const { return d_weight.at(d).load(); }

private:
    using weights_type = std::array<uint16_t, max_destinations>;
    void look_at_links();
    weights_type wanted() const;
    //! \p w with the destinations of shares other than \p h at 0.
    weights_type of_share(const weights_type& w, unsigned h) const;
    //! Whether every share has 1..max_period of \p w (used destinations only, with
    //! \p used_only).
    bool every_share_has(const weights_type& w, bool used_only) const;
    void begin_epoch(uint64_t first, const weights_type& w);
    void maybe_begin_epoch(uint64_t message);
    void record_epoch(uint64_t first,
                      const std::array<uint16_t, max_destinations>& weights,
                      uint32_t cause,
                      uint32_t link);
    void publish_states();

    const link_set* const d_links;
    const uint32_t d_notify;
    const uint32_t d_payload;
    const uint64_t d_first;             // RX_FIRST_MESSAGE: epoch 0 begins there
    const regs::link_schedule d_layout; // the shares: share_of(), local_index()
    std::array<uint8_t, max_destinations> d_share{}; // DST_SHARE (none: 0xFF)
    std::array<regs::destination_values, max_destinations> d_dest{};
    std::array<wire*, max_destinations> d_wire{};
    std::array<bool, max_destinations> d_used{};
    unsigned d_used_count = 0;
    bool d_routing = false;

    // The engine thread's: each share's schedule, in its local indices.
    std::array<regs::link_schedule, regs::max_shares> d_schedule;
    std::array<uint32_t, max_destinations> d_next_psn{};
    std::array<uint64_t, max_destinations> d_slots{}; // ring messages per destination
    std::array<bool, max_destinations> d_device_down{};
    std::array<uint64_t, max_destinations> d_rejoins_seen{};
    std::array<uint16_t, max_destinations> d_current{};
    std::array<uint64_t, kept_epochs> d_epoch_first{};
    std::array<uint64_t, regs::max_shares> d_local_next{}; // each share's next local
    // The spacing of kept epochs: the ring of each share's first destination (share
    // 0: destination 0), in messages.
    std::array<uint64_t, regs::max_shares> d_share_ring{};
    uint64_t d_generation_seen = 0;
    uint64_t d_weights_seen = 0;
    uint32_t d_pending_cause = regs::epoch::cause_code::start;
    uint32_t d_pending_link = 0;
    std::array<uint32_t, 16> d_control_seen{};
    std::array<bool, 16> d_up_seen{};
    std::array<uint64_t, 16> d_link_rejoins_seen{};

    // Shared with the register file.
    std::array<std::atomic<uint32_t>, max_destinations> d_weight{};
    std::atomic<uint64_t> d_weight_writes{ 0 };
    std::array<std::atomic<uint64_t>, max_destinations> d_messages{};
    std::array<std::atomic<uint32_t>, max_destinations> d_state{};
    std::atomic<uint32_t> d_epoch_count{ 0 };
    std::atomic<uint64_t> d_scheduled{ 0 };
    mutable std::mutex d_epoch_mutex;
    std::array<regs::epoch_values, kept_epochs> d_entries{};
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
