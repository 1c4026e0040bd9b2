/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../roce/roce_packet.h"
#include "ipv4_frame.h"

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr uint8_t ip_proto_udp = 17;
constexpr uint16_t ip_more_fragments = 0x2000;
constexpr uint16_t ip_fragment_offset = 0x1FFF;

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

uint32_t be32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

// One's complement sum, not yet complemented.
uint32_t ones_sum(const uint8_t* p, size_t len, uint32_t sum = 0)
{
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += be16(p + i);
    if (len & 1)
        sum += uint32_t(p[len - 1]) << 8;
    return sum;
}

uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<uint16_t>(sum);
}

bool udp_checksum_ok(const uint8_t* ip, const uint8_t* udp, size_t udp_len)
{
    if (be16(udp + 6) == 0) // optional for IPv4, and what rxe sends
        return true;
    uint32_t sum = ones_sum(ip + 12, 8); // source and destination address
    sum += ip_proto_udp;
    sum += static_cast<uint32_t>(udp_len);
    return fold(ones_sum(udp, udp_len, sum)) == 0xFFFF;
}
} // namespace

rx_result check_ipv4_udp(const uint8_t* frame,
                         size_t len,
                         const socket_address& local,
                         ipv4_udp_view& out)
{
    if (len < roce::ipv4_header_bytes)
        return rx_result::drop_truncated;
    if ((frame[0] >> 4) != 4)
        return rx_result::drop_bad_ip_header;
    const size_t ihl = size_t(frame[0] & 0x0F) * 4;
    if (ihl < roce::ipv4_header_bytes)
        return rx_result::drop_bad_ip_header;
    if (len < ihl + roce::udp_header_bytes)
        return rx_result::drop_truncated;
    const size_t total = be16(frame + 2);
    if (total < ihl + roce::udp_header_bytes)
        return rx_result::drop_bad_ip_header;
    if (total > len)
        return rx_result::drop_truncated;
    if (fold(ones_sum(frame, ihl)) != 0xFFFF)
        return rx_result::drop_bad_ip_header;
    // A fragment cannot be checked or executed on its own (the kernel would reassemble).
    if (be16(frame + 6) & (ip_more_fragments | ip_fragment_offset))
        return rx_result::drop_bad_ip_header;
    if (frame[9] != ip_proto_udp)
        return rx_result::drop_bad_ip_header;

    const uint8_t* udp = frame + ihl;
    const size_t udp_len = be16(udp + 4);
    if (udp_len != total - ihl)
        return rx_result::drop_bad_ip_header;
    if (!udp_checksum_ok(frame, udp, udp_len))
        return rx_result::drop_bad_ip_header;

    out.from = socket_address(be32(frame + 12), be16(udp));
    out.to = socket_address(be32(frame + 16), be16(udp + 2));
    if (out.to.port() != local.port() && out.to.port() != roce::udp_port)
        return rx_result::drop_bad_ip_header;
    if (local.ip() != 0 && out.to.ip() != local.ip())
        return rx_result::drop_bad_ip_header;
    out.udp_payload = udp + roce::udp_header_bytes;
    out.udp_payload_len = udp_len - roce::udp_header_bytes;
    return rx_result::accepted;
}

} // namespace nic
} // namespace rdma
} // namespace gr
