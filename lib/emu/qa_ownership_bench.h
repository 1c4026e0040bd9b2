/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_QA_OWNERSHIP_BENCH_H
#define INCLUDED_RDMA_EMU_QA_OWNERSHIP_BENCH_H

// The bench of qa_ownership.cc (RX streams) and qa_ownership_tx.cc (TX streams):
// several AXIoE clients, each its own source port, talk to one emulator; the RoCEv2
// packets of a running stream land on a plain UDP socket, which tells whether the
// stream runs: an RX stream's WRITEs, or a TX stream's READ requests (nobody answers
// them, so the device sends them again and again while it runs).

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace qa_ownership_bench {

using namespace gr::rdma;
using namespace std::chrono_literals;

inline uint32_t rx(uint32_t reg) { return regs::rx_reg(0, reg); }
inline uint32_t tx(uint32_t reg) { return regs::tx_reg(0, reg); }
inline uint32_t tx_emu(uint32_t reg) { return regs::emu_tx_reg(0, reg); }

// The status a register access is answered with.
inline axioe::status code_of(const std::function<void()>& access)
{
    try {
        access();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

inline std::string name(axioe::status s) { return axioe::to_string(s); }

#define ASSERT_STATUS(want, access) \
    CPPUNIT_ASSERT_EQUAL(name(axioe::status::want), name(code_of([&] { access; })))

class ownership_bench
{
public:
    ownership_bench()
        : dev(emu::emulator_config{}), sink(socket_address::parse("127.0.0.1:0"))
    {
        sink.request_receive_buffer(4u << 20);
    }

    // A client of its own: a new source port, so another identity for the device.
    std::unique_ptr<axioe::client> client()
    {
        return std::make_unique<axioe::client>(dev.control_address());
    }
    // How the device sees \p c: its socket is bound to any address, it sends from
    // loopback.
    static socket_address seen(const axioe::client& c)
    {
        return socket_address(0x7F000001, c.local_address().port());
    }

    // The ownership registers are at the same offsets in the RX and the TX block:
    // \p block is rx or tx.
    static void claim(axioe::client& c, uint64_t token, uint32_t (*block)(uint32_t) = rx)
    {
        c.write64(block(regs::rx::owner_token_lo), token);
    }
    static void
    take_over(axioe::client& c, uint64_t token, uint32_t (*block)(uint32_t) = rx)
    {
        const uint32_t w[3] = { regs::low_word(token),
                                regs::high_word(token),
                                regs::owner_command::take_over };
        c.write(block(regs::rx::owner_token_lo), w, 3);
    }
    static void release(axioe::client& c, uint32_t (*block)(uint32_t) = rx)
    {
        c.write32(block(regs::rx::owner), regs::owner_command::release);
    }

    // A continuous sc16 stream at 1 MS/s to the sink: ~240 packets a second.
    void program(axioe::client& c)
    {
        c.write32(rx(regs::rx::dest_ipv4), sink.local_address().ip());
        c.write32(rx(regs::rx::dest_udp_port), sink.local_address().port());
        c.write32(rx(regs::rx::dest_qpn), 0x123);
        c.write32(rx(regs::rx::start_psn), 0x456);
        c.write32(rx(regs::rx::rkey), 0xABCD);
        c.write64(rx(regs::rx::va_lo), 0x7f0000000000ull);
        c.write64(rx(regs::rx::ring_bytes_lo), 65536);
        c.write32(rx(regs::rx::payload_bytes), 1024);
        c.write32(rx(regs::rx::path_mtu), 1024);
        c.write32(rx(regs::rx::rate_num), 1000000);
        c.write32(rx(regs::rx::rate_den), 1);
    }
    static void start(axioe::client& c)
    {
        c.write32(rx(regs::rx::command), regs::command::start);
    }

    // A continuous sc16 TX stream whose READ requests go to the sink; nobody answers,
    // so the device requests the control page again on every timeout.
    void program_tx(axioe::client& c)
    {
        c.write32(tx(regs::tx::host_ipv4), sink.local_address().ip());
        c.write32(tx(regs::tx::host_udp_port), sink.local_address().port());
        c.write32(tx(regs::tx::host_qpn), 0x321);
        c.write32(tx(regs::tx::start_psn), 0x654);
        c.write32(tx(regs::tx::rkey), 0xDCBA);
        c.write64(tx(regs::tx::va_lo), 0x7f0000100000ull);
        c.write64(tx(regs::tx::ring_bytes_lo), 65536);
        c.write32(tx(regs::tx::ctrl_rkey), 0x1234);
        c.write64(tx(regs::tx::ctrl_va_lo), 0x7f0000200000ull);
        c.write32(tx(regs::tx::rate_num), 1000000);
        c.write32(tx_emu(regs::emu_tx::check), 1);
    }
    static void start_tx(axioe::client& c)
    {
        c.write32(tx(regs::tx::command), regs::command::start);
    }
    bool tx_owned() const { return dev.registers().tx_owner_of(0).owned; }

    // Packets the sink receives within \p window.
    size_t packets_within(std::chrono::milliseconds window)
    {
        size_t n = 0;
        std::vector<uint8_t> buf(9000);
        const auto end = std::chrono::steady_clock::now() + window;
        while (std::chrono::steady_clock::now() < end) {
            datagram d;
            d.data = buf.data();
            d.capacity = buf.size();
            n += sink.receive(d, 5ms);
        }
        return n;
    }
    // Whether the stream has stopped: once what was in flight is drained, silence.
    bool silent()
    {
        packets_within(50ms);
        return packets_within(100ms) == 0;
    }

    emu::emulator dev;
    udp_socket sink;
};

} // namespace qa_ownership_bench

#endif
