/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_SAMPLE_FORMAT_H
#define INCLUDED_RDMA_SAMPLE_FORMAT_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * \brief Sample formats on the wire, which are also the formats in the ring: the device
 * writes items of this format into host memory. Values match regs::format. A flowgraph
 * may want another format (rx_source's cpu_format): the source then converts from the
 * ring in one pass (docs/wire-format.md).
 */
enum class sample_format : uint32_t {
    sc16 = 0, //!< complex int16, I then Q, little-endian: 4-byte items
    fc32 = 1, //!< complex float32, I then Q, little-endian: 8-byte items
    sc8 = 2,  //!< complex int8, I then Q: 2-byte items
};

constexpr size_t item_size(sample_format f)
{
    return f == sample_format::sc16 ? 4 : f == sample_format::sc8 ? 2 : 8;
}

//! "sc16", "fc32" or "sc8"; throws std::invalid_argument naming the accepted values.
RDMA_TRANSPORT_API sample_format parse_sample_format(const std::string& name);
RDMA_TRANSPORT_API const char* to_string(sample_format f);

} // namespace rdma
} // namespace gr

#endif
