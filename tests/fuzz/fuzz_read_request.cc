/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the soft NIC's responder facing a READ-only region (a TX ring) on a
// QP that takes the device's SEND ONLY (WITH IMMEDIATE) notifications: arbitrary
// datagrams, optionally made plausible (sealed, addressed to the QP, naming the
// region), go through soft_responder::process_udp. abort() marks a broken invariant:
// the region (and its guards) changed, a READ RESPONSE would carry bytes from outside
// the region or break the packet rules, or a SEND was not taken as rxe takes it (an
// accepted SEND consumes exactly one receive and completes it successfully with 0
// bytes and its immediate, ACKed when it asks; nothing else completes successfully;
// a SEND with a payload, or on UC, is never accepted).
//
// Input: byte 0: bit 0 UC instead of RC, bits 1..2 QP access (remote write, remote
// read), bits 3..5 path MTU (256 << n, capped at 4096), bits 6..7 max_dest_rd_atomic
// (1, 2, 4, 16); bytes 1..3: expected PSN; then records of
// [flags][length hi][length lo][datagram of that length]. Flags: bit 0 seal the ICRC,
// bit 1 DestQP := the QP, bit 2 RETH R_Key := the region's key, bit 3 RETH VA := the
// region's start - 4096 + (VA mod 16384), bit 4 send from a stranger, bit 5 post one
// more receive first (4 at most are posted; 4 are at the start).

#include "nic/soft_completion_queue.h"
#include "nic/soft_queue_pair.h"
#include "nic/soft_responder.h"
#include "nic/soft_tables.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::nic;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

constexpr size_t region_bytes = 8192;
constexpr size_t guard = 4096;

void store_be32(uint8_t* p, uint32_t v)
{
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
}

void store_be64(uint8_t* p, uint64_t v)
{
    store_be32(p, uint32_t(v >> 32));
    store_be32(p + 4, uint32_t(v));
}

uint64_t load_be64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

