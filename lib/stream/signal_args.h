/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_SIGNAL_ARGS_H
#define INCLUDED_RDMA_STREAM_SIGNAL_ARGS_H

#include "device_args.h"
#include <gnuradio/rdma/test_signal.h>

namespace gr {
namespace rdma {

//! signal=, freq=, amplitude=, seed= of parsed device args (the public overload in
//! gnuradio/rdma/test_signal.h takes the text).
test_signal_config parse_test_signal_args(const device_args& args,
                                          sample_format format,
                                          double sample_rate);

} // namespace rdma
} // namespace gr

#endif
