/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_E2E_TX_WIRE_TAP_H
#define INCLUDED_RDMA_E2E_TX_WIRE_TAP_H

#include "../util/udp_socket.h"
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * A wire between an emulated device's TX stream and the host's NIC, for tests: what the
 * device sends (READ REQUESTs, SEND WITH IMMEDIATE) goes to the NIC at once; what the
 * NIC sends back (READ RESPONSEs, ACKs) passes a gate the test sets, which forwards,
 * drops or holds each packet in order (RC: a held packet holds all after it). Each
 * forwarded packet is sealed again for its new UDP addresses.
 *
 * It keeps the account the device's requester keeps, from the wire alone: the requests
 * in PSN order, and which of them the packets it forwards complete (RC takes responses
 * in order only). So it knows, as the host side sees it, how many READs (sample and
 * control) are outstanding at the responder (asked and not yet answered to the device),
 * and when each sample message has been delivered whole.
 */
class tx_wire_tap
{
public:
    enum class verdict { forward, drop, hold };
    enum class request_kind { sample, control, notify };

    //! A packet from the host, as the gate sees it.
    struct incoming {
        bool response = false;  //!< a READ RESPONSE (else an ACK/NAK or junk)
        bool completes = false; //!< forwarded, it completes a sample READ
        uint64_t message = 0;   //!< that READ's message
    };

    struct layout {
        uint64_t ring_va = 0;
        uint32_t payload_bytes = 1024;
        uint64_t ring_slots = 1;
        uint64_t control_va = 0;
        uint32_t path_mtu = 1024;
        uint32_t start_psn = 0; //!< TX_START_PSN
    };

    //! \p device_link: where the device takes RoCEv2 (its link address).
    explicit tx_wire_tap(const socket_address& device_link);
    ~tx_wire_tap();
    tx_wire_tap(const tx_wire_tap&) = delete;
    tx_wire_tap& operator=(const tx_wire_tap&) = delete;

    //! Where the device must send (TX_HOST_IPV4, TX_HOST_UDP_PORT).
    const socket_address& device_side() const { return d_device_side.local_address(); }
    //! Where the host's QP sends back: its peer address.
    const socket_address& host_side() const { return d_host_side.local_address(); }

    //! Start relaying to and from the NIC at \p nic, for a stream laid out as \p l. The
    //! gate runs on the tap's thread, under \p gate_lock (a test may hold it while it
    //! changes what the gate reads).
    void start(const socket_address& nic,
               const layout& l,
               std::function<verdict(const incoming&)> gate,
               std::mutex* gate_lock = nullptr);
    //! Called on the tap's thread, under the gate lock, when a sample message has been
    //! delivered whole (the device takes it: it is the READ the device waits for).
    void on_delivered(std::function<void(uint64_t message)> f)
    {
        d_delivered = std::move(f);
    }
    void stop();

    //! The most READs outstanding at once.
    unsigned peak_reads() const { return d_peak.load(); }
    //! Steady-clock ns of the last packet from the device.
    int64_t last_device_packet_ns() const { return d_last_device_ns.load(); }
    uint64_t requests() const { return d_requests.load(); }   //!< first transmissions
    uint64_t repeats() const { return d_repeats.load(); }     //!< sent again
    uint64_t dropped() const { return d_dropped.load(); }     //!< by the gate
    uint64_t forwarded() const { return d_forwarded.load(); } //!< to the device

private:
    struct request {
        request_kind kind = request_kind::sample;
        uint32_t first_psn = 0;
        uint32_t packets = 1;
        uint32_t received = 0;
        uint64_t message = 0;
    };
    struct packet {
        std::vector<uint8_t> bytes;
    };

    void run();
    void from_device(uint8_t* data, size_t length);
    void from_host(const uint8_t* data, size_t length);
    void drain_queue();
    incoming classify(const std::vector<uint8_t>& bytes) const;
    void account(const std::vector<uint8_t>& bytes);
    void reseal_and_send(udp_socket& from,
                         uint8_t* data,
                         size_t length,
                         const socket_address& to);
    unsigned reads_outstanding() const;

    const socket_address d_device_link;
    layout d_layout;
    udp_socket d_device_side;
    udp_socket d_host_side;
    socket_address d_nic;
    std::function<verdict(const incoming&)> d_gate;
    std::function<void(uint64_t)> d_delivered;
    std::mutex* d_gate_lock = nullptr;

    // The tap thread's.
    std::deque<request> d_outstanding;
    std::deque<packet> d_queue; // from the host, not yet forwarded
    uint32_t d_next_psn = 0;
    int64_t d_last_message = -1;

    std::atomic<unsigned> d_peak{ 0 };
    std::atomic<int64_t> d_last_device_ns{ 0 };
    std::atomic<uint64_t> d_requests{ 0 }, d_repeats{ 0 }, d_dropped{ 0 },
        d_forwarded{ 0 };
    std::atomic<bool> d_stop{ false };
    std::thread d_thread;
};

} // namespace rdma
} // namespace gr

#endif
