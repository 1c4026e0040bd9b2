/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_SIGNAL_SOURCE_H
#define INCLUDED_RDMA_EMU_SIGNAL_SOURCE_H

#include <gnuradio/rdma/sample_format.h>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

enum class signal_kind : uint32_t { ramp = 0, tone = 1, noise = 2 };

struct signal_config {
    signal_kind kind = signal_kind::ramp;
    sample_format format = sample_format::sc16;
    double sample_rate = 1e6;
    double tone_freq_hz = 100e3;
    float amplitude = 0.5f; //!< of full scale (tone, noise)
    uint32_t seed = 1;      //!< noise
};

/*!
 * The emulated converter: sample k of the stream is a pure function of k, so any
 * packet can be generated (and regenerated for retransmission) on its own, and a
 * checker can predict every sample.
 *
 *  ramp  see <gnuradio/rdma/ramp.h>.
 *  tone  amplitude * exp(j 2 pi f k / rate).
 *  noise approximately Gaussian, amplitude = standard deviation, from a counter-based
 *        generator keyed by (seed, k).
 */
class signal_source
{
public:
    explicit signal_source(const signal_config& config);

    //! Write samples [first, first + count) in the configured format to \p out.
    void generate(uint64_t first, size_t count, uint8_t* out) const;

    const signal_config& config() const { return d_config; }

private:
    void generate_tone(uint64_t first, size_t count, uint8_t* out) const;
    void generate_noise(uint64_t first, size_t count, uint8_t* out) const;

    signal_config d_config;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
