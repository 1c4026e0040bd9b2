/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_SIGNAL_RF_SCENE_H
#define INCLUDED_RDMA_SIGNAL_RF_SCENE_H

#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/transport_api.h>
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * \brief What a radio sees of a scene of tones at absolute RF frequencies plus white
 * noise (docs/radio.md, "The emulator's RF scene").
 *
 * A channel tuned to fc with gain g dB sees tone i (RF frequency f_i, amplitude a_i) at
 * baseband f_i - fc, scaled by 10^(g/20), plus Gaussian noise. The tuning may change
 * at any sample (a retune): the tuning from a sample on is a segment, and a run is a
 * list of segments that the channel keeps. The phase of tone i, in cycles, is
 * (f_i - fc(0)) t0 at sample 0 and advances by (f_i - fc(k)) / rate at sample k, so it
 * is the sample's device time times f_i - fc while fc holds, and runs on without a jump
 * across a retune.
 *
 * The phase is exact: frequencies are integer mHz, t0 integer ns and the rate the
 * rational RATE_NUM / RATE_DEN, so every phase is an integer numerator over 1e12 (the
 * t0 share) plus one over 1000 RATE_NUM (the samples' share), reduced as integers. A
 * segment carries the integral of fc over the samples before it (segment::integral),
 * which is all a tone needs to know of earlier tunings: it is tone-independent, so the
 * channel computes it without knowing the scene. Samples are computed from the exact
 * phase at every multiple of 64 samples and at segment starts, and by rotation in
 * between: no drift however long the run, and sample k is the same whatever call
 * computes it.
 */
class RDMA_TRANSPORT_API rf_scene
{
public:
    static constexpr unsigned max_tones = 8;

    struct tone {
        uint64_t freq_mhz = 0; //!< RF frequency, mHz
        float amplitude = 0;   //!< full scale 1.0 at 0 dB gain
    };

    struct config {
        std::array<tone, max_tones> tones{};
        unsigned tone_count = 0;
        float noise = 0; //!< standard deviation per component at 0 dB gain
        sample_format format = sample_format::sc16;
        uint32_t rate_num = 1; //!< sample rate rate_num / rate_den
        uint32_t rate_den = 1;
        uint64_t t0_ns = 0; //!< device time of sample 0
    };

    //! The tuning from sample `first` on, and the integrals that fix the tones' phases
    //! there.
    struct segment {
        uint64_t first = 0;    //!< the first sample with this tuning
        uint64_t freq_mhz = 0; //!< center frequency fc
        int32_t gain_mdb = 0;  //!< gain, milli-dB
        //! (RATE_DEN * sum of fc(k) over k < first) mod (1000 * RATE_NUM)
        uint64_t integral = 0;
        //! (fc(0) * t0) mod 1e12: sample 0's tuning times its time, in 1e-12 cycles
        uint64_t start_phase = 0;
    };

    //! The tuning of sample 0 of a run at rate \p rate_num / \p rate_den started at
    //! device time \p t0_ns.
    static segment start(uint64_t freq_mhz,
                         int32_t gain_mdb,
                         uint64_t t0_ns,
                         uint32_t rate_num,
                         uint32_t rate_den);
    //! The tuning from sample \p first (at least prev.first) on, after \p prev.
    static segment retune(const segment& prev,
                          uint64_t first,
                          uint64_t freq_mhz,
                          int32_t gain_mdb,
                          uint32_t rate_num,
                          uint32_t rate_den);

    //! Throws std::invalid_argument for more than max_tones tones, a zero rate, or a
    //! noise or amplitude that is negative or not finite.
    explicit rf_scene(const config& c);

    //! Samples [first, first + count) in the configured format: all of them taken with
    //! segment \p s's tuning (first >= s.first; the caller stops at the next segment).
    void generate(const segment& s, uint64_t first, size_t count, uint8_t* out) const;

    //! The phase of tone \p i at sample \p k of segment \p s, in cycles, in [0, 1).
    long double phase_cycles(unsigned i, const segment& s, uint64_t k) const;

    const config& configuration() const { return d_config; }

private:
    config d_config;
    uint64_t d_modulus;                          // 1000 * RATE_NUM
    std::array<uint64_t, max_tones> d_rate_term; // f_i * RATE_DEN mod d_modulus
    std::array<uint64_t, max_tones> d_t0_term;   // f_i * t0 mod 1e12
    uint64_t d_noise_key;
};

} // namespace rdma
} // namespace gr

#endif
