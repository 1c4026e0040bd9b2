/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_SIGNAL_CONVERTER_H
#define INCLUDED_RDMA_SIGNAL_CONVERTER_H

#include <gnuradio/rdma/sample_format.h>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

/*
 * The emulated converter's output stage, shared by the test signals and the RF scene:
 * fc32 passes values as computed; sc16 scales by 32768 (sc8 by 128), rounds and
 * saturates as a two's complement converter does. And the unit Gaussian values the noise
 * signals draw from.
 */

namespace gr {
namespace rdma {
namespace signal_detail {

// Branch-free saturation (maxss/minss): the saturating signals are random around the
// limits, so branches would mispredict at every other sample. A NaN becomes the lower
// limit, deterministically.
inline float saturate(float v, float lo, float hi)
{
#if defined(__SSE2__)
    // maxss(v, lo) is v > lo ? v : lo, NaN included; the compiler would branch.
    const __m128 x = _mm_max_ss(_mm_set_ss(v), _mm_set_ss(lo));
    return _mm_cvtss_f32(_mm_min_ss(x, _mm_set_ss(hi)));
#else
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
#endif
}

// A two's complement converter: full scale is 32768, what exceeds it saturates; the
// rest rounds half away from zero, by a truncating conversion (lround() is a library
// call, which made a noise sample cost several times its generation).
inline int16_t to_int16(float v)
{
    const float scaled = saturate(v * 32768.0f, -32768.0f, 32767.0f);
    return static_cast<int16_t>(
        static_cast<int32_t>(scaled + std::copysign(0.5f, scaled)));
}

// The same converter with 8 bits: full scale 128, [-128, +127].
inline int8_t to_int8(float v)
{
    const float scaled = saturate(v * 128.0f, -128.0f, 127.0f);
    return static_cast<int8_t>(
        static_cast<int32_t>(scaled + std::copysign(0.5f, scaled)));
}

inline void store_sample(sample_format format, float i, float q, uint8_t* out)
{
    if (format == sample_format::fc32) {
        const float iq[2] = { i, q };
        std::memcpy(out, iq, sizeof(iq));
    } else if (format == sample_format::sc16) {
        const int16_t iq[2] = { to_int16(i), to_int16(q) };
        std::memcpy(out, iq, sizeof(iq));
    } else {
        const int8_t iq[2] = { to_int8(i), to_int8(q) };
        std::memcpy(out, iq, sizeof(iq));
    }
}

inline float clip(float v) { return saturate(v, -1.0f, 1.0f); }

//! Unit Gaussian values, computed once: noise then costs one hash per sample, so the
//! emulator keeps up with tens of MS/s. Index it with 16 bits of a hash.
const std::array<float, 65536>& gaussian_table();

} // namespace signal_detail
} // namespace rdma
} // namespace gr

#endif
