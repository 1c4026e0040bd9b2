/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_DEVICE_CLOCK_H
#define INCLUDED_RDMA_EMU_DEVICE_CLOCK_H

#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! The emulated device's time: ns since the Unix epoch (as a GPS-disciplined SDR).
uint64_t device_time_ns();
//! A monotonic clock for pacing, immune to wall-clock steps.
int64_t monotonic_ns();

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
