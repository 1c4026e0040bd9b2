/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_INBOUND_POLICER_H
#define INCLUDED_RDMA_EMU_INBOUND_POLICER_H

#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * What an emulated link's rate does to the frames coming back to the device
 * (docs/register-map.md, "Emulated links", EMU_LINK_RATE): a link is full duplex, so
 * the host's READ RESPONSEs have the rate to themselves, and a switch in front of the
 * device queues at most EMU_LINK_QUEUE_US of them. A virtual clock: a frame arriving
 * at \p now would leave the queue at max(now, free); it passes if that is at most
 * queue_ns after now (and moves free on by its bytes at the rate), else it is dropped.
 * The frame is not delayed (the emulator takes it as it comes): only what the rate
 * cannot carry is lost, as in the outbound queue. No clock of its own, no allocation;
 * not thread-safe.
 */
class inbound_policer
{
public:
    //! IPv4 bytes per second (0: no limit) and the queue's length. Keeps the clock.
    void configure(uint64_t bytes_per_s, int64_t queue_ns);
    uint64_t rate() const { return d_rate; }
    //! Whether a frame of \p ipv4_bytes arriving at \p now_ns passes.
    bool admit(int64_t now_ns, uint64_t ipv4_bytes);

private:
    uint64_t d_rate = 0;
    int64_t d_queue_ns = 0;
    int64_t d_free_ns = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
