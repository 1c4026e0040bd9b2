/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_roce_helpers.h"

namespace qa_roce {

std::string to_hex(const uint8_t* p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; i++) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 0xF];
    }
    return s;
}

// The receiver's check: the carried ICRC equals the one computed over the frame.
bool frame_icrc_ok(const std::vector<uint8_t>& f)
{
    return load_icrc(f.data() + f.size() - 4) ==
           compute_icrc_frame(f.data(), f.size() - 4);
}

// A UDP payload for \p op with \p payload_len bytes of payload, sealed for \p ip.
std::vector<uint8_t> make_udp(uint8_t op, size_t payload_len, const ip_context& ip)
{
    std::vector<uint8_t> buf(bth_bytes + reth_bytes + immdt_bytes + aeth_bytes +
                             payload_len + 3 + icrc_bytes);
    bth b;
    b.opcode = op;
    b.dest_qp = 0x000123;
    b.psn = 0x000456;
    b.pad_count = pad_for(payload_len);
    const reth r{ 0x1000, 0x77, static_cast<uint32_t>(payload_len) };
    const uint32_t imm = 0xCAFEF00D;
    const aeth a{ syndrome::ack_unlimited, 9 };
    const size_t hdr = write_headers(buf.data(), b, &r, &imm, &a);
    for (size_t i = 0; i < payload_len; i++)
        buf[hdr + i] = static_cast<uint8_t>(0xA0 + i);
    buf.resize(finish(buf.data(), hdr, payload_len));
    seal_udp(ip, buf.data(), buf.size());
    return buf;
}

std::vector<uint8_t> all_known_opcodes()
{
    std::vector<uint8_t> ops;
    for (int op = 0; op < 256; op++)
        if (describe(static_cast<uint8_t>(op)).known)
            ops.push_back(static_cast<uint8_t>(op));
    return ops;
}

} // namespace qa_roce
