/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the AXIoE decoders, the code a device and a client run on whatever
// the network hands them. Besides the sanitizers' checks (no read outside the input),
// it checks that whatever decodes is what the spec allows, and that the codec is
// canonical: re-encoding a decoded datagram gives back the same bytes. Any violation
// aborts.

#include "axioe/axioe_packet.h"
#include <initializer_list>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace gr::rdma::axioe;

namespace {

void require(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "AXIoE invariant violated: %s\n", what);
        std::abort();
    }
}

bool inside(const uint8_t* p, size_t n, const uint8_t* data, size_t size)
{
    return p >= data && n <= size && p <= data + (size - n);
}

void check_burst(uint8_t op, uint32_t address, uint16_t count)
{
    require(op >= 1 && op <= 4, "decoded opcode out of range");
    require(count >= 1 && count <= max_burst_words, "decoded count out of range");
    require(address % 4 == 0, "decoded address unaligned");
    require(is_fixed(static_cast<opcode>(op)) ||
                uint64_t(address) + uint64_t(count) * 4 <= (1ull << 32),
            "decoded burst wraps");
}

void check_request(const uint8_t* data, size_t size)
{
    request r;
    const parse_status why = decode_request(data, size, r);
    if (why != parse_status::ok) {
        response rejection;
        if (make_rejection(data, size, why, rejection)) {
            require(why != parse_status::too_short && why != parse_status::bad_magic &&
                        why != parse_status::not_a_request,
                    "answered a datagram that must be dropped");
            require((rejection.code == status::unsupported_version) ==
                        (why == parse_status::bad_version),
                    "rejection status does not follow the reason");
            uint8_t out[header_bytes];
            const size_t len = encode_response(out, rejection);
            require(len == header_bytes, "rejection carries data");
            response back;
            require(decode_response(out, len, back) == parse_status::ok,
                    "rejection does not decode");
            require(back.sequence == rejection.sequence && back.code == rejection.code,
                    "rejection does not round-trip");
            require(std::memcmp(out + 4, data + 4, 10) == 0,
                    "rejection does not echo sequence, address and count");
        }
        return;
    }
    check_burst(static_cast<uint8_t>(r.op), r.address, r.count);
    require(size == request_length(r.op, r.count), "request length");
    require(is_write(r.op) == (r.payload != nullptr), "payload presence");
    if (r.payload)
        require(inside(r.payload, r.count * 4u, data, size), "payload outside the input");

    uint32_t words[max_burst_words];
    if (r.payload)
        load_words(r.payload, words, r.count);
    uint8_t out[max_datagram_bytes];
    require(encode_request(out, r, words) == size, "re-encoded request length");
    require(std::memcmp(out, data, size) == 0, "request is not canonical");

    // The device's answer must decode as the client expects.
    for (status code : { status::okay, status::slverr, status::not_owner }) {
        const response answer = response_to(r, code);
        const size_t len = encode_response(out, answer, words);
        response back;
        require(decode_response(out, len, back) == parse_status::ok,
                "answer does not decode");
        require(back.sequence == r.sequence && back.address == r.address &&
                    back.count == r.count &&
                    back.request_opcode == static_cast<uint8_t>(r.op),
                "answer does not match its request");
    }
}

void check_response(const uint8_t* data, size_t size)
{
    response r;
    if (decode_response(data, size, r) != parse_status::ok)
        return;
    const bool rejection =
        r.code == status::bad_request || r.code == status::unsupported_version;
    require(r.version == protocol_version || r.code == status::unsupported_version,
            "foreign version accepted");
    require(!(r.request_opcode & response_bit), "request opcode keeps the response bit");
    if (rejection)
        require(size == header_bytes, "rejection with data");
    else
        check_burst(r.request_opcode, r.address, r.count);
    require(size == response_length(r), "response length");
    require(carries_data(r) == (r.payload != nullptr), "payload presence");
    if (r.payload)
        require(inside(r.payload, r.count * 4u, data, size), "payload outside the input");

    uint32_t words[max_burst_words];
    if (r.payload)
        load_words(r.payload, words, r.count);
    uint8_t out[max_datagram_bytes];
    require(encode_response(out, r, words) == size, "re-encoded response length");
    require(std::memcmp(out, data, size) == 0, "response is not canonical");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    check_request(data, size);
    check_response(data, size);
    return 0;
}
