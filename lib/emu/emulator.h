/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_EMULATOR_H
#define INCLUDED_RDMA_EMU_EMULATOR_H

#include "../axioe/axioe_server.h"
#include "../device/consumer_pacing.h"
#include "command_queue.h"
#include "device_clock.h"
#include "device_controller.h"
#include "link_channel.h"
#include "link_set.h"
#include "metadata_sender.h"
#include "register_file.h"
#include "rf_channel.h"
#include "rx_engine.h"
#include "tx_engine.h"
#include "wire.h"
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! How link 0 carries RoCEv2 (emu/wire.h).
enum class wire_type {
    udp,    //!< udp_wire: a UDP socket, ICRC over the canonical header (soft NIC only)
    raw,    //!< raw_wire: complete IPv4 frames by raw socket (rxe, hardware NICs;
            //!< CAP_NET_RAW)
    inproc, //!< inproc_wire: frames handed to a soft NIC of this process, no kernel
            //!< (benchmarks; the link address still receives RC ACKs by UDP)
};

//! "udp", "raw" or "inproc"; throws std::invalid_argument naming the choices otherwise.
wire_type parse_wire_type(const std::string& text);
const char* to_string(wire_type type);

struct emulator_config {
    socket_address control = socket_address::parse("127.0.0.1:0"); //!< AXIoE server
    //! Link 0. udp: the UDP socket's address (port 0: any). raw: a local interface
    //! address the frames leave from, and the port RoCEv2 comes back on (0: 4791).
    socket_address link = socket_address::parse("127.0.0.1:0");
    //! Links 1, 2, ... (docs/register-map.md, "Several links"), each its own wire of
    //! the same type, as link 0 is; at most 15.
    std::vector<socket_address> more_links;
    wire_type wire = wire_type::udp;
    unsigned rx_streams = 1;
    //! TX streams (docs/transmit.md), 0..8; a device with TX has at most 8 RX streams
    //! (the TX extension blocks follow RX stream 7's), so with more RX streams the
    //! emulator has none.
    unsigned tx_streams = 1;
    uint64_t serial = 0x5EED0001;
    //! How late the emulator may send (its FIFO depth, RX_FIFO_US); what it cannot send
    //! in time is dropped as an overflow, counted and logged.
    uint32_t fifo_us = rx_descriptor{}.fifo_us;
    //! Longest AXIoE burst it takes, 1..256 (ID_MAX_BURST_WORDS); longer ones are
    //! answered BAD_REQUEST, as a device with a smaller register bus would.
    size_t max_burst_words = axioe::max_burst_words;
    //! What each RF channel (one per RX stream) can do and holds after reset.
    rf_limits rf;
    //! Master clock, Hz: rates are master_clock_hz / d for an integer d, and a rate
    //! written is replaced by the nearest (docs/radio.md, "Sample rate"); 0: every
    //! rational rate exactly.
    uint32_t master_clock_hz = 0;
    //! ID_CAPABILITIES bits the emulator does not report, to test a host against a
    //! device without them (only RC_LINKS and STOP_CAUSE: the engines still do what
    //! they can; without STOP_CAUSE, RX_STOP_CAUSE answers DECERR as on a 1.5 device).
    uint32_t capabilities_off = 0;
};

/*!
 * The reference model of the SDR's network logic: a register file behind an AXIoE
 * server, RX engines that stream RoCEv2 WRITEs over a link, and the radio of map 1.3
 * (docs/radio.md): a device clock, an RF channel per RX stream, a command queue, the
 * RF scene. Runs inside the host process (type=emu) or as a daemon (gr-rdma-emu);
 * either way the host drives it only through AXIoE, exactly as it would drive
 * hardware.
 */
class emulator
{
public:
    explicit emulator(const emulator_config& config);
    ~emulator();
    emulator(const emulator&) = delete;
    emulator& operator=(const emulator&) = delete;

    socket_address control_address() const { return d_server->address(); }
    socket_address link_address() const { return d_link->local_address(); }
    //! Link \p n's address: where its frames come from, where its RoCEv2 comes back.
    socket_address link_address(unsigned n) const
    {
        return d_links.at(n)->counted->local_address();
    }
    size_t links() const { return d_links.size(); }
    //! Link \p n's emulated network (EMU_LINK_*).
    const link_channel& channel(unsigned n) const { return *d_links.at(n)->channel; }
    //! The same, to impair it while a host owns the stream (tests of the host; a host
    //! itself writes EMU_LINK_*).
    link_channel& channel(unsigned n) { return *d_links.at(n)->channel; }
    const register_file& registers() const { return *d_registers; }
    const device_clock& clock() const { return d_clock; }
    //! The link's receive side (RC ACK/NAKs): what it dropped as malformed.
    const ack_receiver& acks() const { return *d_acks; }
    //! TX stream \p t's engine (for tests: its converter's ticks).
    const tx_engine& tx(unsigned t) const { return *d_tx.at(t); }


private:
    class counting_wire;

    // Declared in creation order; destroyed in reverse (server first: no request
    // reaches a half-destroyed register file). The engines and the command queue use
    // each other: the destructor stops the engines before the queue goes.
    // A link: its socket, the emulated network in front of it, and what the device
    // counts of what it puts on the link (LINK_TX_PACKETS ...).
    struct link_parts {
        std::unique_ptr<wire> network;
        std::unique_ptr<link_channel> channel;
        link_stats stats;
        std::unique_ptr<wire> counted; // what the engines send to
    };

    device_clock d_clock;
    std::vector<std::unique_ptr<rf_channel>> d_channels;
    std::vector<std::unique_ptr<link_parts>> d_links;
    wire* d_link = nullptr; // link 0, counted: RC, TX and metadata use it
    std::unique_ptr<link_set> d_link_set;
    std::unique_ptr<metadata_sender> d_metadata; // outlives the engines that report to it
    std::unique_ptr<ack_receiver> d_acks;        // outlives the engines that poll it
    std::vector<std::unique_ptr<ack_receiver>> d_more_acks; // links 1..: RX ACKs only
    std::unique_ptr<command_queue> d_commands;              // runs STOPs on the engines
    std::vector<std::shared_ptr<consumer_pacing>> d_rx_pacing; // before the engines
    std::vector<std::shared_ptr<consumer_pacing>> d_tx_pacing;
    std::vector<std::unique_ptr<rx_engine>> d_rx;
    std::vector<std::unique_ptr<tx_engine>> d_tx;
    // Goes before the engines: its loop reads their status while it runs, and they read
    // its rates only while they run (the destructor stops them first).
    std::unique_ptr<device_controller> d_controller;
    std::unique_ptr<register_file> d_registers;
    std::unique_ptr<axioe::server> d_server;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
