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

/*!
 * signal=, freq=, amplitude=, seed=, and the RF scene's scene= and scene_noise= as
 * given; for_stream() bounds freq= by the stream's rate and completes the config.
 */
struct test_signal_request {
    test_signal_config config; //!< format and sample rate are the stream's
    std::string freq_text;     //!< freq= as given, for the message
    bool given = false;        //!< any of the keys: the device must be an emulator

    static test_signal_request from_args(const device_args& args);
    test_signal_config for_stream(sample_format format, double sample_rate) const;
};

//! test_signal_request::from_args(args).for_stream(format, sample_rate) (the public
//! overload in gnuradio/rdma/test_signal.h takes the text).
test_signal_config parse_test_signal_args(const device_args& args,
                                          sample_format format,
                                          double sample_rate);
//! The keys parse_test_signal_args() reads: the emulator's signal (the host programs
//! it in the emulator's register block, whichever process the emulator runs in).
const arg_table& test_signal_arg_keys();

} // namespace rdma
} // namespace gr

#endif
