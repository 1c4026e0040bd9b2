/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TEST_SIGNAL_H
#define INCLUDED_RDMA_TEST_SIGNAL_H

#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/transport_api.h>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * The emulator's test signals (register EMU_SIGNAL, device arg signal=). Values match
 * the register's. The saturating ones are what an overdriven radio sends: the values
 * a gap detector must never mistake for its own marks (docs/loss-accounting.md).
 */
enum class test_signal_kind : uint32_t {
    ramp = 0,          //!< gnuradio/rdma/ramp.h: each item encodes its own index
    tone = 1,          //!< amplitude * exp(j 2 pi f k / rate)
    noise = 2,         //!< Gaussian, standard deviation = amplitude per component
    clipped_noise = 3, //!< noise 4x full scale: I and Q saturate, independently
    clipped_tone = 4,  //!< I = Q = 4 x full scale * cos(2 pi f k / rate), saturated
    square = 5,        //!< I = Q = +-full scale, a square wave of frequency f
    extremes = 6,      //!< a cycle of 8 extreme values, the old gap marks among them
    //! What a radio sees of the emulator's RF scene (docs/radio.md): it depends on the
    //! channel's tuning and the device time, so test_signal cannot make it (the
    //! emulator's rf_scene does) and no checker can recompute it from the args alone.
    scene = 7,
};
constexpr uint32_t test_signal_kinds = 8;

//! "ramp", "tone", ...; throws std::invalid_argument listing the names otherwise.
RDMA_TRANSPORT_API test_signal_kind parse_test_signal_kind(const std::string& name);
RDMA_TRANSPORT_API const char* to_string(test_signal_kind kind);

//! A tone of the emulator's RF scene (signal=scene, scene=): RF frequency and amplitude
//! (full scale 1.0 at 0 dB gain).
struct scene_tone {
    double freq_hz = 0;
    float amplitude = 0;
};
constexpr unsigned max_scene_tones = 8;

struct test_signal_config {
    test_signal_kind kind = test_signal_kind::ramp;
    sample_format format = sample_format::sc16;
    double sample_rate = 1e6; //!< samples per second (tone, clipped_tone, square)
    double freq_hz = 100e3;   //!< tone, clipped_tone, square; may be negative (tone)
    float amplitude = 0.5f;   //!< of full scale: tone, noise
    uint32_t seed = 1;        //!< noise, clipped_noise
    //! scene: whether the args gave the scene (scene=, scene_noise=); if so the host
    //! writes all of it to the device before START, else the device keeps its own.
    bool scene_given = false;
    unsigned scene_tones = 0; //!< tones in use, <= max_scene_tones
    std::array<scene_tone, max_scene_tones> scene{};
    float scene_noise = 0; //!< noise standard deviation at 0 dB gain
};

/*!
 * \brief The emulated converter, sample by sample: the emulator's generator and every
 * checker's reference.
 *
 * Sample k of a run is a pure function of k and the configuration, computed the same
 * way whatever the calls' boundaries (the tone's phase is exact at every multiple of 32
 * samples and advanced by rotation in between), so a checker recomputes bit-exactly what
 * the emulator sent.
 *
 * Converter model: fc32 passes values as computed, but the saturating signals clip to
 * [-1, +1]; sc16 scales by 32768, rounds and saturates to [-32768, +32767] as a two's
 * complement converter does (full scale +1.0 gives +32767, -1.0 gives -32768); sc8 is
 * the same converter with 8 bits: scale 128, saturating to [-128, +127]. The extremes
 * cycle has an sc8 form with the same pattern (-128, -128), (+127, +127), ...
 */
class RDMA_TRANSPORT_API test_signal
{
public:
    //! Throws std::invalid_argument for a non-positive sample rate, an unknown kind or
    //! the scene (which depends on more than the configuration: docs/radio.md).
    explicit test_signal(const test_signal_config& config);

    //! Write samples [first, first + count) in the configured format to \p out.
    void generate(uint64_t first, size_t count, uint8_t* out) const;

    const test_signal_config& config() const { return d_config; }

private:
    void generate_tone(uint64_t first, size_t count, uint8_t* out) const;
    void generate_noise(uint64_t first, size_t count, uint8_t* out, float scale) const;
    void generate_square(uint64_t first, size_t count, uint8_t* out) const;
    void generate_extremes(uint64_t first, size_t count, uint8_t* out) const;

    test_signal_config d_config;
};

/*!
 * The test signal that device args describe (signal=, freq=, amplitude=, seed=, and the
 * scene's scene= and scene_noise=;
 * docs/device-args.md), as the emulator will generate it for a stream of \p format at
 * \p sample_rate: the reference a checker needs. Other keys are ignored. Throws
 * std::invalid_argument naming the key for a bad value.
 */
RDMA_TRANSPORT_API test_signal_config parse_test_signal_args(const std::string& args,
                                                             sample_format format,
                                                             double sample_rate);

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_TEST_SIGNAL_H */
