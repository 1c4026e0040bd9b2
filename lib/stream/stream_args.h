/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_STREAM_ARGS_H
#define INCLUDED_RDMA_STREAM_STREAM_ARGS_H

#include "../util/device_args.h"
#include <set>
#include <string>

namespace gr {
namespace rdma {

/*!
 * Every device arg an rx_stream reads (docs/device-args.md): its own (the stream plan,
 * the ring), the device's, the NIC's, the emulator's signal and faults, the metadata
 * channel's; each group is named next to the code that parses it. Anything else is a
 * typo, refused by name.
 */
std::set<std::string> rx_stream_arg_keys();

/*!
 * args.check_known(keys()), counting the keys of kinds whose module is not loaded yet
 * (the emulator's: util/kind_modules.h): a key unknown so far loads the modules and is
 * asked again, so that wire= with type=remote is told "belongs to type=emu" by
 * shared_device::open, not "unknown key".
 */
void check_stream_arg_keys(const device_args& args, std::set<std::string> (*keys)());

} // namespace rdma
} // namespace gr

#endif
