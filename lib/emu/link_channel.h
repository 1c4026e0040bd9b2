/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_LINK_CHANNEL_H
#define INCLUDED_RDMA_EMU_LINK_CHANNEL_H

#include "../regs/link_fields.h"
#include "inbound_policer.h"
#include "wire.h"
#include <condition_variable>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The emulated network beyond one device link (docs/register-map.md, "Emulated
 * links"): it cuts the cable, loses frames, holds them (a fixed delay, a random extra
 * delay, a rate limit with a bounded queue), in the link's order; of the frames coming
 * back it drops those beyond the rate. A wire in front of
 * the link's real wire: the RX engines send through it as through any wire.
 *
 * Unimpaired (the reset state) it passes every call straight through: no copy, no
 * thread. Once frames must be held it copies them into slots allocated then, and a
 * thread of its own ("emu-link<n>", role device) hands them on when due.
 *
 * Every frame's fate is counted, in the link's order, so that the samples of the
 * messages it cut are counted once per message (messages of one destination QP are
 * consecutive frames of one link: one engine sends them).
 */
class link_channel : public wire
{
public:
    //! Frames the link holds at most; a frame beyond is dropped (and counted).
    static constexpr size_t max_held_frames = 2048;
    //! The longest frame (UDP payload) a held slot takes.
    static constexpr size_t max_held_bytes = 4224;

    link_channel(wire& network, unsigned index);
    ~link_channel() override;
    link_channel(const link_channel&) = delete;
    link_channel& operator=(const link_channel&) = delete;

    //! EMU_LINK_DOWN .. EMU_LINK_QUEUE_US, at once; a new seed restarts the frame count.
    void configure(const regs::emu_link_values& values);
    regs::emu_link_values configuration() const;
    regs::emu_link_counters counters() const;
    //! The cable is cut (EMU_LINK_DOWN).
    bool down() const { return d_down.load(std::memory_order_acquire); }
    //! Frames held and not yet handed on (for tests).
    size_t held() const;

    socket_address local_address() const override { return d_network.local_address(); }
    uint16_t source_port() const override { return d_network.source_port(); }
    unsigned mtu() const override { return d_network.mtu(); }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override;
    //! What comes back: EMU_LINK_RATE polices it (inbound_policer), nothing else.
    size_t receive(datagram* slots, size_t count) override;
    bool icrc_ok(const datagram& d) const override { return d_network.icrc_ok(d); }

private:
    // A frame's place in the link's order: held in a slot until due, or a tombstone (a
    // frame dropped while earlier ones were held, accounted when its turn comes).
    struct entry {
        int64_t due_ns = 0;
        socket_address to;
        outgoing_packet packet; // udp_payload into its slot (none for a tombstone)
        uint32_t qpn = 0;       // its destination QP: the message it belongs to
        size_t slot = 0;
        bool dropped = false;
    };
    struct cut_flag {
        uint32_t qpn = 0;
        bool cut = false;
        bool used = false;
    };

    bool impaired_locked() const
    {
        return d_config.impaired() || d_count > 0 || d_releasing > 0;
    }
    bool lose(uint64_t frame) const;
    int64_t jitter_ns(uint64_t frame) const;
    void account(const outgoing_packet& p, uint32_t qpn, bool dropped);
    size_t forward(outgoing_packet* packets, size_t count, const socket_address& to);
    void hold(const outgoing_packet& p, const socket_address& to, int64_t now_ns);
    void drop_in_order(const outgoing_packet& p);
    void ensure_storage();
    void release_loop();

    wire& d_network;
    const unsigned d_index;
    std::atomic<bool> d_down{ false };
    std::atomic<bool> d_passthrough{ true }; // nothing impaired, nothing held
    std::atomic<bool> d_policing{ false };   // EMU_LINK_RATE set: d_inbound decides

    mutable std::mutex d_mutex;
    std::condition_variable d_wake;
    regs::emu_link_values d_config;
    regs::emu_link_counters d_counters;
    inbound_policer d_inbound;
    uint64_t d_frame = 0;       // frames decided since the seed was written
    int64_t d_rate_free_ns = 0; // when the rate lets the next frame go
    int64_t d_last_due_ns = 0;  // the link keeps its order
    std::vector<uint8_t> d_slot_memory;
    std::vector<size_t> d_free_slots;
    std::vector<entry> d_ring; // FIFO of held frames and tombstones
    size_t d_head = 0;
    size_t d_count = 0;
    size_t d_releasing = 0;           // taken from the ring, being handed on
    std::array<cut_flag, 32> d_cut{}; // per destination QP: a frame of its message cut
    bool d_stop = false;
    std::thread d_thread; // started when the first frame is held
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
