/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_ITEM_CONVERTER_H
#define INCLUDED_RDMA_ITEM_CONVERTER_H

#include <gnuradio/rdma/sample_format.h>
#include <cstddef>

namespace gr {
namespace rdma {

/*!
 * Converts complex items from one sample format to another with VOLK, in one pass, in
 * place at both ends (no intermediate copy). Receive converts from the wire format
 * (what the device wrote into the ring) to the CPU format (GNU Radio's buffer);
 * transmit from the CPU format (GNU Radio's buffer) to the wire format, into the
 * ring. The scales are gr-uhd's (docs/wire-format.md):
 *  - sc16 -> fc32: / 32768;  sc8 -> fc32: / 128;
 *  - fc32 -> sc16: * 32768;  fc32 -> sc8: * 128, both rounded and saturated;
 *  - sc8 -> sc16: * 256;     sc16 -> sc8: the high byte (an arithmetic shift by 8).
 * With equal formats there is nothing to convert: the block is zero copy then.
 */
class item_converter
{
public:
    //! Throws std::invalid_argument for equal formats (no conversion to do).
    item_converter(sample_format from, sample_format to);

    //! Convert \p items complex items from \p in (format from()) to \p out (to()).
    void convert(const void* in, void* out, size_t items) const
    {
        d_convert(in, out, 2 * items);
    }
    sample_format from() const { return d_from; }
    sample_format to() const { return d_to; }

private:
    using function = void (*)(const void* in, void* out, size_t scalars);
    static function pick(sample_format from, sample_format to);

    sample_format d_from;
    sample_format d_to;
    function d_convert;
};

} // namespace rdma
} // namespace gr

#endif
