/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "rc_destinations.h"
#include <algorithm>

namespace gr {
namespace rdma {
namespace emu {

namespace {

// A destination remembers the routes of twice the packets its window holds (a resend
// as zeros needs the route of packets the window no longer holds), within bounds.
constexpr size_t min_log_messages = 256;
constexpr size_t max_log_messages = 65536;

bool used(const rx_descriptor& d, unsigned i) { return i == 0 || d.destinations[i].qpn; }

size_t log_capacity(const rx_descriptor& d)
{
    const uint64_t packet_bytes = std::min(d.payload_bytes, d.path_mtu);
    const uint64_t packets = std::max<uint64_t>(1, d.retx_window_bytes / packet_bytes);
    return std::clamp<size_t>(2 * packets, min_log_messages, max_log_messages);
}

} // namespace

uint32_t rc_destinations::validate(const rx_descriptor& d,
                                   const std::vector<ack_receiver*>& links_acks)
{
    // Each used destination's ACKs come back over its link: something must hear them.
    for (unsigned i = 0; i < d.destinations.size(); i++) {
        if (!used(d, i))
            continue;
        const unsigned link = d.destinations[i].link;
        if (link >= links_acks.size() || !links_acks[link])
            return regs::error_code::bad_transport;
    }
    return regs::error_code::none;
}

rc_destinations::rc_destinations(unsigned stream,
                                 const rx_descriptor& d,
                                 packetizer& builder,
                                 const std::vector<ack_receiver*>& links_acks,
                                 destination_table* routes,
                                 metadata_sink* metadata,
                                 rc_stats& stats,
                                 std::array<rc_destination_stats, 8>& per_destination,
                                 size_t max_batch)
    : d_stream(stream),
      d_routes(routes && routes->routing() ? routes : nullptr),
      d_first_message(d.first_message),
      d_per_destination(per_destination)
{
    // One destination: the stream's requester, in the run's packet order. Several: one
    // per used destination, in the order of the messages its log records.
    for (unsigned i = 0; i < (d_routes ? d.destinations.size() : 1); i++) {
        if (!used(d, i))
            continue;
        d_link[i] = static_cast<uint8_t>(d.destinations[i].link);
        if (d_routes)
            d_logs[i] = std::make_unique<destination_log>(log_capacity(d));
        d_requesters[i] = std::make_unique<rc_requester>(stream,
                                                         d,
                                                         builder,
                                                         *links_acks.at(d_link[i]),
                                                         metadata,
                                                         stats,
                                                         max_batch,
                                                         per_destination[i],
                                                         i,
                                                         d_logs[i].get());
        d_used.push_back(i);
    }
}

message_route rc_destinations::route(uint64_t message, size_t packets, uint64_t end)
{
    const message_route r = d_routes->route(message, packets, end);
    if (r.destination < d_logs.size() && d_logs[r.destination])
        d_logs[r.destination]->append(message - d_first_message, packets, r);
    return r;
}

void rc_destinations::poll(int64_t now_ns)
{
    for (unsigned i : d_used)
        d_requesters[i]->poll(now_ns);
}

bool rc_destinations::busy(int64_t now_ns) const
{
    // New messages wait while any destination resends: the order of first sends stays
    // the schedule's.
    for (unsigned i : d_used)
        if (d_requesters[i]->busy(now_ns))
            return true;
    return false;
}

bool rc_destinations::can_resend(int64_t now_ns) const
{
    for (unsigned i : d_used)
        if (d_requesters[i]->can_resend(now_ns))
            return true;
    return false;
}

size_t rc_destinations::build_resend(uint8_t* slots,
                                     size_t slot_bytes,
                                     outgoing_packet* out,
                                     int64_t now_ns)
{
    // One destination per batch, taken in turn after the last one served, so that a
    // destination that resends much does not starve another's resends.
    const size_t n = d_used.size();
    const auto last = std::find(d_used.begin(), d_used.end(), d_resending);
    const size_t from = last == d_used.end() ? 0 : size_t(last - d_used.begin()) + 1;
    for (size_t k = 0; k < n; k++) {
        const unsigned i = d_used[(from + k) % n];
        if (!d_requesters[i]->can_resend(now_ns))
            continue;
        d_resending = i;
        return d_requesters[i]->build_resend(slots, slot_bytes, out);
    }
    return 0;
}

void rc_destinations::resent(size_t sent, int64_t now_ns)
{
    if (d_requesters[d_resending])
        d_requesters[d_resending]->resent(sent, now_ns);
}

void rc_destinations::first_sent(uint64_t next_message, int64_t now_ns)
{
    for (unsigned i : d_used)
        d_requesters[i]->first_sent(next_message, now_ns);
}

void rc_destinations::sent_as_zeros(uint64_t message, unsigned destination)
{
    const unsigned i = d_routes ? destination : 0;
    if (i < d_requesters.size() && d_requesters[i])
        d_requesters[i]->sent_as_zeros(message);
}

bool rc_destinations::finished() const
{
    for (unsigned i : d_used)
        if (!d_requesters[i]->finished())
            return false;
    return true;
}

bool rc_destinations::failed() const
{
    for (unsigned i : d_used)
        if (d_requesters[i]->failed())
            return true;
    return false;
}

int64_t rc_destinations::next_deadline() const
{
    int64_t t = INT64_MAX;
    for (unsigned i : d_used)
        t = std::min(t, d_requesters[i]->next_deadline());
    return t;
}

void rc_destinations::report(ctrl_sink& sink)
{
    for (unsigned i : d_used) {
        // A state, not a change: the controller keeps the latest of each queue.
        const rc_destination_stats& c = d_per_destination[i];
        const uint64_t naks = c.naks.load(std::memory_order_relaxed) +
                              c.retransmits.load(std::memory_order_relaxed);
        if (naks != d_naks_reported[i]) {
            d_naks_reported[i] = naks;
            sink.naks(d_stream, d_link[i], naks);
        }
        const uint32_t samples = d_requesters[i]->rtt_samples();
        if (samples == d_rtt_reported[i])
            continue;
        d_rtt_reported[i] = samples;
        sink.rtt(d_stream, i, d_link[i], d_requesters[i]->rtt_ns());
    }
}

} // namespace emu
} // namespace rdma
} // namespace gr
