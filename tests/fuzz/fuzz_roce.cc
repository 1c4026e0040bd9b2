/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the RoCEv2 codec. The input is taken as a UDP payload (what the soft
// NIC's socket delivers), when it looks like one also as an IPv4 frame (what a
// raw-socket receiver sees), and as a coalesced receive (UDP GRO: its first two bytes
// the segment size, the rest split by for_each_segment(), each part a UDP payload).
// Sanitizers catch reads outside the input; abort() marks a broken invariant of a
// packet parse() accepted, or of the split.

#include "roce/roce_packet.h"
#include "util/udp_socket.h"
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace gr::rdma::roce;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

// Invariants of an accepted packet, then a rebuild through the writer must give back
// the same bytes (all but resv7, which parse() drops) and a verifiable ICRC.
void check_accepted(const uint8_t* data, size_t size, const packet& p)
{
    const opcode_info info = describe(p.base.opcode);
    require(info.known);
    require(p.headers_len == headers_size(p.base.opcode));
    require(p.payload == data + p.headers_len);
    require(p.payload + p.payload_len + p.base.pad_count + icrc_bytes == data + size);
    require(p.base.tver == 0 && p.base.pad_count < 4);
    require(p.base.dest_qp <= 0xFFFFFF && p.base.psn <= 0xFFFFFF);
    require(p.has_reth == info.has_reth && p.has_imm == info.has_imm &&
            p.has_aeth == info.has_aeth);
    require(p.icrc == load_icrc(data + size - icrc_bytes));

    uint8_t hdr[bth_bytes + reth_bytes + immdt_bytes + aeth_bytes];
    const size_t hdr_len = write_headers(hdr, p.base, &p.reth_hdr, &p.imm, &p.aeth_hdr);
    require(hdr_len == p.headers_len);
    hdr[8] = static_cast<uint8_t>(hdr[8] | (data[8] & 0x7F)); // resv7
    require(std::memcmp(hdr, data, hdr_len) == 0);

    const ip_context ip;
    const uint32_t icrc = compute_icrc(ip, data, size - icrc_bytes);
    std::vector<uint8_t> copy(data, data + size);
    seal_udp(ip, copy.data(), copy.size());
    require(load_icrc(copy.data() + size - icrc_bytes) == icrc);
    packet again;
    require(parse(copy.data(), copy.size(), again) == parse_status::ok);
    require(again.icrc == icrc && again.payload_len == p.payload_len);
}

void fuzz_udp_payload(const uint8_t* data, size_t size)
{
    packet p;
    const parse_status status = parse(data, size, p);
    require(to_string(status) != nullptr);
    if (status == parse_status::ok)
        check_accepted(data, size, p);
    // The ICRC itself must cope with any length, even one that is not a packet.
    if (size >= icrc_bytes)
        compute_icrc(ip_context(), data, size - icrc_bytes);
}

void fuzz_ipv4_frame(const uint8_t* data, size_t size)
{
    if (size < ipv4_header_bytes || (data[0] >> 4) != 4)
        return;
    const size_t ihl = size_t(data[0] & 0x0F) * 4;
    if (ihl < ipv4_header_bytes || size < ihl + udp_header_bytes + bth_bytes + icrc_bytes)
        return;
    const uint32_t icrc = compute_icrc_frame(data, size - icrc_bytes);
    std::vector<uint8_t> copy(data, data + size);
    seal_frame(copy.data(), copy.size());
    require(load_icrc(copy.data() + size - icrc_bytes) == icrc);
    fuzz_udp_payload(data + ihl + udp_header_bytes, size - ihl - udp_header_bytes);
}

// The parts of a coalesced receive tile it exactly: in order, none empty unless the
// buffer is, none longer than the segment size; each is parsed as a datagram.
void fuzz_coalesced(const uint8_t* data, size_t size)
{
    if (size < 2)
        return;
    std::vector<uint8_t> buffer(data + 2, data + size); // exactly the received bytes
    gr::rdma::datagram d;
    d.data = buffer.data();
    d.capacity = d.length = buffer.size();
    d.segment = size_t(data[0]) << 8 | data[1];
    size_t next = 0, parts = 0;
    gr::rdma::for_each_segment(d, [&](const uint8_t* part, size_t length) {
        require(part == buffer.data() + next);
        require(length > 0 || buffer.empty());
        require(!d.coalesced() || length <= d.segment);
        next += length;
        parts++;
        fuzz_udp_payload(part, length);
    });
    require(next == buffer.size() && parts >= 1);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_udp_payload(data, size);
    fuzz_ipv4_frame(data, size);
    fuzz_coalesced(data, size);
    return 0;
}
