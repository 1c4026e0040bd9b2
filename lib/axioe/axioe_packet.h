/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_AXIOE_AXIOE_PACKET_H
#define INCLUDED_RDMA_AXIOE_AXIOE_PACKET_H

#include <cstddef>
#include <cstdint>

/*
 * AXIoE packet codec (docs/axioe.md): one register transaction per UDP datagram, a
 * 16-byte big-endian header followed by up to 256 big-endian 32-bit data words.
 *
 * Pure functions on caller buffers: no sockets, no allocation and no dependency on the
 * rest of the transport core, so that the fuzz target compiles this file alone. The
 * decoders read nothing outside [data, data + len), whatever the content.
 */

namespace gr {
namespace rdma {
namespace axioe {

constexpr uint16_t default_port = 50100;
constexpr uint16_t magic = 0xAE10;
constexpr uint8_t protocol_version = 1;
constexpr size_t header_bytes = 16;
constexpr size_t word_bytes = 4;
constexpr size_t max_burst_words = 256;
constexpr size_t max_datagram_bytes = header_bytes + max_burst_words * word_bytes;

//! Request opcodes. A response carries the opcode of its request | response_bit.
enum class opcode : uint8_t {
    read = 0x01,
    write = 0x02,
    read_fixed = 0x03,  //!< count reads of the same address (a FIFO, say)
    write_fixed = 0x04, //!< count writes to the same address
};
constexpr uint8_t response_bit = 0x80;

constexpr bool is_write(opcode op)
{
    return op == opcode::write || op == opcode::write_fixed;
}
constexpr bool is_fixed(opcode op)
{
    return op == opcode::read_fixed || op == opcode::write_fixed;
}
//! "read", "write", "fixed read", "fixed write"
const char* to_string(opcode op);

//! Response status. 0..3 are AXI's BRESP/RRESP codes; 0x10 and up are AXIoE's own.
enum class status : uint8_t {
    okay = 0x00,
    exokay = 0x01,
    slverr = 0x02, //!< the register refused the access
    decerr = 0x03, //!< no register at that address
    bad_request = 0x10,
    unsupported_version = 0x11,
    //! The access was refused because the stream belongs to another client; nothing
    //! was executed (docs/axioe.md §4, revision 1.1).
    not_owner = 0x12,
};
//! The status's name: "OKAY", "SLVERR", ...
const char* to_string(status s);
//! What the status means, for error messages: "register refused the access", ...
const char* describe(status s);
constexpr bool is_success(status s) { return s == status::okay || s == status::exokay; }

//! A decoded or to-be-encoded request. Fields in host byte order.
struct request {
    opcode op = opcode::read;
    uint32_t sequence = 0;
    uint32_t address = 0; //!< byte address, 4-byte aligned
    uint16_t count = 0;   //!< words, 1..max_burst_words
    //! Decoding a write: its count big-endian words, inside the decoded buffer.
    const uint8_t* payload = nullptr;
};

//! A decoded or to-be-encoded response. Fields in host byte order.
struct response {
    uint8_t version = protocol_version;
    //! Opcode byte of the request answered, response_bit cleared. Only a valid opcode
    //! in an executed response; a rejection echoes whatever the request carried.
    uint8_t request_opcode = 0;
    uint32_t sequence = 0;
    uint32_t address = 0;
    uint16_t count = 0;
    status code = status::okay;
    //! Decoding a successful read: its count big-endian words, inside the buffer.
    const uint8_t* payload = nullptr;
};

//! Why a datagram did not decode.
enum class parse_status {
    ok,
    too_short,      //!< shorter than the header
    bad_magic,      //!< not AXIoE
    bad_version,    //!< a version this codec does not speak
    not_a_request,  //!< response bit set where a request was expected
    not_a_response, //!< response bit clear where a response was expected
    bad_opcode,     //!< not one of the four opcodes
    bad_status,     //!< request: status not 0; response: unknown status
    bad_reserved,   //!< reserved byte not 0
    bad_count,      //!< count 0 or above max_burst_words
    unaligned,      //!< address not a multiple of 4
    wraps,          //!< incrementing burst runs past the end of the address space
    bad_length,     //!< datagram length disagrees with opcode, count and status
};
const char* to_string(parse_status s);

//! Datagram length of a request: the header, plus the data of a write.
size_t request_length(opcode op, size_t count);
//! Whether a response carries data: a successful READ or READ_FIXED.
bool carries_data(const response& r);
//! Datagram length of a response: the header, plus the data if carries_data().
size_t response_length(const response& r);

/*!
 * Decode a request datagram [data, data + len). Checks, in this order: length,
 * magic, version, direction, opcode, status, reserved, count, alignment, wrap, length.
 * On anything but parse_status::ok, \p out is unspecified.
 */
parse_status decode_request(const uint8_t* data, size_t len, request& out);

/*!
 * Decode a response datagram. A rejection (BAD_REQUEST, UNSUPPORTED_VERSION) is only
 * checked for its length (the header alone), since it echoes a header the device could
 * not accept; UNSUPPORTED_VERSION is accepted with any version, which is the device's.
 * It does not check that the response answers a particular request: the client does.
 */
parse_status decode_response(const uint8_t* data, size_t len, response& out);

/*!
 * Write \p r to \p out (at least request_length() bytes); \p words are the count
 * host-order data words of a write, ignored for a read. r.payload is ignored.
 * Returns the datagram length. Does not validate \p r.
 */
size_t encode_request(uint8_t* out, const request& r, const uint32_t* words = nullptr);

/*!
 * Write \p r to \p out (at least response_length() bytes); \p words are the count
 * host-order words read if carries_data(r), otherwise ignored. r.payload is ignored.
 * Returns the datagram length.
 */
size_t encode_response(uint8_t* out, const response& r, const uint32_t* words = nullptr);

//! The response to an executed request \p r with status \p code (no data attached).
response response_to(const request& r, status code);

/*!
 * The device's answer to a datagram decode_request() rejected with \p why. Returns
 * false if it must be dropped silently instead: shorter than a header, wrong magic,
 * or a response (answering a response could start an endless exchange between two
 * devices). Otherwise fills \p out: the request's header echoed with status
 * UNSUPPORTED_VERSION (our version in the version field) or BAD_REQUEST.
 */
bool make_rejection(const uint8_t* data, size_t len, parse_status why, response& out);

//! Convert \p count big-endian words at \p in to host order.
void load_words(const uint8_t* in, uint32_t* out, size_t count);
//! Convert \p count host-order words to big-endian bytes at \p out.
void store_words(uint8_t* out, const uint32_t* in, size_t count);

} // namespace axioe
} // namespace rdma
} // namespace gr

#endif
