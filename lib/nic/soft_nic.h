/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_NIC_H
#define INCLUDED_RDMA_NIC_SOFT_NIC_H

#include "../util/event_notifier.h"
#include "../util/log.h"
#include "../util/socket_address.h"
#include "../util/udp_socket.h"
#include "../wire/frame_queue.h"
#include "nic.h"
#include "soft_counters.h"
#include "soft_responder.h"
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {
namespace nic {

class soft_tables;

struct soft_nic_config {
    //! Where peers send RoCEv2. Port 0 picks an ephemeral port, so that several soft
    //! NICs share a host; a specific IP keeps the ICRC's addresses unambiguous.
    socket_address bind_to = socket_address::parse("127.0.0.1:0");
    //! SO_RCVBUF request (0: leave the default); a warning names the fix if the kernel
    //! grants less than half of it.
    size_t socket_buffer_bytes = 32u << 20;
    unsigned max_path_mtu = 4096;
    //! false: no receive thread; feed packets through process_udp_payload() (tests).
    bool start_thread = true;
};

/*!
 * The soft NIC: a userspace RoCEv2 responder on a UDP socket for hosts without RDMA
 * hardware or kernel support (docs/soft-nic.md). It enforces what Linux rxe enforces
 * on RDMA WRITE requests, writes accepted payloads into registered memory and
 * completes WRITE WITH IMMEDIATE into CQs.
 *
 * One receive thread, "nic-rx", charged to thread_role::nic, takes datagrams in
 * batches and runs them through the responder under the table lock; no allocation
 * and no logging per packet (drops are counted, and summarised at most every 10 s).
 * The kernel coalesces the datagrams of a flow (UDP GRO) where it can: one receive
 * then holds up to 64 KiB of them, and the stack runs once for all.
 * The same thread drains frames that a wire in this process hands over directly
 * (wire::frame_queue, found by roce_address()), through the same responder path.
 */
class soft_nic : public device
{
public:
    static constexpr size_t batch_size = 64;
    static constexpr size_t slot_bytes = 9 * 1024; //!< larger datagrams: drop_truncated
    //! With GRO: receive buffers per recvmmsg, each large enough for what the kernel
    //! coalesces (up to 64 KiB of one flow's datagrams): 2 MiB, which stays in cache
    //! while processed. Without: batch_size buffers of slot_bytes.
    static constexpr size_t receive_buffers = 32;
    static constexpr size_t receive_buffer_bytes = 65536;

    explicit soft_nic(const soft_nic_config& config = {});
    //! Stops and joins the receive thread (promptly: it waits on a wake-up eventfd).
    ~soft_nic() override;
    soft_nic(const soft_nic&) = delete;
    soft_nic& operator=(const soft_nic&) = delete;

    std::string name() const override;
    socket_address roce_address() const override { return d_socket.local_address(); }
    int numa_node() const override { return -1; }
    unsigned max_path_mtu() const override { return d_config.max_path_mtu; }
    std::unique_ptr<protection_domain> alloc_pd() override;
    std::unique_ptr<completion_queue> create_cq(int entries) override;
    counters read_counters() const override;

    //! Receive buffer the kernel granted (usable bytes).
    size_t socket_buffer_bytes() const { return d_granted_buffer; }
    //! Whether the kernel coalesces datagrams for this NIC (UDP GRO).
    bool coalescing() const { return d_gro; }

    /*!
     * Process one RoCEv2 UDP payload (BTH .. ICRC) that arrived from \p from at \p to.
     * The ICRC is checked over the canonical IPv4 header (IP ID 0, DF) built from the
     * addresses and the length (docs/roce-wire.md). RC ACK/NAKs go out of this NIC's
     * socket. Thread-safe (takes the table lock).
     */
    rx_result process_udp_payload(const uint8_t* data,
                                  size_t len,
                                  const socket_address& from,
                                  const socket_address& to);

    /*!
     * Process a whole IPv4 frame (IP header .. ICRC), as the kernel and rxe would: IP
     * and UDP header sanity (see check_ipv4_udp()), destination port this NIC's or
     * 4791, then the ICRC over the real header. For in-process wires and captures.
     */
    rx_result process_ipv4_frame(const uint8_t* frame, size_t len);

private:
    void size_socket_buffer();
    void run();
    void process_batch(size_t count);
    size_t process_inproc();
    //! Send what the responder asked for (ACK/NAK, READ RESPONSEs). Table lock held.
    void send_replies(reply& r);
    void send_read_responses(const reply& r);
    void report_drops();

    const soft_nic_config d_config;
    logger_ptr d_logger;
    const std::shared_ptr<soft_tables> d_tables;
    soft_responder d_responder;
    udp_socket d_socket;
    size_t d_granted_buffer = 0;
    bool d_gro = false;
    event_notifier d_wake;
    std::vector<uint8_t> d_slot_memory;
    std::vector<datagram> d_slots;
    // One READ RESPONSE being built; guarded by the table lock, as the MR it copies from.
    std::vector<uint8_t> d_tx_packet;
    // Frames from wires in this process (emu::inproc_wire), drained by nic-rx.
    std::shared_ptr<wire::frame_queue> d_inproc;
    // Receive thread only: the rate-limited drop summary.
    std::chrono::steady_clock::time_point d_next_report;
    std::array<uint64_t, rx_result_count> d_reported{};
    std::atomic<bool> d_stop{ false };
    std::thread d_thread; // last: starts once everything it uses exists
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
