/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "item_converter.h"
#include <volk/volk.h>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

namespace {

// VOLK counts scalars in an unsigned int: a call converts at most this many at once.
constexpr size_t volk_max = UINT_MAX / 2;

// gr-uhd's scales: full scale of the integer formats is 1.0 in float.
constexpr float sc16_scale = 32768.0f;
constexpr float sc8_scale = 128.0f;

template <typename in_t, typename out_t, typename call>
void in_pieces(const void* in, void* out, size_t scalars, call f)
{
    auto* i = static_cast<const in_t*>(in);
    auto* o = static_cast<out_t*>(out);
    while (scalars) {
        const auto n = static_cast<unsigned>(std::min(scalars, volk_max));
        f(o, i, n);
        i += n;
        o += n;
        scalars -= n;
    }
}

void sc16_to_fc32(const void* in, void* out, size_t scalars)
{
    in_pieces<int16_t, float>(
        in, out, scalars, [](float* o, const int16_t* i, unsigned n) {
            volk_16i_s32f_convert_32f(o, i, sc16_scale, n);
        });
}

void sc8_to_fc32(const void* in, void* out, size_t scalars)
{
    in_pieces<int8_t, float>(in, out, scalars, [](float* o, const int8_t* i, unsigned n) {
        volk_8i_s32f_convert_32f(o, i, sc8_scale, n);
    });
}

void fc32_to_sc16(const void* in, void* out, size_t scalars)
{
    in_pieces<float, int16_t>(
        in, out, scalars, [](int16_t* o, const float* i, unsigned n) {
            volk_32f_s32f_convert_16i(o, i, sc16_scale, n);
        });
}

void fc32_to_sc8(const void* in, void* out, size_t scalars)
{
    in_pieces<float, int8_t>(in, out, scalars, [](int8_t* o, const float* i, unsigned n) {
        volk_32f_s32f_convert_8i(o, i, sc8_scale, n);
    });
}

void sc8_to_sc16(const void* in, void* out, size_t scalars)
{
    in_pieces<int8_t, int16_t>(
        in, out, scalars, [](int16_t* o, const int8_t* i, unsigned n) {
            volk_8i_convert_16i(o, i, n);
        });
}

void sc16_to_sc8(const void* in, void* out, size_t scalars)
{
    in_pieces<int16_t, int8_t>(
        in, out, scalars, [](int8_t* o, const int16_t* i, unsigned n) {
            volk_16i_convert_8i(o, i, n);
        });
}

} // namespace

item_converter::function item_converter::pick(sample_format from, sample_format to)
{
    using f = sample_format;
    if (from == f::sc16 && to == f::fc32)
        return sc16_to_fc32;
    if (from == f::sc8 && to == f::fc32)
        return sc8_to_fc32;
    if (from == f::fc32 && to == f::sc16)
        return fc32_to_sc16;
    if (from == f::fc32 && to == f::sc8)
        return fc32_to_sc8;
    if (from == f::sc8 && to == f::sc16)
        return sc8_to_sc16;
    if (from == f::sc16 && to == f::sc8)
        return sc16_to_sc8;
    throw std::invalid_argument(std::string("item_converter: no conversion from ") +
                                to_string(from) + " to " + to_string(to) +
                                " (equal formats need none: the ring is the buffer)");
}

item_converter::item_converter(sample_format from, sample_format to)
    : d_from(from), d_to(to), d_convert(pick(from, to))
{
}

} // namespace rdma
} // namespace gr
