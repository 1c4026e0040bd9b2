/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_SAMPLE_SOURCE_H
#define INCLUDED_RDMA_EMU_SAMPLE_SOURCE_H

#include "../signal/rf_scene.h"
#include "rf_channel.h"
#include "rx_descriptor.h"
#include <gnuradio/rdma/test_signal.h>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gr {
namespace rdma {
namespace emu {

/*!
 * The emulated converter of one run: sample k, for any k the run has produced. The
 * packetizers fill messages from it, and again for an RC resend, which must give the
 * same samples.
 */
class sample_source
{
public:
    virtual ~sample_source() = default;
    //! Samples [first, first + count) in the run's format, to \p out.
    virtual void generate(uint64_t first, size_t count, uint8_t* out) const = 0;
};

/*!
 * The test signals (gnuradio/rdma/test_signal.h): functions of the sample index, which
 * is the item's index in the host's ring sequence: sample k of a run that starts at
 * message f (RX_FIRST_MESSAGE, or a queued burst's first message) is item f * P + k.
 */
class test_signal_source : public sample_source
{
public:
    explicit test_signal_source(const test_signal_config& c, uint64_t first_item = 0)
        : d_signal(c), d_first_item(first_item)
    {
    }
    void generate(uint64_t first, size_t count, uint8_t* out) const override
    {
        d_signal.generate(d_first_item + first, count, out);
    }

private:
    const test_signal d_signal;
    const uint64_t d_first_item;
};

/*!
 * The RF scene (EMU_SIGNAL 7) as an RF channel sees it: each sample with the tuning the
 * channel had for it. Samples whose tuning the channel has forgotten (an RC resend
 * after more than rf_channel::max_segments retunes) come out as zeros.
 */
class scene_source : public sample_source
{
public:
    //! \p channel null: a channel that keeps its reset tuning (tests of the wire).
    scene_source(const rf_scene::config& c, const rf_channel* channel);
    void generate(uint64_t first, size_t count, uint8_t* out) const override;

private:
    const rf_scene d_scene;
    const rf_channel* const d_channel;
    const rf_scene::segment d_fixed; // without a channel
};

/*!
 * The converter of a run of \p d whose sample 0 is taken at device time \p t0_ns: the
 * scene seen through \p channel (may be null) for EMU_SIGNAL 7, else the test signal.
 */
std::unique_ptr<sample_source>
make_sample_source(const rx_descriptor& d, uint64_t t0_ns, const rf_channel* channel);

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
