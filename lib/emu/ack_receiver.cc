/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ack_receiver.h"
#include "rx_descriptor.h"
#include "tx_descriptor.h"
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

namespace {
// An ACKNOWLEDGE is 20 bytes (BTH, AETH, ICRC); anything longer is not one. A link
// with TX streams also takes READ RESPONSEs.
constexpr size_t ack_slot_bytes = 64;
// Batches taken per poll(): bounds the time one engine spends for the others.
constexpr int max_batches_per_poll = 4;
} // namespace

ack_receiver::ack_receiver(wire& link, unsigned streams, unsigned tx_streams)
    : d_link(link),
      d_streams(streams),
      d_tx_streams(tx_streams),
      d_slot_bytes(tx_streams ? tx_packet_bytes : ack_slot_bytes),
      d_memory(batch * d_slot_bytes),
      d_slots(batch),
      d_queues(size_t(streams) * destinations * queue_capacity),
      d_head(size_t(streams) * destinations, 0),
      d_count(size_t(streams) * destinations, 0),
      d_tx_queues(size_t(tx_streams) * tx_queue_capacity * tx_packet_bytes),
      d_tx_length(size_t(tx_streams) * tx_queue_capacity),
      d_tx_head(tx_streams, 0),
      d_tx_count(tx_streams, 0)
{
}

size_t ack_receiver::poll_tx(unsigned stream, uint8_t* slots, size_t* lengths, size_t max)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    if (stream >= d_tx_streams)
        return 0;
    size_t n = 0;
    const size_t base = size_t(stream) * tx_queue_capacity;
    while (n < max && d_tx_count[stream] > 0) {
        const size_t at = base + d_tx_head[stream];
        lengths[n] = d_tx_length[at];
        std::memcpy(slots + n * tx_packet_bytes,
                    d_tx_queues.data() + at * tx_packet_bytes,
                    d_tx_length[at]);
        n++;
        d_tx_head[stream] = (d_tx_head[stream] + 1) % tx_queue_capacity;
        d_tx_count[stream]--;
    }
    return n;
}

void ack_receiver::clear_tx(unsigned stream)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    if (stream < d_tx_streams)
        d_tx_count[stream] = 0;
}

size_t ack_receiver::poll(unsigned stream, rc_ack* out, size_t max, unsigned d)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    size_t n = 0;
    if (stream >= d_streams || d >= destinations)
        return 0;
    const size_t q = size_t(stream) * destinations + d;
    rc_ack* queue = d_queues.data() + q * queue_capacity;
    while (n < max && d_count[q] > 0) {
        out[n++] = queue[d_head[q]];
        d_head[q] = (d_head[q] + 1) % queue_capacity;
        d_count[q]--;
    }
    return n;
}

void ack_receiver::clear(unsigned stream)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    drain();
    if (stream < d_streams)
        for (unsigned d = 0; d < destinations; d++)
            d_count[size_t(stream) * destinations + d] = 0;
}

bool ack_receiver::queue_of(uint32_t qpn, size_t& queue) const
{
    if (qpn >= rx_source_qpn(0) && qpn - rx_source_qpn(0) < d_streams) {
        queue = size_t(qpn - rx_source_qpn(0)) * destinations;
        return true;
    }
    const uint32_t first = rx_dest_source_qpn(0, 1) - 1; // stream 0's destination 0
    if (qpn <= first || qpn - first >= d_streams * destinations)
        return false;
    queue = qpn - first;
    return queue % destinations != 0; // destination 0 answers at the stream's QPN
}

void ack_receiver::drain()
{
    for (int b = 0; b < max_batches_per_poll; b++) {
        for (size_t i = 0; i < batch; i++) {
            d_slots[i].data = d_memory.data() + i * d_slot_bytes;
            d_slots[i].capacity = d_slot_bytes;
        }
        const size_t n = d_link.receive(d_slots.data(), batch);
        for (size_t i = 0; i < n; i++)
            sort(d_slots[i]);
        if (n < batch)
            return;
    }
}

void ack_receiver::sort(const datagram& d)
{
    roce::packet p;
    if (d.truncated || roce::parse(d.data, d.length, p) != roce::parse_status::ok ||
        roce::transport_of(p.base.opcode) != roce::opcode::rc || !d_link.icrc_ok(d)) {
        d_malformed++;
        return;
    }
    const roce::opcode_info info = roce::describe(p.base.opcode);
    const uint32_t qpn = p.base.dest_qp;
    if ((info.is_ack || info.is_read_response) && qpn >= tx_source_qpn(0) &&
        qpn - tx_source_qpn(0) < d_tx_streams) {
        // A TX stream's: kept whole, its requester reads the payload.
        const unsigned tx = qpn - tx_source_qpn(0);
        if (d_tx_count[tx] == tx_queue_capacity || d.length > tx_packet_bytes) {
            d_overflowed++;
            return;
        }
        const size_t at = size_t(tx) * tx_queue_capacity +
                          (d_tx_head[tx] + d_tx_count[tx]) % tx_queue_capacity;
        std::memcpy(d_tx_queues.data() + at * tx_packet_bytes, d.data, d.length);
        d_tx_length[at] = d.length;
        d_tx_count[tx]++;
        return;
    }
    if (!info.is_ack) {
        d_malformed++;
        return;
    }
    size_t q = 0;
    if (!queue_of(qpn, q)) {
        d_unknown_qp++;
        return;
    }
    if (d_count[q] == queue_capacity) {
        d_overflowed++;
        return;
    }
    rc_ack& a = d_queues[q * queue_capacity + (d_head[q] + d_count[q]) % queue_capacity];
    a.syndrome = p.aeth_hdr.syndrome;
    a.psn = p.base.psn;
    a.msn = p.aeth_hdr.msn;
    d_count[q]++;
}

} // namespace emu
} // namespace rdma
} // namespace gr
