/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_STREAM_CONFIG_H
#define INCLUDED_RDMA_STREAM_STREAM_CONFIG_H

#include "../device/device_controller.h"
#include "../device/device_kind.h"
#include "../nic/nic_registry.h"
#include "../util/device_args.h"
#include "controller_args.h"
#include "link_args.h"
#include "metadata_monitor.h"
#include "ring_args.h"
#include "share_args.h"
#include "signal_args.h"
#include "stream_args.h"
#include "stream_ownership.h"

namespace gr {
namespace rdma {

/*!
 * What an RX stream's args ask for, typed: one part per table of stream_args.h, each
 * parsed and range-checked by the code that owns its keys. Made once, at the boundary
 * (sdr::impl), from the parsed args and the kind of the device they opened; the stream
 * then settles the parts against the device (its FIFO, its links, its capabilities)
 * and never reads the args.
 */
struct rx_stream_config {
    stream_settings stream;
    ring_args ring;
    receive_settings receive;
    nic_config nic; //!< the stream's NIC (with nic_addr=A+B: destination 0's, A)
    link_plan links;
    share_plan shares;
    controller_args controller;
    stream_ownership::settings ownership;
    metadata_request metadata;
    test_signal_request signal;
    emulated_impairments impairments;
    bool paced = false; //!< emu_pace=consumer

    static rx_stream_config parse(const device_args& args, const device_kind& kind);
};

//! What a TX stream's args ask for, typed, as rx_stream_config.
struct tx_stream_config {
    stream_settings stream;
    ring_args ring;
    transmit_settings transmit;
    nic_config nic;
    controller_args controller;
    stream_ownership::settings ownership;
    metadata_request metadata;
    bool paced = false; //!< emu_pace=consumer

    static tx_stream_config parse(const device_args& args, const device_kind& kind);
};

} // namespace rdma
} // namespace gr

#endif
