/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_STREAM_ARGS_H
#define INCLUDED_RDMA_STREAM_STREAM_ARGS_H

#include "../util/arg_table.h"
#include "../util/device_args.h"
#include <vector>

namespace gr {
namespace rdma {

//! The keys of every stream, RX or TX: which one (stream=), when its device counts as
//! lost (device_timeout=), its packets (mtu=, payload=).
const arg_table& stream_keys();
//! An RX stream's own keys: notifications, hand-outs, transport, grace, device loss.
const arg_table& receive_keys();
//! A TX stream's own keys: notifications, lead, the emulator's TX checks.
const arg_table& transmit_keys();

/*!
 * Every part of the configuration an rx_stream reads (docs/device-args.md): its own,
 * the ring's, the device's and its kinds', the NIC's, the links', the shares', the
 * controller's, ownership, metadata, the emulator's signal and faults. A key in none
 * of them is a typo, refused by name.
 */
std::vector<const arg_table*> rx_stream_arg_tables();
//! As rx_stream_arg_tables(), for a tx_stream.
std::vector<const arg_table*> tx_stream_arg_tables();
//! The tables of RX and TX streams: what the args of a device (sdr) may hold.
std::vector<const arg_table*> device_arg_tables();

/*!
 * args.check_known(tables()), counting the keys of kinds whose module is not loaded
 * yet (the emulator's: util/kind_modules.h): a key unknown so far loads the modules
 * and is asked again, so that wire= with type=remote is told "belongs to type=emu" by
 * shared_device::open, not "unknown key".
 */
void check_stream_arg_keys(const device_args& args,
                           std::vector<const arg_table*> (*tables)());

} // namespace rdma
} // namespace gr

#endif
