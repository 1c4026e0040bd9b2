/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_EMULATOR_ARGS_H
#define INCLUDED_RDMA_DEVICE_EMULATOR_ARGS_H

// The keys of the emulator's register block (EMU_*, docs/register-map.md): its signal
// and its faults. They are the device's, not the stream's: the host writes them, with
// device_controller::configure_signal() and configure_impairments(), to any device
// that has CAP_EMULATOR, the emulator in this process (type=emu) or a gr-rdma-emu
// elsewhere (type=remote).

#include "../util/device_args.h"
#include "device_controller.h"
#include <gnuradio/rdma/test_signal.h>
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
test_signal_config
parse_test_signal_args(const device_args& args, sample_format format, double sample_rate);
//! The keys parse_test_signal_args() reads: the emulator's signal (the host programs
//! it in the emulator's register block, whichever process the emulator runs in).
const arg_table& test_signal_arg_keys();


/*!
 * The faults an emulator injects into its own stream, as device args ask for them
 * (docs/device-args.md, "Emulator faults"): random loss, duplication, corruption and
 * delay, and targeted faults in listed messages. Throws std::invalid_argument naming
 * the key for a bad value.
 */
emulated_impairments parse_impairment_args(const device_args& args);
//! The keys parse_impairment_args() reads.
const arg_table& impairment_arg_keys();

//! Both, as a stream's args ask for them.
struct emulator_request {
    test_signal_request signal;
    emulated_impairments impairments;

    static emulator_request from_args(const device_args& args);
    //! Any key of them given: the device must be an emulator.
    bool given() const { return signal.given || impairments.any(); }
};

} // namespace rdma
} // namespace gr

#endif
