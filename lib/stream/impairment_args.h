/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_IMPAIRMENT_ARGS_H
#define INCLUDED_RDMA_STREAM_IMPAIRMENT_ARGS_H

#include "../device/device_controller.h"
#include "../util/device_args.h"
#include <set>
#include <string>

namespace gr {
namespace rdma {

/*!
 * The faults an emulator injects into its own stream, as device args ask for them
 * (docs/device-args.md, "Emulator faults"): random loss, duplication, corruption and
 * delay, and targeted faults in listed messages. Throws std::invalid_argument naming
 * the key for a bad value.
 */
emulated_impairments parse_impairment_args(const device_args& args);
//! The keys parse_impairment_args() reads.
const arg_table& impairment_arg_keys();

} // namespace rdma
} // namespace gr

#endif
