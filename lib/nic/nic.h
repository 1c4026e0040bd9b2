/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_NIC_H
#define INCLUDED_RDMA_NIC_NIC_H

#include "../roce/roce_packet.h"
#include "../util/socket_address.h"
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace gr {
namespace rdma {
namespace nic {

/*
 * The NIC interface: the subset of verbs the host side of the transport uses, shaped
 * after rdma-core so that the verbs backend maps onto it one to one, and implemented
 * by the userspace soft NIC for hosts without RDMA. Lifetime follows verbs: a child
 * (memory region, queue pair) must be destroyed before its parent (protection domain,
 * completion queue, device). Every object is an RAII handle; errors throw
 * std::system_error (setup) or appear as a completion status (data path).
 */

enum class qp_type { uc, rc };

enum class qp_state { reset, init, rtr, rts, error };

//! Memory region access rights, as ibv_access_flags.
enum access : unsigned {
    access_local_write = 1u << 0,
    access_remote_write = 1u << 1,
    access_remote_read = 1u << 2,
};

//! IB path MTU in bytes: 256, 512, 1024, 2048 or 4096.
using roce::valid_path_mtu; // RoCE's enumerated path MTUs

//! How to reach the other end of a connection (the SDR link a QP talks to).
struct remote_peer {
    socket_address
        address; //!< its IPv4 address; the port is where RC ACKs go (4791 for hardware)
    uint32_t qpn = 0; //!< its queue pair number
};

enum class wc_status { success, local_error, remote_error, flushed };
const char* to_string(wc_status status);

//! One work completion. The transport only posts receives that complete with
//! immediate data (RDMA WRITE WITH IMMEDIATE on RX, SEND WITH IMMEDIATE on TX), so that
//! is all a completion carries.
struct work_completion {
    uint64_t wr_id = 0;
    wc_status status = wc_status::success;
    uint32_t byte_len = 0; //!< length of the WRITE message that carried the immediate
    uint32_t imm_data = 0; //!< immediate data, host byte order
    uint32_t qpn = 0;      //!< local QP the completion belongs to
    //! When the NIC wrote the message's last byte: steady_clock (CLOCK_MONOTONIC) ns.
    //! Set by NICs that run in this process (soft NIC); 0: not known (verbs).
    int64_t written_ns = 0;
};

class memory_region
{
public:
    virtual ~memory_region() = default;
    virtual uint32_t lkey() const = 0;
    virtual uint32_t rkey() const = 0;
    virtual void* addr() const = 0;
    virtual size_t length() const = 0;
};

class completion_queue
{
public:
    virtual ~completion_queue() = default;
    //! Take up to \p max completions without blocking; returns how many.
    virtual int poll(work_completion* out, int max) = 0;
    //! Block until a completion arrives after the call (the CQ is armed inside), or
    //! until \p timeout passes, or until interrupt(). Returns false on timeout or
    //! interrupt. Call poll() first: completions already queued do not wake it.
    virtual bool wait(std::chrono::microseconds timeout) = 0;
    //! Wake a thread blocked in wait() (stop path).
    virtual void interrupt() = 0;
    virtual int capacity() const = 0;
};

class queue_pair
{
public:
    virtual ~queue_pair() = default;
    virtual uint32_t qpn() const = 0;
    virtual qp_type type() const = 0;
    virtual qp_state state() const = 0;
    //! RESET -> INIT with the remote access this QP grants (access_remote_write, ...).
    virtual void to_init(unsigned remote_access) = 0;
    //! INIT -> RTR: accept requests from \p peer starting at \p expected_psn.
    virtual void
    to_rtr(const remote_peer& peer, uint32_t expected_psn, unsigned path_mtu) = 0;
    //! RTR -> RTS with the PSN of the first request this QP would send.
    virtual void to_rts(uint32_t send_psn) = 0;
    //! Any state -> RESET (drops posted receives and connection state).
    virtual void to_reset() = 0;
    //! Post \p count zero-length receive work requests, numbered from \p first_wr_id,
    //! to be consumed by incoming WRITE WITH IMMEDIATE.
    virtual void post_receives(uint64_t first_wr_id, int count) = 0;
    //! Receive work requests posted and not yet consumed.
    virtual int posted_receives() const = 0;
    /*!
     * RC: the RDMA READs this QP accepts in flight as a responder (verbs'
     * max_dest_rd_atomic, set at INIT -> RTR). A peer that reads from us must keep at
     * most this many outstanding: rxe does not enforce it, so the host tells the
     * device (TX_MAX_RD_ATOMIC, docs/transmit.md). Meaningless for UC.
     */
    virtual unsigned max_dest_rd_atomic() const = 0;
};

class protection_domain
{
public:
    virtual ~protection_domain() = default;
    virtual std::unique_ptr<memory_region>
    register_memory(void* addr, size_t length, unsigned access) = 0;
    //! \p max_receives: receive work requests the QP can hold.
    virtual std::unique_ptr<queue_pair>
    create_qp(qp_type type, completion_queue& cq, int max_receives) = 0;
};

//! Packet and error counters of a device, by name ("rx_packets", "drop_bad_rkey", ...).
using counters = std::map<std::string, uint64_t>;

class device
{
public:
    virtual ~device() = default;
    virtual std::string name() const = 0;
    //! Where a peer must send RoCEv2 to reach this device's QPs (IPv4 and UDP port).
    virtual socket_address roce_address() const = 0;
    //! NUMA node the NIC is attached to, or -1 when unknown (place rings there).
    virtual int numa_node() const = 0;
    //! Largest path MTU the device supports on its port.
    virtual unsigned max_path_mtu() const = 0;
    virtual std::unique_ptr<protection_domain> alloc_pd() = 0;
    virtual std::unique_ptr<completion_queue> create_cq(int entries) = 0;
    virtual counters read_counters() const = 0;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
