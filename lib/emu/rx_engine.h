/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RX_ENGINE_H
#define INCLUDED_RDMA_EMU_RX_ENGINE_H

#include "signal_source.h"
#include "wire.h"
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! An RX stream descriptor as the host programs it (docs/register-map.md, RX block).
struct rx_descriptor {
    socket_address destination; //!< host NIC: IPv4 + UDP port
    uint32_t dest_qpn = 0;
    uint32_t start_psn = 0;
    uint32_t rkey = 0;
    uint64_t va = 0;
    uint64_t ring_bytes = 0;
    uint32_t payload_bytes = 0; //!< sample bytes per WRITE message
    uint32_t path_mtu = 4096;
    uint32_t notify_interval = 0; //!< every N-th message WITH IMMEDIATE; 0: only the last
    uint32_t rate_num = 0;
    uint32_t rate_den = 1;
    uint32_t transport = 0; //!< 0 UC
    uint64_t start_time_ns = 0; //!< device time of sample 0; 0: now
    uint64_t num_samples = 0;   //!< 0: continuous
    signal_config signal;
};

//! Why \p d cannot be streamed over a link of \p link_mtu bytes (regs::error_code).
uint32_t validate(const rx_descriptor& d, unsigned link_mtu);

struct rx_counters {
    uint64_t packets_sent = 0;
    uint64_t samples_emitted = 0;
    uint64_t packets_dropped = 0;
    uint64_t samples_dropped = 0;
    uint64_t imm_sent = 0;
};

/*!
 * The RX engine of one stream: the SDR's network logic. Paced by the device clock at
 * the sample rate, it cuts the sample stream into WRITE messages of payload_bytes,
 * computes each message's ring address (cyclic), sends every message as its own UC
 * WRITE (ONLY, or FIRST/MIDDLE/LAST above the path MTU) and every notify_interval-th
 * one, and the last of a burst, WITH IMMEDIATE = message sequence number.
 * It runs on its own thread, "emu-rx<index>", charged to the device.
 */
class rx_engine
{
public:
    rx_engine(unsigned index, wire& link);
    ~rx_engine();
    rx_engine(const rx_engine&) = delete;
    rx_engine& operator=(const rx_engine&) = delete;

    //! Validate and start; returns regs::error_code::none or why not. On success the
    //! time of sample 0 is fixed (start_time_ns()) before this returns.
    uint32_t start(const rx_descriptor& d);
    //! Stop; once this returns, no further packet of this stream leaves the device.
    void stop();

    uint32_t status() const; //!< regs::status bits and error code
    uint64_t start_time_ns() const { return d_start_time_ns.load(); }
    rx_counters counters() const;

private:
    void run();
    void stream(std::unique_lock<std::mutex>& lock);
    size_t build_message(uint64_t message, uint8_t* slots, size_t slot_bytes, outgoing_packet* out);
    size_t send_all(outgoing_packet* packets, size_t count, std::unique_lock<std::mutex>& lock);
    void account(size_t sent_packets);

    const unsigned d_index;
    wire& d_link;

    std::mutex d_mutex;
    std::condition_variable d_wake;
    bool d_running = false;  // guarded by d_mutex
    bool d_shutdown = false; // guarded by d_mutex
    bool d_idle = true;      // guarded by d_mutex: the thread is not sending
    rx_descriptor d_desc;    // guarded by d_mutex while not running; the thread's while running
    std::vector<uint8_t> d_slots;
    std::vector<outgoing_packet> d_batch;
    uint32_t d_next_psn = 0;
    int64_t d_mono_t0_ns = 0;

    std::atomic<uint32_t> d_status{ 0 };
    std::atomic<uint64_t> d_start_time_ns{ 0 };
    std::atomic<uint64_t> d_packets_sent{ 0 };
    std::atomic<uint64_t> d_samples_emitted{ 0 };
    std::atomic<uint64_t> d_imm_sent{ 0 };

    std::thread d_thread; // last: starts after everything above exists
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
