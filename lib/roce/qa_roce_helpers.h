/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_ROCE_QA_ROCE_HELPERS_H
#define INCLUDED_RDMA_ROCE_QA_ROCE_HELPERS_H

// Test helpers shared by the qa_roce suites (golden vectors, headers, ICRC): packets
// built with the codec, hex dumps, and parse_status in CppUnit's assertions.

#include "roce_packet.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qa_roce {

using namespace gr::rdma;
using namespace gr::rdma::roce;

std::string to_hex(const uint8_t* p, size_t n);

// The receiver's check: the carried ICRC equals the one computed over the frame.
bool frame_icrc_ok(const std::vector<uint8_t>& f);

// A UDP payload for \p op with \p payload_len bytes of payload, sealed for \p ip.
std::vector<uint8_t> make_udp(uint8_t op, size_t payload_len, const ip_context& ip = {});

std::vector<uint8_t> all_known_opcodes();

} // namespace qa_roce

CPPUNIT_NS_BEGIN
template <>
struct assertion_traits<gr::rdma::roce::parse_status> {
    static bool equal(gr::rdma::roce::parse_status a, gr::rdma::roce::parse_status b)
    {
        return a == b;
    }
    static std::string toString(gr::rdma::roce::parse_status s)
    {
        return gr::rdma::roce::to_string(s);
    }
};
CPPUNIT_NS_END

#endif