// A SEND as rxe takes it: only on RC, without payload, into a posted receive, which it
// completes with its immediate; no other datagram completes a receive successfully.
void check_send(const std::vector<uint8_t>& packet,
                rx_result result,
                const qp_context& qp,
                int receives_before,
                completion_ring& completions,
                const reply& r)
{
    work_completion wc[16];
    const int n = completions.pop(wc, 16);
    int succeeded = 0;
    for (int i = 0; i < n; i++) {
        require(wc[i].qpn == qp.qpn);
        succeeded += wc[i].status == wc_status::success;
    }
    require(qp.receives.size() <= receives_before);
    roce::packet p;
    const bool parsed =
        roce::parse(packet.data(), packet.size(), p) == roce::parse_status::ok;
    const roce::opcode_info info =
        parsed ? roce::describe(p.base.opcode) : roce::opcode_info{};
    // What completes a receive successfully: a SEND, or the end of a WRITE WITH
    // IMMEDIATE (zero-length: it names no memory), accepted; one receive each.
    const bool completes = result == rx_result::accepted &&
                           (info.is_send || (info.has_imm && info.ends_message));
    require(succeeded == (completes ? 1 : 0));
    if (completes)
        require(qp.receives.size() == receives_before - 1 && n == 1);
    if (!completes || !info.is_send)
        return;
    require(qp.type == qp_type::rc && p.payload_len == 0 && p.base.pad_count == 0);
    require(wc[0].byte_len == 0);
    require(wc[0].imm_data == (p.has_imm ? p.imm : 0));
    require(!r.read.needed);
    require(r.needed == p.base.ack_req);
    if (r.needed)
        require(r.syndrome == roce::syndrome::ack_unlimited && r.psn == p.base.psn);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 4)
        return 0;
    soft_tables tables;
    const uint32_t pd = tables.new_pd();

    std::vector<uint8_t> memory(guard + region_bytes + guard);
    for (size_t i = 0; i < memory.size(); i++)
        memory[i] = static_cast<uint8_t>(i * 131 + 7);
    const std::vector<uint8_t> before = memory;
    uint8_t* const region = memory.data() + guard;
    mr_entry mr;
    mr.addr = region;
    mr.length = region_bytes;
    mr.access = access_remote_read; // a TX ring: never remote write
    mr.pd = pd;
    const uint32_t rkey = tables.add_mr(mr);

    const uint8_t setup = data[0];
    const unsigned mtu = 256u << std::min(4, (setup >> 3) & 7);
    const unsigned rd_atomic[] = { 1, 2, 4, 16 };
    const auto completions = std::make_shared<completion_ring>(16, &tables);
    qp_context qp(setup & 1 ? qp_type::uc : qp_type::rc, pd, completions, 4);
    qp.reads.resize(rd_atomic[setup >> 6]);
    qp.remote_access = ((setup >> 1) & 1 ? access_remote_write : 0) |
                       ((setup >> 2) & 1 ? access_remote_read : 0);
    qp.peer.address = socket_address(0x7F000002, 5000);
    qp.peer.qpn = 0xABC;
    qp.path_mtu = mtu;
    qp.reset_responder((uint32_t(data[1]) << 16 | uint32_t(data[2]) << 8 | data[3]) &
                       0xFFFFFF);
    qp.receives.post(1, 4);
    qp.state = qp_state::rts;
    qp.qpn = tables.add_qp(&qp);

    soft_responder responder(tables);
    const socket_address local(0x7F000001, 4791);
    const socket_address stranger(0x7F000003, 5000);
    std::vector<uint8_t> packet;
    std::vector<uint8_t> out(std::max(read_response_bytes(mtu), reply_bytes));

    size_t at = 4;
    while (at + 3 <= size) {
        const uint8_t flags = data[at];
        const size_t want = size_t(data[at + 1]) << 8 | data[at + 2];
        at += 3;
        const size_t length = std::min(want, size - at);
        packet.assign(data + at, data + at + length);
        at += length;

        const socket_address& from = flags & 0x10 ? stranger : qp.peer.address;
        roce::packet p;
        if (roce::parse(packet.data(), packet.size(), p) == roce::parse_status::ok) {
            if (flags & 0x02)
                store_be32(packet.data() + 4, (packet[4] & 0xFFu) << 24 | qp.qpn);
            if (p.has_reth && (flags & 0x04))
                store_be32(packet.data() + roce::bth_bytes + 8, rkey);
            if (p.has_reth && (flags & 0x08)) {
                const uint64_t va = load_be64(packet.data() + roce::bth_bytes);
                store_be64(packet.data() + roce::bth_bytes,
                           reinterpret_cast<uintptr_t>(region) - guard + va % 16384);
            }
            if (flags & 0x01) {
                roce::ip_context ip;
                ip.src_ip = from.ip();
                ip.src_port = from.port();
                ip.dst_ip = local.ip();
                ip.dst_port = local.port();
                roce::seal_udp(ip, packet.data(), packet.size());
            }
        }

        if ((flags & 0x20) && qp.receives.size() < qp.receives.capacity())
            qp.receives.post(1, 1);
        const int receives = qp.receives.size();
        reply r;
        const rx_result result =
            responder.process_udp(packet.data(), packet.size(), from, local, r);
        require(memory == before); // nothing is ever written into a READ-only region
        check_send(packet, result, qp, receives, *completions, r);

        if (r.needed)
            require(write_reply(r, out.data()) == reply_bytes);
        if (!r.read.needed)
            continue;
        const read_reply& rr = r.read;
        require(qp.type == qp_type::rc && (qp.remote_access & access_remote_read));
        require(rr.mtu == mtu && rr.length <= (1u << 31));
        require(rr.packets ==
                std::max<uint32_t>(1, (rr.length + uint64_t(mtu) - 1) / mtu));
        if (rr.length == 0)
            require(rr.data == nullptr);
        else
            require(rr.data >= region && rr.length <= region_bytes &&
                    size_t(rr.data - region) <= region_bytes - rr.length);
        // Every response fits its buffer and parses back as the READ RESPONSE it claims.
        for (uint32_t i = 0; i < rr.packets; i++) {
            const size_t n = write_read_response(r, i, out.data());
            require(n <= out.size());
            roce::packet resp;
            require(roce::parse(out.data(), n, resp) == roce::parse_status::ok);
            const roce::opcode_info info = roce::describe(resp.base.opcode);
            require(info.is_read_response && resp.payload_len <= mtu);
            require(resp.base.psn == ((rr.psn + i) & 0xFFFFFF));
            require(info.ends_message == (i + 1 == rr.packets));
            if (resp.payload_len > 0)
                require(std::memcmp(resp.payload,
                                    rr.data + size_t(i) * mtu,
                                    resp.payload_len) == 0);
        }
    }
    tables.remove_qp(qp.qpn);
    tables.remove_mr(rkey);
    return 0;
}
