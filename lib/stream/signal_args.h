/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_SIGNAL_ARGS_H
#define INCLUDED_RDMA_STREAM_SIGNAL_ARGS_H

#include "../util/device_args.h"
#include <gnuradio/rdma/test_signal.h>
#include <set>
#include <string>

namespace gr {
namespace rdma {

//! signal=, freq=, amplitude=, seed=, and the RF scene's scene= and scene_noise=, of
//! parsed device args (the public overload in gnuradio/rdma/test_signal.h takes the
//! text).
test_signal_config parse_test_signal_args(const device_args& args,
                                          sample_format format,
                                          double sample_rate);
//! The keys parse_test_signal_args() reads: the emulator's signal (the host programs
//! it in the emulator's register block, whichever process the emulator runs in).
const arg_table& test_signal_arg_keys();

} // namespace rdma
} // namespace gr

#endif
