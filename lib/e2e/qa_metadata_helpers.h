/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_E2E_QA_METADATA_HELPERS_H
#define INCLUDED_RDMA_E2E_QA_METADATA_HELPERS_H

// Helpers of the metadata channel's host-side suites (qa_metadata_receiver,
// qa_metadata_monitor): a fake device sending records from its own socket, the
// device's intake on loopback, records made and encoded, and polling until they came.

#include "../device/metadata_intake.h"
#include "../device/metadata_receiver.h"
#include "../util/host_time.h"
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace qa_metadata_helpers {

using namespace gr::rdma;
using namespace std::chrono_literals;

// A device as far as the channel goes: a socket on the link address sending records.
struct fake_device {
    udp_socket socket;
    uint32_t sequence = 0;

    explicit fake_device(const char* ip = "127.0.0.1") : socket(socket_address::parse(ip))
    {
    }

    void send(const socket_address& to, meta::record r, bool keep_sequence = false)
    {
        if (!keep_sequence)
            r.sequence = sequence++;
        uint8_t b[meta::packet_bytes];
        meta::encode(r, b);
        socket.send_to(b, sizeof(b), to);
    }
    void send_bytes(const socket_address& to, std::vector<uint8_t> b)
    {
        socket.send_to(b.data(), b.size(), to);
    }
};

// The device's metadata channel, receiving on loopback from \p device_ip.
inline std::shared_ptr<metadata_intake> intake(uint32_t device_ip)
{
    return std::make_shared<metadata_intake>(socket_address::parse("127.0.0.1:0"),
                                             device_ip);
}

inline meta::record make(meta::record_type t,
                         uint64_t sample,
                         uint64_t time,
                         uint32_t code = 0,
                         uint64_t value = 0,
                         uint8_t stream = 0)
{
    meta::record r;
    r.type = t;
    r.stream = stream;
    r.sample = sample;
    r.time_ns = time;
    r.code = code;
    r.value = value;
    return r;
}

// Poll until \p n records have been accepted in all (loopback delivers within ms).
inline std::vector<received_record> take(metadata_receiver& rx, size_t n)
{
    std::vector<received_record> out;
    for (int i = 0; i < 200 && out.size() < n; i++) {
        const size_t got = rx.poll();
        for (size_t k = 0; k < got; k++)
            out.push_back(rx.record(k));
        if (out.size() < n)
            std::this_thread::sleep_for(2ms);
    }
    return out;
}

inline std::vector<uint8_t> encoded(const meta::record& r)
{
    std::vector<uint8_t> b(meta::packet_bytes);
    meta::encode(r, b.data());
    return b;
}

} // namespace qa_metadata_helpers

#endif
