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
    program(device, interval_us);
}

void metadata_intake::configure_tx(axioe::client& device,
                                   uint32_t interval_us,
                                   unsigned tx_stream)
{
    attach_tx(tx_stream);
    std::lock_guard<std::mutex> lock(d_mutex);
    program(device, interval_us);
}

void metadata_intake::attach_tx(unsigned tx_stream)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain(); // what came before is an earlier run's (or nobody's): counted, dropped
    if (tx_stream < max_tx_streams) {
        d_tx_inboxes[tx_stream].head = d_tx_inboxes[tx_stream].tail;
        d_tx_attached[tx_stream] = true;
    }
}

void metadata_intake::detach_tx(unsigned tx_stream)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    if (tx_stream < max_tx_streams) {
        d_tx_attached[tx_stream] = false;
        d_tx_inboxes[tx_stream].head = d_tx_inboxes[tx_stream].tail;
    }
}

void metadata_intake::program(axioe::client& device, uint32_t interval_us)
{
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

void metadata_intake::put(inbox& box, const received_record& r)
{
    if (box.tail - box.head == inbox_records) {
        box.head++; // the oldest goes: what the stream sees last is current
        box.overflowed++;
    }
    box.records[box.tail++ % inbox_records] = r;
}

size_t metadata_intake::take(inbox& box, received_record* out, size_t max)
{
    size_t n = 0;
    while (n < max && box.head != box.tail)
        out[n++] = box.records[box.head++ % inbox_records];
    return n;
}

void metadata_intake::drain()
{
    size_t n;
    while ((n = d_receiver.poll()) > 0) {
        for (size_t i = 0; i < n; i++) {
            const received_record& r = d_receiver.record(i);
            const uint8_t s = r.record.stream;
            if (meta::is_tx_stream(s)) {
                const unsigned t = s & ~meta::tx_stream_flag;
                if (t < max_tx_streams && d_tx_attached[t])
                    put(d_tx_inboxes[t], r);
                else
                    d_unclaimed++; // a TX stream this process does not have
            } else if (s < max_streams) {
                put(d_inboxes[s], r);
            } else {
                d_unclaimed++; // no such stream
            }
        }
        if (n < metadata_receiver::max_records)
            break;
    }
}

size_t metadata_intake::poll(unsigned stream, received_record* out, size_t max)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    return stream < max_streams ? take(d_inboxes[stream], out, max) : 0;
}

size_t metadata_intake::poll_tx(unsigned tx_stream, received_record* out, size_t max)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    return tx_stream < max_tx_streams ? take(d_tx_inboxes[tx_stream], out, max) : 0;
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

uint64_t metadata_intake::tx_overflowed(unsigned tx_stream) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return tx_stream < max_tx_streams ? d_tx_inboxes[tx_stream].overflowed : 0;
}

uint64_t metadata_intake::unclaimed() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_unclaimed;
}

} // namespace rdma
} // namespace gr
