/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_QA_NIC_FIXTURE_H
#define INCLUDED_RDMA_NIC_QA_NIC_FIXTURE_H

// Test helpers shared by the soft NIC suites: packets built with the codec, a memory
// buffer with guard zones, and a soft NIC with one QP ready to receive.

#include "../roce/roce_packet.h"
#include "soft_nic.h"
#include <cppunit/extensions/HelperMacros.h>
#include <initializer_list>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace qa_nic {

using namespace gr::rdma;
using namespace gr::rdma::nic;

inline std::vector<uint8_t> pattern(size_t n, uint8_t seed)
{
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 8));
    return v;
}

//! One request packet. Headers the opcode does not carry are ignored.
struct request {
    uint8_t opcode = roce::opcode::uc | roce::opcode::write_only;
    uint32_t qpn = 0;
    uint32_t psn = 0;
    bool ack_req = false;
    uint16_t pkey = roce::default_pkey;
    uint8_t tver = 0;
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint32_t dma_length = 0;
    uint32_t imm = 0;
    std::vector<uint8_t> payload;
    int pad_count = -1; //!< -1: pad_for(payload); else that many zero pad bytes
};

//! The UDP payload of \p r, sealed with the UDP-mode ICRC for from -> to.
inline std::vector<uint8_t>
build_udp(const request& r, const socket_address& from, const socket_address& to)
{
    const uint8_t pad = r.pad_count < 0 ? roce::pad_for(r.payload.size())
                                        : static_cast<uint8_t>(r.pad_count);
    std::vector<uint8_t> out(64 + r.payload.size() + 8, 0);
    roce::bth b;
    b.opcode = r.opcode;
    b.dest_qp = r.qpn;
    b.psn = r.psn;
    b.ack_req = r.ack_req;
    b.pkey = r.pkey;
    b.tver = r.tver;
    b.pad_count = pad;
    roce::reth h;
    h.va = r.va;
    h.rkey = r.rkey;
    h.dma_length = r.dma_length;
    const size_t hdr = roce::write_headers(out.data(), b, &h, &r.imm);
    if (!r.payload.empty())
        std::memcpy(out.data() + hdr, r.payload.data(), r.payload.size());
    const size_t len = hdr + r.payload.size() + pad + roce::icrc_bytes;
    out.resize(len); // pad and ICRC slot are already zero
    roce::ip_context ip;
    ip.src_ip = from.ip();
    ip.src_port = from.port();
    ip.dst_ip = to.ip();
    ip.dst_port = to.port();
    roce::seal_udp(ip, out.data(), len);
    return out;
}

//! The whole IPv4 frame of \p r for \p ip, sealed with the frame ICRC.
inline std::vector<uint8_t> build_frame(const request& r, const roce::ip_context& ip)
{
    // Build the UDP payload for any addresses, then re-seal over the real header.
    std::vector<uint8_t> udp = build_udp(r, socket_address(), socket_address());
    std::vector<uint8_t> frame(roce::ipv4_header_bytes + roce::udp_header_bytes +
                               udp.size());
    const size_t h = roce::write_ipv4_udp(frame.data(), ip, udp.size());
    std::memcpy(frame.data() + h, udp.data(), udp.size());
    roce::seal_frame(frame.data(), frame.size());
    return frame;
}

//! Memory with guard zones on both sides, all filled with a sentinel pattern.
struct guarded_buffer {
    static constexpr size_t guard = 4096;

    explicit guarded_buffer(size_t size) : bytes(size), mem(guard + size + guard)
    {
        for (size_t i = 0; i < mem.size(); i++)
            mem[i] = static_cast<uint8_t>(i * 131 + 7);
        snapshot();
    }
    uint8_t* data() { return mem.data() + guard; }
    uint64_t va(size_t offset) { return reinterpret_cast<uintptr_t>(data()) + offset; }
    void snapshot() { expected = mem; }
    bool unchanged() const { return mem == expected; }
    //! Expect \p content at \p offset from now on (for later unchanged() checks).
    void expect(size_t offset, const std::vector<uint8_t>& content)
    {
        std::memcpy(expected.data() + guard + offset, content.data(), content.size());
    }

    size_t bytes;
    std::vector<uint8_t> mem;
    std::vector<uint8_t> expected;
};

inline soft_nic_config test_config(bool thread)
{
    soft_nic_config c;
    // Granted by a default net.core.rmem_max (212992): no warning in test logs. The
    // threaded tests keep less than that in flight.
    c.socket_buffer_bytes = 256u << 10;
    c.start_thread = thread;
    return c;
}

