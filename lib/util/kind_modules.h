/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_KIND_MODULES_H
#define INCLUDED_RDMA_UTIL_KIND_MODULES_H

#include <string>

namespace gr {
namespace rdma {

/*!
 * The modules of this project that add kinds (device type=, NIC nic=) when loaded, as
 * SoapySDR loads its modules: the emulator and the benchmarks' stand-in
 * (type=emu, type=null, nic=null) are in gnuradio-rdma-emulator, outside
 * libgnuradio-rdma-transport, so that a receive server of a real device never loads
 * them. A registry that does not know a name loads the modules (once) and asks again.
 *
 * They are found in the directory kind_module_dir() names: the transport library's own
 * directory + "/gr-rdma-modules-<version>", or $GR_RDMA_MODULE_PATH. A program that
 * holds the transport core's objects itself (gr-rdma-tx, gr-rdma-emu, the tests) has
 * registries of its own and links the kinds it offers: it loads nothing.
 */

//! Load the modules if not done yet; true if this call loaded any (the caller may
//! find a kind now that it did not before). Thread-safe; a module is never unloaded.
bool load_kind_modules();

//! Why a module was not loaded ("" when each was): for the error that names an
//! unknown kind. Loads the modules first.
std::string kind_modules_note();

//! Where the modules are looked for ("" in a program without the transport library).
std::string kind_module_dir();

} // namespace rdma
} // namespace gr

#endif
