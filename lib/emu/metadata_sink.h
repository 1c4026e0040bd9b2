/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_METADATA_SINK_H
#define INCLUDED_RDMA_EMU_METADATA_SINK_H

#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * Where an RX engine reports what the host should know besides the samples: stream
 * start, progress (for periodic timestamps) and device-side events; and where a TX
 * engine sends its TX records. The device's metadata channel implements it
 * (docs/metadata.md); metadata never travels inside the sample stream. Calls come from
 * the engine's thread and must not block.
 */
class metadata_sink
{
public:
    virtual ~metadata_sink() = default;
    //! Sample 0 of a run is taken at device time \p t0_ns. A queued burst (docs/radio.md)
    //! starts too, and numbers its samples from its first item \p first_sample: later
    //! calls give sample numbers from there.
    virtual void
    stream_started(unsigned stream, uint64_t t0_ns, uint64_t first_sample = 0) = 0;
    //! \p samples samples have been produced so far (after each batch; the sink
    //! decides when to send a timestamp).
    virtual void progress(unsigned stream, uint64_t samples) = 0;
    //! A finite burst ended after \p samples samples.
    virtual void stream_ended(unsigned stream, uint64_t samples) = 0;
    //! A device-side event: \p code (docs/metadata.md), first sample, value.
    virtual void
    event(unsigned stream, uint32_t code, uint64_t sample, uint64_t value) = 0;
    //! A TX record of TX stream \p tx_stream (docs/metadata.md, "TX records"): an event
    //! with the stream byte 0x80 + tx_stream and the TX engine's own time.
    virtual void tx_event(unsigned tx_stream,
                          uint32_t code,
                          uint64_t sample,
                          uint64_t time_ns,
                          uint64_t value) = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
