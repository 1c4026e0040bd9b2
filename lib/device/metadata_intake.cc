/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "metadata_intake.h"

namespace gr {
namespace rdma {

metadata_intake::metadata_intake(const socket_address& bind_to, uint32_t device_ip)
    : d_receiver(bind_to.with_port(0), device_ip)
{
}

void metadata_intake::configure(axioe::client& device,
                                uint32_t interval_us,
                                unsigned stream)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    if (stream < max_streams)
        d_inboxes[stream].head = d_inboxes[stream].tail;
    const socket_address here = d_receiver.local_address();
    const uint32_t words[4] = {
        here.ip(), here.port(), interval_us, regs::metadata::control_bits::enable
    };
    // One burst: destination, port and enable change at one instant.
    device.write_atomic(regs::metadata_reg(regs::metadata::dest_ipv4), words, 4);
    // Only the device's own port is believed; a device that does not say which port it
    // sends from is believed from any port of its address.
    uint16_t port = 0;
    try {
        port = static_cast<uint16_t>(
            device.read32(regs::metadata_reg(regs::metadata::source_udp_port)));
    } catch (const axioe::error&) {
    }
    d_receiver.expect_port(port);
}

void metadata_intake::drain()
{
    size_t n;
    while ((n = d_receiver.poll()) > 0) {
        for (size_t i = 0; i < n; i++) {
            const received_record& r = d_receiver.record(i);
            if (r.record.stream >= max_streams)
                continue; // no such stream: the receiver counted it as a record
            inbox& box = d_inboxes[r.record.stream];
            if (box.tail - box.head == inbox_records) {
                box.head++; // the oldest goes: what the stream sees last is current
                box.overflowed++;
            }
            box.records[box.tail++ % inbox_records] = r;
        }
        if (n < metadata_receiver::max_records)
            break;
    }
}

size_t metadata_intake::poll(unsigned stream, received_record* out, size_t max)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    if (stream >= max_streams)
        return 0;
    inbox& box = d_inboxes[stream];
    size_t n = 0;
    while (n < max && box.head != box.tail)
        out[n++] = box.records[box.head++ % inbox_records];
    return n;
}

metadata_counts metadata_intake::counts() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_receiver.counts();
}

uint64_t metadata_intake::overflowed(unsigned stream) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return stream < max_streams ? d_inboxes[stream].overflowed : 0;
}

} // namespace rdma
} // namespace gr
