/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_ROCE_ROCE_PACKET_H
#define INCLUDED_RDMA_ROCE_ROCE_PACKET_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>

/*
 * RoCEv2 packet codec: BTH, RETH, ImmDt, AETH, pad and ICRC, as Linux rxe reads and
 * writes them (docs/roce-wire.md). Shared by the device emulator (builds) and the soft
 * NIC (parses). Everything works in place on caller buffers; nothing allocates.
 *
 * Layout of the UDP payload: BTH(12) [RETH(16)] [ImmDt(4)] [AETH(4)] payload pad ICRC(4).
 */

namespace gr {
namespace rdma {
namespace roce {

constexpr uint16_t udp_port = 4791;
constexpr size_t bth_bytes = 12;
constexpr size_t reth_bytes = 16;
constexpr size_t immdt_bytes = 4;
constexpr size_t aeth_bytes = 4;
constexpr size_t icrc_bytes = 4;
constexpr size_t ipv4_header_bytes = 20;
constexpr size_t udp_header_bytes = 8;
constexpr uint16_t default_pkey = 0xFFFF;

//! 8-bit BTH opcodes: transport class (bits 7..5) | operation (bits 4..0).
namespace opcode {
constexpr uint8_t rc = 0x00;
constexpr uint8_t uc = 0x20;
// SEND ONLY (with immediate): RC only here, the device's fetch notification
// (docs/transmit.md). Multi-packet SENDs are not used and stay unknown.
constexpr uint8_t send_only = 0x04;
constexpr uint8_t send_only_imm = 0x05;
constexpr uint8_t write_first = 0x06;
constexpr uint8_t write_middle = 0x07;
constexpr uint8_t write_last = 0x08;
constexpr uint8_t write_last_imm = 0x09;
constexpr uint8_t write_only = 0x0A;
constexpr uint8_t write_only_imm = 0x0B;
constexpr uint8_t read_request = 0x0C;
constexpr uint8_t read_response_first = 0x0D;
constexpr uint8_t read_response_middle = 0x0E;
constexpr uint8_t read_response_last = 0x0F;
constexpr uint8_t read_response_only = 0x10;
constexpr uint8_t acknowledge = 0x11;
} // namespace opcode

constexpr uint8_t transport_of(uint8_t op) { return op & 0xE0; }

//! A RoCE path MTU: 256, 512, 1024, 2048 or 4096 bytes (IBA's enumerated sizes).
constexpr bool valid_path_mtu(unsigned bytes)
{
    return bytes == 256 || bytes == 512 || bytes == 1024 || bytes == 2048 ||
           bytes == 4096;
}
constexpr uint8_t operation_of(uint8_t op) { return op & 0x1F; }

//! What an opcode implies, after rxe's opcode table. Only RC and UC opcodes of the
//! operations above are known (SEND ONLY on RC only); everything else is reported as
//! unknown.
struct opcode_info {
    bool known = false;
    bool has_reth = false;
    bool has_imm = false;
    bool has_aeth = false;
    bool starts_message = false; //!< FIRST or ONLY
    bool ends_message = false;   //!< LAST or ONLY
    bool is_write = false;
    bool is_send = false;
    bool is_read_request = false;
    bool is_read_response = false;
    bool is_ack = false;
};
RDMA_TRANSPORT_API opcode_info describe(uint8_t op);

//! AETH syndromes (bits 7..5 type, 4..0 value).
namespace syndrome {
constexpr uint8_t ack_unlimited = 0x1F;
constexpr uint8_t rnr_nak = 0x20; // | timer
constexpr uint8_t nak_psn_sequence = 0x60;
constexpr uint8_t nak_invalid_request = 0x61;
constexpr uint8_t nak_remote_access = 0x62;
constexpr uint8_t nak_remote_operational = 0x63;
} // namespace syndrome

struct bth {
    uint8_t opcode = 0;
    bool solicited = false;
    bool mig_req = false;
    uint8_t pad_count = 0; //!< 0..3
    uint8_t tver = 0;      //!< must be 0
    uint16_t pkey = default_pkey;
    uint8_t resv8a = 0;   //!< FECN|BECN|resv6; masked out of the ICRC
    uint32_t dest_qp = 0; //!< 24 bits
    bool ack_req = false;
    uint32_t psn = 0; //!< 24 bits
};

struct reth {
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint32_t dma_length = 0; //!< whole message length, not this packet's
};

struct aeth {
    uint8_t syndrome = 0;
    uint32_t msn = 0; //!< 24 bits
};

//! A parsed UDP payload. Pointers refer into the parsed buffer; nothing is copied.
struct packet {
    bth base;
    bool has_reth = false;
    reth reth_hdr;
    bool has_imm = false;
    uint32_t imm = 0; //!< host byte order
    bool has_aeth = false;
    aeth aeth_hdr;
    const uint8_t* payload = nullptr;
    size_t payload_len = 0; //!< without pad and ICRC
    size_t headers_len = 0; //!< BTH + extension headers
    uint32_t icrc = 0;      //!< as carried (little-endian on the wire)
};

enum class parse_status {
    ok,
    truncated,      //!< shorter than its headers + pad + ICRC
    bad_version,    //!< BTH TVer != 0
    unknown_opcode, //!< not an RC/UC opcode this codec knows
};
const char* to_string(parse_status status);

/*!
 * Parse the UDP payload [data, data + len). Reads nothing outside it, whatever the
 * content. On anything but parse_status::ok, \p out is unspecified.
 */
RDMA_TRANSPORT_API parse_status parse(const uint8_t* data, size_t len, packet& out);

//! Size of BTH + extension headers for \p op (0 if unknown).
size_t headers_size(uint8_t op);

//! Pad bytes for a payload of \p payload_len bytes: (-len) & 3.
constexpr uint8_t pad_for(size_t payload_len)
{
    return static_cast<uint8_t>((0 - payload_len) & 3);
}

/*!
 * Write BTH and the extension headers \p op calls for (the pointers for headers it
 * does not call for are ignored; those it needs must be non-null). Returns the header
 * length; the payload goes right after. bth.pad_count is written as given: set it to
 * pad_for(payload_len).
 */
RDMA_TRANSPORT_API size_t write_headers(uint8_t* out,
                                        const bth& b,
                                        const reth* r = nullptr,
                                        const uint32_t* imm = nullptr,
                                        const aeth* a = nullptr);

/*!
 * Finish a packet whose headers (\p headers_len bytes) and payload (\p payload_len)
 * are already at \p udp_payload: zero the pad and reserve the ICRC (zeroed). Returns
 * the full UDP payload length. Seal it with seal_udp() or seal_frame().
 */
RDMA_TRANSPORT_API size_t finish(uint8_t* udp_payload,
                                 size_t headers_len,
                                 size_t payload_len);

//! The IPv4/UDP fields the ICRC covers (all but TOS, TTL and the checksums).
struct ip_context {
    uint32_t src_ip = 0; //!< host byte order
    uint32_t dst_ip = 0;
    uint16_t src_port = 0xC000;
    uint16_t dst_port = udp_port;
    uint16_t ip_id = 0;
    bool dont_fragment = true;
};

/*!
 * ICRC of a UDP payload (BTH .. pad, \p len excludes the ICRC) as if it travelled in
 * an IPv4 header built from \p ip (IHL 5, no options, protocol UDP). For UDP sockets,
 * which hide the real IP header: both ends rebuild the same header.
 */
RDMA_TRANSPORT_API uint32_t compute_icrc(const ip_context& ip,
                                         const uint8_t* udp_payload,
                                         size_t len);

/*!
 * ICRC of a complete IPv4 frame starting at the IPv4 header (any IHL); \p len
 * excludes the trailing ICRC. The caller guarantees len covers IP + UDP + BTH.
 */
uint32_t compute_icrc_frame(const uint8_t* ipv4, size_t len);

//! Compute and store the ICRC of a finished UDP payload of \p len bytes (incl. ICRC).
RDMA_TRANSPORT_API void seal_udp(const ip_context& ip, uint8_t* udp_payload, size_t len);

/*!
 * Write the IPv4 header (checksum filled in) and the UDP header (checksum 0) for a
 * UDP payload of \p udp_payload_len bytes at \p out. Returns 28.
 */
RDMA_TRANSPORT_API size_t write_ipv4_udp(uint8_t* out,
                                         const ip_context& ip,
                                         size_t udp_payload_len,
                                         uint8_t tos = 0,
                                         uint8_t ttl = 64);

//! Compute and store the ICRC of a complete IPv4 frame of \p len bytes (incl. ICRC).
RDMA_TRANSPORT_API void seal_frame(uint8_t* ipv4, size_t len);

//! The ICRC stored at \p at (little-endian, like the Ethernet FCS).
RDMA_TRANSPORT_API uint32_t load_icrc(const uint8_t* at);
void store_icrc(uint8_t* at, uint32_t icrc);

} // namespace roce
} // namespace rdma
} // namespace gr

#endif
