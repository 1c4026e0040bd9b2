/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_ROCE_CRC32_H
#define INCLUDED_RDMA_ROCE_CRC32_H

#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace roce {

/*!
 * The CRC-32 of Ethernet and zlib (polynomial 0x04C11DB7, reflected), continued from
 * \p crc over \p len bytes: crc32(crc32(0, a), b) is the CRC of a then b, as zlib's
 * crc32_z(). The ICRC is this CRC over the masked headers and the payload.
 *
 * Every sample byte passes through it twice on a host without RDMA (the device's seal,
 * the soft NIC's check), so it is ISA-L's crc32_gzip_refl(), which folds with
 * carry-less multiplication (PCLMULQDQ, VPCLMULQDQ where the CPU has them, chosen at
 * run time): some twenty times faster than zlib's table method here (docs/soft-nic.md).
 */
uint32_t crc32(uint32_t crc, const uint8_t* data, size_t len);

} // namespace roce
} // namespace rdma
} // namespace gr

#endif
