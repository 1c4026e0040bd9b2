/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_STREAM_ARGS_H
#define INCLUDED_RDMA_STREAM_STREAM_ARGS_H

#include "../device/device_controller.h"
#include "../device/device_kind.h"
#include "../device/emulator_args.h"
#include "../nic/nic_registry.h"
#include "../regs/register_fields.h"
#include "../util/arg_table.h"
#include "../util/device_args.h"
#include "controller_args.h"
#include "link_args.h"
#include "metadata_monitor.h"
#include "ring_args.h"
#include "share_args.h"
#include "stream_ownership.h"
#include <cstdint>
#include <optional>
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

//! stream_keys() as given: mtu= and payload= are settled against the NIC, the link and
//! the item size when the stream is made.
struct stream_settings {
    unsigned index = 0; //!< stream=; the device's own count is checked when attached
    double device_timeout_s = 0.5;
    std::optional<unsigned> mtu;     //!< a valid RoCE path MTU
    std::optional<uint64_t> payload; //!< at most 65536 bytes

    static stream_settings from_args(const device_args& args);
};

//! receive_keys() as given. \p latency_s bounds work_interval= (a quarter of it).
struct receive_settings {
    std::optional<uint32_t> notify;
    double work_interval_s = 0;
    bool rc = false;                //!< transport=rc
    uint32_t retx_window_bytes = 0; //!< transport=rc only
    std::optional<double> grace_s;  //!< settled against the device's FIFO
    bool end_on_device_loss = true; //!< on_device_loss=end
    bool latency_probe = false;

    static receive_settings from_args(const device_args& args, double latency_s);
};

//! transmit_keys() as given; the lead is bounded by \p latency_s.
struct transmit_settings {
    uint32_t notify = 16;
    double max_lead_s = 0;
    double min_lead_s = 0;
    regs::tx_emulation emulation; //!< tx_check=, tx_loss_ppm=, tx_fault_seed=
    bool emulation_given = false; //!< any of them: the device must be an emulator

    static transmit_settings from_args(const device_args& args, double latency_s);
};

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
    emulator_request emulator; //!< the emulator's block (lib/device/emulator_args.h)
    bool paced = false;        //!< emu_pace=consumer

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
