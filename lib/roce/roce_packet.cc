/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "crc32.h"
#include "roce_packet.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {
namespace roce {

namespace {

uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

uint32_t load_be24(const uint8_t* p)
{
    return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | uint32_t(p[2]);
}

uint32_t load_be32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) |
           uint32_t(p[3]);
}

uint64_t load_be64(const uint8_t* p)
{
    return (uint64_t(load_be32(p)) << 32) | load_be32(p + 4);
}

void store_be16(uint8_t* p, uint16_t v)
{
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}

void store_be24(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 16);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v);
}

void store_be32(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

void store_be64(uint8_t* p, uint64_t v)
{
    store_be32(p, static_cast<uint32_t>(v >> 32));
    store_be32(p + 4, static_cast<uint32_t>(v));
}

constexpr uint8_t bth_se = 0x80;
constexpr uint8_t bth_mig = 0x40;
constexpr uint8_t bth_pad_shift = 4;
constexpr uint8_t bth_tver_mask = 0x0F;
constexpr uint8_t bth_ack = 0x80;
constexpr uint32_t mask24 = 0x00FFFFFF;
constexpr uint8_t ip_proto_udp = 17;
constexpr uint16_t ip_flag_df = 0x4000;

// Offsets of the fields the ICRC replaces by all-ones (rxe_icrc.c:96-121).
constexpr size_t ip_tos_at = 1;
constexpr size_t ip_ttl_at = 8;
constexpr size_t ip_checksum_at = 10;
constexpr size_t udp_checksum_at = 6;
constexpr size_t bth_resv8a_at = 4;

constexpr size_t max_ipv4_header_bytes = 60;

// RoCEv2 has no LRH; the ICRC still starts as if 8 masked (all-ones) LRH bytes came
// first, which is where rxe's 0xdebb20e3 seed comes from.
uint32_t icrc_seed()
{
    static const uint8_t lrh[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    return crc32(0, lrh, sizeof(lrh));
}

void fill_ones(uint8_t* p, size_t at, size_t n, size_t limit)
{
    for (size_t i = at; i < at + n && i < limit; i++)
        p[i] = 0xFF;
}

// ICRC over an IP header of ip_len bytes and the UDP header that follows it, both in the
// caller's stack copy at ip_udp (masked here, in place), then the UDP payload of len
// bytes, whose BTH is masked in a copy since the payload is not ours to change. A BTH cut
// short (a broken caller contract) is covered as far as it exists, never read beyond.
uint32_t icrc_over(uint8_t* ip_udp, size_t ip_len, const uint8_t* udp_payload, size_t len)
{
    fill_ones(ip_udp, ip_tos_at, 1, ip_len);
    fill_ones(ip_udp, ip_ttl_at, 1, ip_len);
    fill_ones(ip_udp, ip_checksum_at, 2, ip_len);
    fill_ones(ip_udp + ip_len, udp_checksum_at, 2, udp_header_bytes);

    uint8_t bth_copy[bth_bytes];
    const size_t bth_len = std::min(len, bth_bytes);
    if (bth_len > 0)
        std::memcpy(bth_copy, udp_payload, bth_len);
    fill_ones(bth_copy, bth_resv8a_at, 1, bth_len);

    uint32_t crc = icrc_seed();
    crc = crc32(crc, ip_udp, ip_len + udp_header_bytes);
    crc = crc32(crc, bth_copy, bth_len);
    if (len > bth_len)
        crc = crc32(crc, udp_payload + bth_len, len - bth_len);
    return crc;
}

uint16_t ipv4_checksum(const uint8_t* hdr, size_t len)
{
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += load_be16(hdr + i);
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

// Builds the 28-byte IPv4 + UDP header that write_ipv4_udp() sends and compute_icrc()
// assumes, so that the two cannot disagree.
void build_ipv4_udp(
    uint8_t* out, const ip_context& ip, size_t udp_payload_len, uint8_t tos, uint8_t ttl)
{
    const size_t udp_len = udp_header_bytes + udp_payload_len;
    out[0] = 0x45;
    out[1] = tos;
    store_be16(out + 2, static_cast<uint16_t>(ipv4_header_bytes + udp_len));
    store_be16(out + 4, ip.ip_id);
    store_be16(out + 6, ip.dont_fragment ? ip_flag_df : 0);
    out[8] = ttl;
    out[9] = ip_proto_udp;
    store_be16(out + 10, 0);
    store_be32(out + 12, ip.src_ip);
    store_be32(out + 16, ip.dst_ip);
    store_be16(out + 10, ipv4_checksum(out, ipv4_header_bytes));

    uint8_t* udp = out + ipv4_header_bytes;
    store_be16(udp, ip.src_port);
    store_be16(udp + 2, ip.dst_port);
    store_be16(udp + 4, static_cast<uint16_t>(udp_len));
    store_be16(udp + 6, 0); // optional for IPv4; rxe sends 0 too (rxe_net.c:223)
}

} // namespace

opcode_info describe(uint8_t op)
{
    opcode_info info;
    const uint8_t transport = transport_of(op);
    if (transport != opcode::rc && transport != opcode::uc)
        return info;
    const uint8_t operation = operation_of(op);
    // UC has no responder-generated traffic: no READ, no ACK (IBA table 38).
    if (transport == opcode::uc &&
        (operation < opcode::write_first || operation > opcode::write_only_imm))
        return info;

    // Flags after rxe_opcode.c: single-packet messages (READ REQUEST, ACK) are both
    // START and END there, so they are here.
    if (transport == opcode::uc &&
        (operation == opcode::send_only || operation == opcode::send_only_imm))
        return info;
    switch (operation) {
    case opcode::send_only:
        info.starts_message = info.ends_message = info.is_send = true;
        break;
    case opcode::send_only_imm:
        info.has_imm = info.starts_message = info.ends_message = info.is_send = true;
        break;
    case opcode::write_first:
        info.has_reth = info.starts_message = info.is_write = true;
        break;
    case opcode::write_middle:
        info.is_write = true;
        break;
    case opcode::write_last:
        info.ends_message = info.is_write = true;
        break;
    case opcode::write_last_imm:
        info.has_imm = info.ends_message = info.is_write = true;
        break;
    case opcode::write_only:
        info.has_reth = info.starts_message = info.ends_message = info.is_write = true;
        break;
    case opcode::write_only_imm:
        info.has_reth = info.has_imm = info.starts_message = info.ends_message = true;
        info.is_write = true;
        break;
    case opcode::read_request:
        info.has_reth = info.starts_message = info.ends_message = true;
        info.is_read_request = true;
        break;
    case opcode::read_response_first:
        info.has_aeth = info.starts_message = info.is_read_response = true;
        break;
    case opcode::read_response_middle:
        info.is_read_response = true;
        break;
    case opcode::read_response_last:
        info.has_aeth = info.ends_message = info.is_read_response = true;
        break;
    case opcode::read_response_only:
        info.has_aeth = info.starts_message = info.ends_message = true;
        info.is_read_response = true;
        break;
    case opcode::acknowledge:
        info.has_aeth = info.starts_message = info.ends_message = info.is_ack = true;
        break;
    default:
        return info;
    }
    info.known = true;
    return info;
}

size_t headers_size(uint8_t op)
{
    const opcode_info info = describe(op);
    if (!info.known)
        return 0;
    return bth_bytes + (info.has_reth ? reth_bytes : 0) +
           (info.has_imm ? immdt_bytes : 0) + (info.has_aeth ? aeth_bytes : 0);
}

const char* to_string(parse_status status)
{
    switch (status) {
    case parse_status::ok:
        return "ok";
    case parse_status::truncated:
        return "truncated";
    case parse_status::bad_version:
        return "bad transport version";
    case parse_status::unknown_opcode:
        return "unknown opcode";
    }
    return "invalid parse_status";
}

parse_status parse(const uint8_t* data, size_t len, packet& out)
{
    out = packet();
    if (len < bth_bytes)
        return parse_status::truncated;

    bth& b = out.base;
    b.opcode = data[0];
    b.solicited = (data[1] & bth_se) != 0;
    b.mig_req = (data[1] & bth_mig) != 0;
    b.pad_count = (data[1] >> bth_pad_shift) & 3;
    b.tver = data[1] & bth_tver_mask;
    b.pkey = load_be16(data + 2);
    b.resv8a = data[4];
    b.dest_qp = load_be24(data + 5);
    b.ack_req = (data[8] & bth_ack) != 0;
    b.psn = load_be24(data + 9);

    // Version first: with another TVer the opcode means nothing to us.
    if (b.tver != 0)
        return parse_status::bad_version;
    const opcode_info info = describe(b.opcode);
    if (!info.known)
        return parse_status::unknown_opcode;

    const size_t hdr_len = headers_size(b.opcode);
    // Written as a subtraction-free comparison: len is untrusted, the sum is small.
    if (len < hdr_len + b.pad_count + icrc_bytes)
        return parse_status::truncated;

    const uint8_t* p = data + bth_bytes;
    if (info.has_reth) {
        out.has_reth = true;
        out.reth_hdr.va = load_be64(p);
        out.reth_hdr.rkey = load_be32(p + 8);
        out.reth_hdr.dma_length = load_be32(p + 12);
        p += reth_bytes;
    }
    if (info.has_imm) {
        out.has_imm = true;
        out.imm = load_be32(p);
        p += immdt_bytes;
    }
    if (info.has_aeth) {
        out.has_aeth = true;
        out.aeth_hdr.syndrome = p[0];
        out.aeth_hdr.msn = load_be24(p + 1);
        p += aeth_bytes;
    }
    out.headers_len = hdr_len;
    out.payload = p;
    out.payload_len = len - hdr_len - b.pad_count - icrc_bytes;
    out.icrc = load_icrc(data + len - icrc_bytes);
    return parse_status::ok;
}

size_t write_headers(
    uint8_t* out, const bth& b, const reth* r, const uint32_t* imm, const aeth* a)
{
    out[0] = b.opcode;
    out[1] = static_cast<uint8_t>((b.solicited ? bth_se : 0) | (b.mig_req ? bth_mig : 0) |
                                  ((b.pad_count & 3) << bth_pad_shift) |
                                  (b.tver & bth_tver_mask));
    store_be16(out + 2, b.pkey);
    out[4] = b.resv8a;
    store_be24(out + 5, b.dest_qp & mask24);
    store_be32(out + 8, (b.ack_req ? uint32_t(bth_ack) << 24 : 0) | (b.psn & mask24));

    // A missing header the opcode requires is written as zeros rather than read
    // through a null pointer, so the packet at least has the right shape.
    const opcode_info info = describe(b.opcode);
    uint8_t* p = out + bth_bytes;
    if (info.has_reth) {
        const reth none;
        const reth& h = r ? *r : none;
        store_be64(p, h.va);
        store_be32(p + 8, h.rkey);
        store_be32(p + 12, h.dma_length);
        p += reth_bytes;
    }
    if (info.has_imm) {
        store_be32(p, imm ? *imm : 0);
        p += immdt_bytes;
    }
    if (info.has_aeth) {
        const aeth none;
        const aeth& h = a ? *a : none;
        p[0] = h.syndrome;
        store_be24(p + 1, h.msn & mask24);
        p += aeth_bytes;
    }
    return static_cast<size_t>(p - out);
}

size_t finish(uint8_t* udp_payload, size_t headers_len, size_t payload_len)
{
    const size_t pad = pad_for(payload_len);
    // Pad and ICRC are contiguous: zero both at once.
    std::memset(udp_payload + headers_len + payload_len, 0, pad + icrc_bytes);
    return headers_len + payload_len + pad + icrc_bytes;
}

uint32_t compute_icrc(const ip_context& ip, const uint8_t* udp_payload, size_t len)
{
    uint8_t ip_udp[ipv4_header_bytes + udp_header_bytes];
    build_ipv4_udp(ip_udp, ip, len + icrc_bytes, 0, 0);
    return icrc_over(ip_udp, ipv4_header_bytes, udp_payload, len);
}

uint32_t compute_icrc_frame(const uint8_t* ipv4, size_t len)
{
    if (len == 0)
        return icrc_seed();
    // rxe covers the whole IP header, options included (rxe_icrc.c:81-89).
    const size_t ihl = size_t(ipv4[0] & 0x0F) * 4;
    uint8_t ip_udp[max_ipv4_header_bytes + udp_header_bytes];
    const size_t copied = std::min(len, ihl + udp_header_bytes);
    std::memcpy(ip_udp, ipv4, copied);
    if (copied < ihl + udp_header_bytes) {
        // Contract broken (frame shorter than its headers): hash only what exists.
        const size_t ip_len = std::min(copied, ihl);
        fill_ones(ip_udp, ip_tos_at, 1, ip_len);
        fill_ones(ip_udp, ip_ttl_at, 1, ip_len);
        fill_ones(ip_udp, ip_checksum_at, 2, ip_len);
        fill_ones(ip_udp, ihl + udp_checksum_at, 2, copied);
        return crc32(icrc_seed(), ip_udp, copied);
    }
    return icrc_over(ip_udp, ihl, ipv4 + copied, len - copied);
}

void seal_udp(const ip_context& ip, uint8_t* udp_payload, size_t len)
{
    if (len < icrc_bytes)
        return;
    const size_t body = len - icrc_bytes;
    store_icrc(udp_payload + body, compute_icrc(ip, udp_payload, body));
}

size_t write_ipv4_udp(
    uint8_t* out, const ip_context& ip, size_t udp_payload_len, uint8_t tos, uint8_t ttl)
{
    build_ipv4_udp(out, ip, udp_payload_len, tos, ttl);
    return ipv4_header_bytes + udp_header_bytes;
}

void seal_frame(uint8_t* ipv4, size_t len)
{
    if (len < icrc_bytes)
        return;
    const size_t body = len - icrc_bytes;
    store_icrc(ipv4 + body, compute_icrc_frame(ipv4, body));
}

uint32_t load_icrc(const uint8_t* at)
{
    return uint32_t(at[0]) | (uint32_t(at[1]) << 8) | (uint32_t(at[2]) << 16) |
           (uint32_t(at[3]) << 24);
}

void store_icrc(uint8_t* at, uint32_t icrc)
{
    at[0] = static_cast<uint8_t>(icrc);
    at[1] = static_cast<uint8_t>(icrc >> 8);
    at[2] = static_cast<uint8_t>(icrc >> 16);
    at[3] = static_cast<uint8_t>(icrc >> 24);
}

} // namespace roce
} // namespace rdma
} // namespace gr
