/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RAMP_H
#define INCLUDED_RDMA_RAMP_H

#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * \brief The emulator's "ramp" test signal, defined once for generator and checkers.
 *
 * Item k of a stream (k counted from sample 0 of the run):
 *  - sc16: I = low 16 bits of k, Q = the next 16 bits (as int16), so the 4-byte item,
 *    read as a little-endian uint32, equals k mod 2^32;
 *  - sc8: I = low 8 bits of k, Q = the next 8 bits (as int8: two's complement, so I
 *    runs 0, 1, ..., 127, -128, ..., -1), so the 2-byte item, read as a little-endian
 *    uint16, equals k mod 2^16;
 *  - fc32: I = k mod 2^24 (exact in float32), Q = 0.
 */
RDMA_TRANSPORT_API void ramp_item(sample_format format, uint64_t k, uint8_t* out);

//! Items first .. first + count - 1 of the ramp, as ramp_item() writes them one by one:
//! the emulator's signal generator, fast enough not to be what limits its rate.
RDMA_TRANSPORT_API void
ramp_fill(sample_format format, uint64_t first, size_t count, uint8_t* out);

//! Mismatches found by check_ramp().
struct ramp_errors {
    uint64_t mismatches = 0;
    uint64_t first_mismatch = UINT64_MAX; //!< item index of the first mismatch
};

//! Compare \p count items at \p data with ramp items first .. first + count - 1 and
//! add what differs to \p errors.
RDMA_TRANSPORT_API void check_ramp(sample_format format,
                                   uint64_t first,
                                   const void* data,
                                   size_t count,
                                   ramp_errors& errors);

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RAMP_H */