/*!
 * A soft NIC (no thread unless asked), one PD and CQ, an MR over the middle of a
 * 64 KiB guarded buffer, and a QP in RTS connected to \p peer with PSN 0.
 */
struct nic_fixture {
    explicit nic_fixture(
        qp_type type,
        socket_address peer_address = socket_address::parse("10.0.0.2:49152"),
        unsigned path_mtu = 1024,
        bool thread = false,
        unsigned qp_access = access_remote_write,
        unsigned mr_access = access_local_write | access_remote_write)
        : nic(test_config(thread)),
          pd(nic.alloc_pd()),
          cq(nic.create_cq(64)),
          ring(64 * 1024),
          mr(pd->register_memory(ring.data(), ring.bytes, mr_access)),
          qp(pd->create_qp(type, *cq, 16)),
          peer(peer_address),
          mtu(path_mtu)
    {
        qp->to_init(qp_access);
        qp->to_rtr({ peer, 0x000ABC }, 0, mtu);
        qp->to_rts(0);
    }

    uint8_t transport() const
    {
        return qp->type() == qp_type::rc ? roce::opcode::rc : roce::opcode::uc;
    }

    //! A WRITE of \p payload at \p offset of the ring, addressed to the QP.
    request write(uint8_t op, uint32_t psn, size_t offset, std::vector<uint8_t> payload)
    {
        request r;
        r.opcode = transport() | op;
        r.qpn = qp->qpn();
        r.psn = psn;
        r.va = ring.va(offset);
        r.rkey = mr->rkey();
        r.dma_length = static_cast<uint32_t>(payload.size());
        r.payload = std::move(payload);
        return r;
    }

    rx_result send(const request& r) { return send_from(r, peer); }
    rx_result send_from(const request& r, const socket_address& from)
    {
        const auto bytes = build_udp(r, from, nic.roce_address());
        return nic.process_udp_payload(
            bytes.data(), bytes.size(), from, nic.roce_address());
    }

    uint64_t counter(const std::string& name) const
    {
        return nic.read_counters().at(name);
    }

    std::vector<work_completion> poll_all()
    {
        std::vector<work_completion> out(cq->capacity());
        out.resize(static_cast<size_t>(cq->poll(out.data(), cq->capacity())));
        return out;
    }

    soft_nic nic;
    std::unique_ptr<protection_domain> pd;
    std::unique_ptr<completion_queue> cq;
    guarded_buffer ring;
    std::unique_ptr<memory_region> mr;
    std::unique_ptr<queue_pair> qp;
    socket_address peer;
    unsigned mtu;
};

/*!
 * Feed \p bytes and check the acceptance criteria of a rejection: the verdict is
 * \p reason, its counter grew by exactly one and no other counter moved except those
 * in \p may_change, nothing was accepted or completed, and the whole buffer
 * (guards included) still holds what it held before.
 */
inline void expect_drop(nic_fixture& f,
                        const std::vector<uint8_t>& bytes,
                        const socket_address& from,
                        rx_result reason,
                        std::initializer_list<const char*> may_change = {})
{
    const counters before = f.nic.read_counters();
    const rx_result r =
        f.nic.process_udp_payload(bytes.data(), bytes.size(), from, f.nic.roce_address());
    CPPUNIT_ASSERT_EQUAL(std::string(to_string(reason)), std::string(to_string(r)));
    const counters after = f.nic.read_counters();
    for (const auto& [name, value] : after) {
        bool free = name == "rx_datagrams";
        for (const char* m : may_change)
            free = free || name == m;
        const uint64_t expected = before.at(name) + (name == to_string(reason) ? 1 : 0);
        if (!free)
            CPPUNIT_ASSERT_EQUAL_MESSAGE(name, expected, value);
    }
    CPPUNIT_ASSERT_EQUAL(before.at("rx_datagrams") + 1, after.at("rx_datagrams"));
    CPPUNIT_ASSERT(f.ring.unchanged());
    // A drop completes nothing, unless the caller expects flushes (QP into ERROR).
    bool may_complete = false;
    for (const char* m : may_change)
        may_complete = may_complete || std::string(m) == "completions";
    if (!may_complete) {
        work_completion wc;
        CPPUNIT_ASSERT_EQUAL(0, f.cq->poll(&wc, 1));
    }
}

inline void expect_drop(nic_fixture& f,
                        const request& r,
                        rx_result reason,
                        std::initializer_list<const char*> may_change = {})
{
    expect_drop(
        f, build_udp(r, f.peer, f.nic.roce_address()), f.peer, reason, may_change);
}

} // namespace qa_nic

#endif
