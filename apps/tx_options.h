/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_TX_OPTIONS_H
#define INCLUDED_RDMA_APPS_TX_OPTIONS_H

#include <cstdint>
#include <cstdio>
#include <string>

/*
 * gr-rdma-tx's command line (gr-uhd's tx_waveforms as far as it applies: --args,
 * --rate, --duration, --wave-freq, --ampl). Everything that can be known wrong before
 * the device is opened is a usage_error (exit 2) here, naming the fix.
 */

namespace gr {
namespace rdma {
namespace app {

struct tx_options {
    std::string args = "type=emu";
    std::string format = "fc32"; // tx_sink's default, and gr-uhd's cpu_format
    std::string signal = "ramp"; // "ramp", "tone", or a file's path
    bool from_file = false;
    double rate = 1e6;
    double duration = 0;      // 0: until stopped (or the end of FILE)
    double wave_freq = 100e3; // tone
    double ampl = 0.5;        // tone
    bool repeat = false;      // FILE: from its start again at its end
    double throttle = 0;      // producer's cap, S/s; 0: as fast as the ring frees
    double timeout = 10;      // seconds beyond the run's length
    bool tx_check = false;    // the device args ask the emulator to check the ramp
    bool json = false;
    bool help = false;
    //! Samples to transmit, 0: until stopped. A regular FILE without --repeat caps it.
    uint64_t samples = 0;
    uint64_t file_items = 0; // a regular FILE's length in items (0: not regular)
};

//! The command line, checked; throws usage_error.
tx_options parse_tx_options(int argc, char** argv);

void print_tx_usage(FILE* to);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
