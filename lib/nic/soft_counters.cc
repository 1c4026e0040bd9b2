/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "soft_counters.h"

namespace gr {
namespace rdma {
namespace nic {

const char* to_string(rx_result result)
{
    switch (result) {
    case rx_result::accepted:
        return "accepted";
    case rx_result::drop_truncated:
        return "drop_truncated";
    case rx_result::drop_bad_ip_header:
        return "drop_bad_ip_header";
    case rx_result::drop_bad_icrc:
        return "drop_bad_icrc";
    case rx_result::drop_bad_version:
        return "drop_bad_version";
    case rx_result::drop_unknown_opcode:
        return "drop_unknown_opcode";
    case rx_result::drop_bad_pkey:
        return "drop_bad_pkey";
    case rx_result::drop_unknown_qpn:
        return "drop_unknown_qpn";
    case rx_result::drop_qp_state:
        return "drop_qp_state";
    case rx_result::drop_transport_mismatch:
        return "drop_transport_mismatch";
    case rx_result::drop_bad_source:
        return "drop_bad_source";
    case rx_result::drop_psn_sequence:
        return "drop_psn_sequence";
    case rx_result::drop_stale_read:
        return "drop_stale_read";
    case rx_result::drop_missing_reth:
        return "drop_missing_reth";
    case rx_result::drop_opcode_sequence:
        return "drop_opcode_sequence";
    case rx_result::drop_no_access:
        return "drop_no_access";
    case rx_result::drop_bad_rkey:
        return "drop_bad_rkey";
    case rx_result::drop_out_of_bounds:
        return "drop_out_of_bounds";
    case rx_result::drop_bad_length:
        return "drop_bad_length";
    case rx_result::drop_no_receive_wr:
        return "drop_no_receive_wr";
    case rx_result::drop_unsupported:
        return "drop_unsupported";
    case rx_result::duplicate:
        return "duplicate";
    }
    return "invalid rx_result";
}

const char* to_string(nic_event event)
{
    switch (event) {
    case nic_event::rx_bytes:
        return "rx_bytes";
    case nic_event::completions:
        return "completions";
    case nic_event::cq_overflow:
        return "cq_overflow";
    case nic_event::acks_sent:
        return "acks_sent";
    case nic_event::naks_sent:
        return "naks_sent";
    case nic_event::tx_errors:
        return "tx_errors";
    case nic_event::psn_resync:
        return "psn_resync";
    case nic_event::message_aborted:
        return "message_aborted";
    case nic_event::reads:
        return "reads";
    case nic_event::read_replays:
        return "read_replays";
    case nic_event::read_responses_sent:
        return "read_responses_sent";
    case nic_event::tx_bytes:
        return "tx_bytes";
    case nic_event::rx_coalesced:
        return "rx_coalesced";
    }
    return "invalid nic_event";
}

uint64_t soft_counters::datagrams() const
{
    uint64_t total = 0;
    for (const auto& c : d_results)
        total += c.load(std::memory_order_acquire);
    return total;
}

counters soft_counters::snapshot() const
{
    counters out;
    out["rx_datagrams"] = datagrams();
    out["rx_packets"] = get(rx_result::accepted);
    for (size_t i = 1; i < rx_result_count; i++)
        out[to_string(static_cast<rx_result>(i))] =
            d_results[i].load(std::memory_order_acquire);
    for (size_t i = 0; i < nic_event_count; i++)
        out[to_string(static_cast<nic_event>(i))] =
            d_events[i].load(std::memory_order_acquire);
    return out;
}

} // namespace nic
} // namespace rdma
} // namespace gr
