/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_CTRL_SINK_H
#define INCLUDED_RDMA_EMU_CTRL_SINK_H

#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * What an RX or TX engine tells the device's controller from its own thread
 * (device_controller; docs/register-map.md, "Controller"): a state, never a change,
 * so the controller may keep the latest. Must return at once (O(1), no allocation).
 */
class ctrl_sink
{
public:
    virtual ~ctrl_sink() = default;
    //! RC: the NAKs received + packets resent so far by the stream's requester whose
    //! packets go over \p link (one per destination), when it changed.
    virtual void naks(unsigned stream, unsigned link, uint64_t count) = 0;
    //! TX stream \p t's sample READs sent again so far (TX_REREADS), when it changed.
    virtual void rereads(unsigned t, uint64_t count) = 0;
    //! RC: the smoothed RTT \p ns that destination \p d of stream \p stream measured
    //! from its ACKs, over link \p link, when it has a new sample.
    virtual void
    rtt(unsigned /*stream*/, unsigned /*d*/, unsigned /*link*/, uint32_t /*ns*/)
    {
    }
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
