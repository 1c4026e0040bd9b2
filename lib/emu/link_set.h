/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_LINK_SET_H
#define INCLUDED_RDMA_EMU_LINK_SET_H

#include "wire.h"
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

class link_channel;

/*!
 * The device's links as its streams see them (docs/register-map.md, "Several links"):
 * where each link's frames go, whether it is up (LINK_STATUS), what the host wants of
 * it (LINK_CONTROL), and a generation that moves at every change, so that a stream's
 * schedule needs one atomic load per notification window to know nothing changed.
 * Written by the register file, read by the RX engines.
 */
class link_set
{
public:
    //! \p wires[n]: where link n's frames go; \p channels[n] (may be null): its
    //! emulated network, whose cut is the link's status.
    link_set(std::vector<wire*> wires, std::vector<const link_channel*> channels = {});

    size_t size() const { return d_links.size(); }
    wire& out(unsigned n) const { return *d_links.at(n)->out; }
    //! LINK_STATUS bit 0.
    bool up(unsigned n) const;
    //! LINK_CONTROL (link_control::up or down).
    uint32_t control(unsigned n) const { return d_links.at(n)->control.load(); }
    //! A LINK_CONTROL write (up: also a rejoin request); false for other values.
    bool set_control(unsigned n, uint32_t value);
    //! LINK_CONTROL = 1 writes so far: a destination taken out by a cut rejoins after
    //! one (docs/register-map.md, "Epochs and failover").
    uint64_t rejoins(unsigned n) const { return d_links.at(n)->rejoins.load(); }
    //! LINK_DOWN_EVENTS.
    uint32_t down_events(unsigned n) const { return d_links.at(n)->down_events.load(); }
    //! The link's cable changed (its emulated network was reconfigured).
    void note_status(unsigned n);
    //! Moves at every change of any link.
    uint64_t generation() const { return d_generation.load(std::memory_order_acquire); }

private:
    struct link {
        wire* out = nullptr;
        const link_channel* channel = nullptr;
        std::atomic<uint32_t> control{ 1 };
        std::atomic<uint64_t> rejoins{ 0 };
        std::atomic<uint32_t> down_events{ 0 };
        std::atomic<bool> was_up{ true };
    };
    std::vector<std::unique_ptr<link>> d_links;
    std::atomic<uint64_t> d_generation{ 0 };
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
