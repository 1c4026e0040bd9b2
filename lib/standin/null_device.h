/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STANDIN_NULL_DEVICE_H
#define INCLUDED_RDMA_STANDIN_NULL_DEVICE_H

#include "../axioe/axioe_server.h"
#include "../emu/register_file.h"
#include "../emu/rx_descriptor.h"
#include "../emu/rx_engine.h"
#include "../emu/stream_thread.h"
#include "../emu/wire.h"
#include "null_nic.h"
#include <atomic>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {
namespace standin {

/*!
 * type=null: the device half of the zero-copy ceiling benchmark (docs/performance.md),
 * paired with a null NIC (nic/null_nic.h) in the same process. Nothing moves samples:
 * at the configured rate it hands the null NIC one record per WRITE message (where it
 * goes, how long it is, its immediate data), and the NIC writes only the placeholder
 * positions of each packet and pushes the completions. The host runs its normal path
 * (rx_source/rx_stream: completions, progress, placeholder checks, work()), so what it
 * spends per GB is the GNU Radio side of the transport with no transport under it.
 *
 * The host drives it through AXIoE with the register map of docs/register-map.md, as it
 * drives any device: the descriptor registers, clock, identity and link blocks are an
 * ordinary register_file (whose RX engine never runs); RX stream 0's COMMAND, STATUS,
 * START_TIME and counters are this device's own. It is not an emulator (no CAP_EMULATOR:
 * no signals, no impairments), streams UC only, and has one RX stream and one link that
 * exists only in this process. Its pacing thread, "null-dev", is charged to the device.
 */
class null_device
{
public:
    explicit null_device(
        const socket_address& control = socket_address::parse("127.0.0.1:0"));
    ~null_device();
    null_device(const null_device&) = delete;
    null_device& operator=(const null_device&) = delete;

    socket_address control_address() const { return d_server->address(); }

private:
    class idle_wire;
    class target;

    uint32_t start(const emu::rx_descriptor& d);
    void stop();
    void stream(emu::stream_thread::lock_type& lock);
    bool has_immediate(uint64_t message) const;
    uint64_t samples_in(uint64_t message) const;

    // Guarded by d_thread's lock; the descriptor and port are the thread's while running.
    emu::rx_descriptor d_desc;
    std::shared_ptr<null_port> d_port;
    int64_t d_mono_t0_ns = 0;

    std::atomic<uint32_t> d_status{ 0 };
    std::atomic<uint64_t> d_start_time_ns{ 0 };
    std::atomic<bool> d_run_started{ false }; // RX_START_TIME reads d_start_time_ns
    std::atomic<uint64_t> d_packets_sent{ 0 };
    std::atomic<uint64_t> d_samples_emitted{ 0 };
    std::atomic<uint64_t> d_imm_sent{ 0 };

    // Declared in creation order; the server goes first on destruction.
    std::unique_ptr<idle_wire> d_link;
    std::unique_ptr<emu::rx_engine> d_engine; // holds the descriptor registers; never started
    std::unique_ptr<emu::register_file> d_registers;
    std::unique_ptr<target> d_target;
    emu::stream_thread d_thread;
    std::unique_ptr<axioe::server> d_server;
};

} // namespace standin
} // namespace rdma
} // namespace gr

#endif
