/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "axioe_packet.h"

namespace gr {
namespace rdma {
namespace axioe {

namespace {

// Header offsets (docs/axioe.md, "Header").
constexpr size_t off_magic = 0;
constexpr size_t off_version = 2;
constexpr size_t off_opcode = 3;
constexpr size_t off_sequence = 4;
constexpr size_t off_address = 8;
constexpr size_t off_count = 12;
constexpr size_t off_status = 14;
constexpr size_t off_reserved = 15;

uint16_t load16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

uint32_t load32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) |
           uint32_t(p[3]);
}

void store16(uint8_t* p, uint16_t v)
{
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}

void store32(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

bool valid_opcode(uint8_t op) { return op >= 0x01 && op <= 0x04; }

bool known_status(uint8_t s)
{
    return s <= 0x03 || s == static_cast<uint8_t>(status::bad_request) ||
           s == static_cast<uint8_t>(status::unsupported_version) ||
           s == static_cast<uint8_t>(status::not_owner);
}

bool is_rejection(status s)
{
    return s == status::bad_request || s == status::unsupported_version;
}

// The burst checks shared by requests and executed responses.
parse_status check_burst(opcode op, uint32_t address, uint16_t count)
{
    if (count == 0 || count > max_burst_words)
        return parse_status::bad_count;
    if (address % word_bytes != 0)
        return parse_status::unaligned;
    // An incrementing burst's last word must still be inside the 32-bit space; a
    // device must not have to decide whether to wrap to address 0.
    if (!is_fixed(op) && uint64_t(address) + uint64_t(count) * word_bytes > (1ull << 32))
        return parse_status::wraps;
    return parse_status::ok;
}

void write_header(uint8_t* out,
                  uint8_t version,
                  uint8_t opcode_byte,
                  uint32_t sequence,
                  uint32_t address,
                  uint16_t count,
                  uint8_t status_byte)
{
    store16(out + off_magic, magic);
    out[off_version] = version;
    out[off_opcode] = opcode_byte;
    store32(out + off_sequence, sequence);
    store32(out + off_address, address);
    store16(out + off_count, count);
    out[off_status] = status_byte;
    out[off_reserved] = 0;
}

} // namespace

const char* to_string(opcode op)
{
    switch (op) {
    case opcode::read:
        return "read";
    case opcode::write:
        return "write";
    case opcode::read_fixed:
        return "fixed read";
    case opcode::write_fixed:
        return "fixed write";
    }
    return "unknown opcode";
}

const char* to_string(status s)
{
    switch (s) {
    case status::okay:
        return "OKAY";
    case status::exokay:
        return "EXOKAY";
    case status::slverr:
        return "SLVERR";
    case status::decerr:
        return "DECERR";
    case status::bad_request:
        return "BAD_REQUEST";
    case status::unsupported_version:
        return "UNSUPPORTED_VERSION";
    case status::not_owner:
        return "NOT_OWNER";
    }
    return "unknown status";
}

const char* describe(status s)
{
    switch (s) {
    case status::okay:
        return "success";
    case status::exokay:
        return "exclusive access success";
    case status::slverr:
        return "register refused the access";
    case status::decerr:
        return "no register at that address";
    case status::bad_request:
        return "device rejected the request as malformed";
    case status::unsupported_version:
        return "device does not speak this AXIoE version";
    case status::not_owner:
        return "the stream belongs to another client; nothing was executed";
    }
    return "unknown status";
}

const char* to_string(parse_status s)
{
    switch (s) {
    case parse_status::ok:
        return "ok";
    case parse_status::too_short:
        return "shorter than the header";
    case parse_status::bad_magic:
        return "bad magic";
    case parse_status::bad_version:
        return "unsupported version";
    case parse_status::not_a_request:
        return "not a request";
    case parse_status::not_a_response:
        return "not a response";
    case parse_status::bad_opcode:
        return "bad opcode";
    case parse_status::bad_status:
        return "bad status";
    case parse_status::bad_reserved:
        return "reserved byte not zero";
    case parse_status::bad_count:
        return "bad word count";
    case parse_status::unaligned:
        return "unaligned address";
    case parse_status::wraps:
        return "burst wraps the address space";
    case parse_status::bad_length:
        return "length disagrees with the header";
    }
    return "unknown";
}

size_t request_length(opcode op, size_t count)
{
    return header_bytes + (is_write(op) ? count * word_bytes : 0);
}

bool carries_data(const response& r)
{
    const auto op = static_cast<opcode>(r.request_opcode);
    return is_success(r.code) && (op == opcode::read || op == opcode::read_fixed);
}

size_t response_length(const response& r)
{
    return header_bytes + (carries_data(r) ? r.count * word_bytes : 0);
}

parse_status decode_request(const uint8_t* data, size_t len, request& out)
{
    if (len < header_bytes)
        return parse_status::too_short;
    if (load16(data + off_magic) != magic)
        return parse_status::bad_magic;
    if (data[off_version] != protocol_version)
        return parse_status::bad_version;
    const uint8_t op = data[off_opcode];
    if (op & response_bit)
        return parse_status::not_a_request;
    if (!valid_opcode(op))
        return parse_status::bad_opcode;
    if (data[off_status] != 0)
        return parse_status::bad_status;
    if (data[off_reserved] != 0)
        return parse_status::bad_reserved;
    out.op = static_cast<opcode>(op);
    out.sequence = load32(data + off_sequence);
    out.address = load32(data + off_address);
    out.count = load16(data + off_count);
    const parse_status burst = check_burst(out.op, out.address, out.count);
    if (burst != parse_status::ok)
        return burst;
    if (len != request_length(out.op, out.count))
        return parse_status::bad_length;
    out.payload = is_write(out.op) ? data + header_bytes : nullptr;
    return parse_status::ok;
}

parse_status decode_response(const uint8_t* data, size_t len, response& out)
{
    if (len < header_bytes)
        return parse_status::too_short;
    if (load16(data + off_magic) != magic)
        return parse_status::bad_magic;
    const uint8_t op = data[off_opcode];
    if (!(op & response_bit))
        return parse_status::not_a_response;
    if (!known_status(data[off_status]))
        return parse_status::bad_status;
    out.code = static_cast<status>(data[off_status]);
    out.version = data[off_version];
    if (out.version != protocol_version && out.code != status::unsupported_version)
        return parse_status::bad_version;
    if (data[off_reserved] != 0)
        return parse_status::bad_reserved;
    out.request_opcode = op & ~response_bit;
    out.sequence = load32(data + off_sequence);
    out.address = load32(data + off_address);
    out.count = load16(data + off_count);
    out.payload = nullptr;
    if (is_rejection(out.code))
        return len == header_bytes ? parse_status::ok : parse_status::bad_length;
    if (!valid_opcode(out.request_opcode))
        return parse_status::bad_opcode;
    const parse_status burst =
        check_burst(static_cast<opcode>(out.request_opcode), out.address, out.count);
    if (burst != parse_status::ok)
        return burst;
    if (len != response_length(out))
        return parse_status::bad_length;
    if (carries_data(out))
        out.payload = data + header_bytes;
    return parse_status::ok;
}

size_t encode_request(uint8_t* out, const request& r, const uint32_t* words)
{
    write_header(out,
                 protocol_version,
                 static_cast<uint8_t>(r.op),
                 r.sequence,
                 r.address,
                 r.count,
                 0);
    if (is_write(r.op))
        store_words(out + header_bytes, words, r.count);
    return request_length(r.op, r.count);
}

size_t encode_response(uint8_t* out, const response& r, const uint32_t* words)
{
    write_header(out,
                 r.version,
                 static_cast<uint8_t>(r.request_opcode | response_bit),
                 r.sequence,
                 r.address,
                 r.count,
                 static_cast<uint8_t>(r.code));
    if (carries_data(r))
        store_words(out + header_bytes, words, r.count);
    return response_length(r);
}

response response_to(const request& r, status code)
{
    response out;
    out.request_opcode = static_cast<uint8_t>(r.op);
    out.sequence = r.sequence;
    out.address = r.address;
    out.count = r.count;
    out.code = code;
    return out;
}

bool make_rejection(const uint8_t* data, size_t len, parse_status why, response& out)
{
    if (why == parse_status::ok || len < header_bytes ||
        load16(data + off_magic) != magic || (data[off_opcode] & response_bit))
        return false;
    out.version = protocol_version;
    out.request_opcode = data[off_opcode];
    out.sequence = load32(data + off_sequence);
    out.address = load32(data + off_address);
    out.count = load16(data + off_count);
    out.code = why == parse_status::bad_version ? status::unsupported_version
                                                : status::bad_request;
    out.payload = nullptr;
    return true;
}

void load_words(const uint8_t* in, uint32_t* out, size_t count)
{
    for (size_t i = 0; i < count; i++)
        out[i] = load32(in + i * word_bytes);
}

void store_words(uint8_t* out, const uint32_t* in, size_t count)
{
    for (size_t i = 0; i < count; i++)
        store32(out + i * word_bytes, in[i]);
}

} // namespace axioe
} // namespace rdma
} // namespace gr
