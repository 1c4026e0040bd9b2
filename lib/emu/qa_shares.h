/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_QA_SHARES_H
#define INCLUDED_RDMA_EMU_QA_SHARES_H

// What the shares' tests (qa_shares.cc, qa_shares_registers.cc) share: hosts that
// receive a share's messages, and an emulator with one stream.

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace qa_shares {

using gr::rdma::datagram;
using gr::rdma::socket_address;
using gr::rdma::udp_socket;
namespace regs = gr::rdma::regs;
namespace axioe = gr::rdma::axioe;
namespace emu = gr::rdma::emu;

constexpr uint32_t payload = 2048; // two packets of the 1024-byte path MTU
constexpr uint32_t mtu = 1024;
constexpr uint32_t spm = payload / 4; // sc16 samples per message
constexpr uint64_t ring_messages = 64;
constexpr uint64_t va0 = 0x7f0000000000ull;
constexpr uint32_t rate = 4000000;
constexpr uint32_t notify = 4;

//! Destination \p index of the stream, programmed by the host of share \p share.
struct host_destination {
    unsigned share = 0;
    unsigned index = 0;
    uint32_t qpn = 0;
    uint32_t rkey = 0;
    uint32_t start_psn = 0;
};

//! A message as it landed in its share's ring, in arrival order.
struct landed {
    unsigned share = 0;
    uint64_t local = 0;       // the local index whose slot and wrap it filled
    unsigned destination = 0; // index into the host's destinations
};

/*!
 * The hosts of every share: one ring per share, one socket and QP per destination.
 * Every packet is checked and executed as a UC responder does; a message that lands
 * is checked against the ramp of the stream message its share and local index name
 * (the index from its slot, after the destination's previous one: a QP is in order).
 */
class share_host
{
public:
    share_host(const std::vector<host_destination>& ds, unsigned shares, uint32_t block);
    //! Receive until \p messages have landed or nothing came for \p idle.
    void receive(uint64_t messages, std::chrono::milliseconds idle);

    const std::vector<host_destination> dests;
    const unsigned H;
    const uint32_t B;
    std::vector<udp_socket> sockets;
    std::vector<std::vector<uint8_t>> rings; // per share
    std::vector<landed> arrivals;
    std::vector<std::vector<uint32_t>> immediates; // per destination
    std::vector<uint64_t> packets;
    std::vector<uint64_t> psn_gaps;
    std::vector<uint64_t> next_local; // per destination: after its last one landed
    std::vector<uint64_t> received;   // per share: samples landed
    uint64_t ramp_mismatches = 0;
    uint64_t bad_packets = 0;

private:
    struct qp_state {
        uint32_t expected_psn = 0;
        bool in_message = false;
        uint64_t va = 0;
        uint32_t offset = 0;
    };
    void execute(size_t d, const datagram& dg);
    void landed_at(size_t d, uint64_t offset, uint32_t bytes);
    std::vector<qp_state> qp;
};

//! An emulator with one link and one RX stream, and a client of its registers.
class bench
{
public:
    bench();
    void layout(unsigned shares, uint32_t block); // RX_SHARES, RX_SHARE_BLOCK
    //! A burst of \p samples, an immediate every \p notify_interval messages.
    void program_stream(uint64_t samples, uint32_t notify_interval = notify);
    //! Destination \p k of \p host, by client \p c, with weight \p weight; its QPN last.
    void program_destination(axioe::client& c,
                             const share_host& host,
                             size_t k,
                             uint32_t weight);
    uint32_t start(); //!< START; RX_STATUS after it
    void wait_done();
    static uint32_t rx(uint32_t r) { return regs::rx_reg(0, r); }

    emu::emulator dev;
    axioe::client axi;
    unsigned H = 1;
    uint32_t B = 16;
};

} // namespace qa_shares

#endif
