/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "crc32.h"
#include <isa-l/crc.h>

namespace gr {
namespace rdma {
namespace roce {

uint32_t crc32(uint32_t crc, const uint8_t* data, size_t len)
{
    // ISA-L takes a non-const pointer but only reads; zlib's pre- and post-inversion
    // are inside, so chaining works as with crc32_z().
    return crc32_gzip_refl(crc, const_cast<uint8_t*>(data), len);
}

} // namespace roce
} // namespace rdma
} // namespace gr
