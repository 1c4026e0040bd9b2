/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "probe_controller.h"
#include "probe_reads.h"
#include "regs/register_map.h"
#include <spdlog/fmt/fmt.h>
#include <algorithm>
#include <iterator>

namespace gr {
namespace rdma {
namespace app {

namespace {

using status = axioe::status;

const char* policy_name(uint32_t p)
{
    switch (p) {
    case regs::ctrl_policy::none:
        return "none";
    case regs::ctrl_policy::water_filling:
        return "water filling";
    case regs::ctrl_policy::shortest_rtt:
        return "shortest RTT";
    default:
        return "unknown";
    }
}

// A rate register (KiB/s, 0 none) as text and as bytes per second for machines.
void add_rate(report_node& n, const std::string& label, uint32_t kib)
{
    const uint64_t bytes = uint64_t(kib) * regs::ctrl::rate_unit;
    n.add_raw(label,
              kib ? fmt::format("{} KiB/s ({} bytes/s)", kib, bytes)
                  : std::string("none"),
              std::to_string(bytes),
              json_key(label) + "_bytes_per_s");
}

// Destination 0 and every other one the current (or last) run used.
std::vector<unsigned> shown_destinations(axioe::client& c, unsigned s)
{
    std::vector<unsigned> out{ 0 };
    for (unsigned d = 1; d < regs::rx_dest_per_stream; d++) {
        uint32_t state = 0;
        if (try_read(c, regs::rx_dest_reg(s, d, regs::dst::state), &state, 1) ==
                status::okay &&
            (state & regs::dst::state_bits::used))
            out.push_back(d);
    }
    return out;
}

std::string joined(const std::vector<std::string>& parts)
{
    std::string line;
    for (const std::string& t : parts)
        line += (line.empty() ? "" : " ") + t;
    return line;
}

// Their weights in force.
void add_weights(report_node& n,
                 axioe::client& c,
                 unsigned s,
                 const std::vector<unsigned>& shown)
{
    std::vector<std::string> text;
    std::string json;
    for (unsigned d : shown) {
        uint32_t weight = 0;
        const status st =
            try_read(c, regs::rx_dest_reg(s, d, regs::dst::weight), &weight, 1);
        if (st != status::okay) {
            n.add("weights", "not readable: " + refusal(st));
            return;
        }
        text.push_back(fmt::format("{}:{}", d, weight));
        json += fmt::format(
            "{}{{\"destination\":{},\"weight\":{}}}", json.empty() ? "" : ",", d, weight);
    }
    n.add_raw("weights", joined(text) + " (destination:weight)", "[" + json + "]");
}

// The host's feedback, DST_PATH_NS: the RTTs policy 2 weighs by.
void add_paths(report_node& n,
               axioe::client& c,
               unsigned s,
               const std::vector<unsigned>& shown)
{
    std::vector<std::string> text;
    std::string json;
    for (unsigned d : shown) {
        uint32_t ns = 0;
        const status st =
            try_read(c, regs::rx_dest_reg(s, d, regs::dst::path_ns), &ns, 1);
        if (st != status::okay) {
            n.add_raw("paths",
                      st == status::decerr ? "not reported by this device"
                                           : "not readable: " + refusal(st),
                      "null");
            return;
        }
        text.push_back(ns ? fmt::format("{}:{}", d, ns) : fmt::format("{}:none", d));
        json += fmt::format(
            "{}{{\"destination\":{},\"path_ns\":{}}}", json.empty() ? "" : ",", d, ns);
    }
    n.add_raw("paths", joined(text) + " (destination:ns)", "[" + json + "]");
}

// RC over several links: the RTT each destination's requester measured from its ACKs
// (DST_RTT_NS) and its packets sent again (DST_RETRANSMITS), which policy 2 and the
// NAK backoff act on.
void add_device_rtts(report_node& n,
                     axioe::client& c,
                     unsigned s,
                     const std::vector<unsigned>& shown)
{
    std::vector<std::string> text;
    std::string json;
    for (unsigned d : shown) {
        // Two bursts: the block has a hole at 0x0C, which answers DECERR.
        uint32_t ns = 0, resent_words[2] = {};
        status st = try_read(c, regs::rx_dest_rc_reg(s, d, regs::dst_rc::rtt_ns), &ns, 1);
        if (st == status::okay)
            st = try_read(c,
                          regs::rx_dest_rc_reg(s, d, regs::dst_rc::retransmits_lo),
                          resent_words,
                          2);
        if (st != status::okay) {
            n.add("device RTTs", "not readable: " + refusal(st));
            return;
        }
        const uint64_t resent = regs::join_words(resent_words[0], resent_words[1]);
        text.push_back(ns ? fmt::format("{}:{}/{}", d, ns, resent)
                          : fmt::format("{}:none/{}", d, resent));
        json += fmt::format("{}{{\"destination\":{},\"rtt_ns\":{},\"retransmits\":{}}}",
                            json.empty() ? "" : ",",
                            d,
                            ns,
                            resent);
    }
    n.add_raw("device RTTs",
              joined(text) + " (destination:ns/packets resent, RC)",
              "[" + json + "]");
}

// A stream's limit and rate registers; the first refusal, or okay.
status read_rates(axioe::client& c,
                  uint32_t limit_reg,
                  uint32_t rate_reg,
                  uint32_t& limit,
                  uint32_t& rate)
{
    const status a = try_read(c, limit_reg, &limit, 1);
    return a != status::okay ? a : try_read(c, rate_reg, &rate, 1);
}

// The TX streams' READ rates (read apart: a controller from before them answers
// DECERR there).
void add_tx_reads(report_node& n, axioe::client& c, const device_identity& id)
{
    report_node& streams = n.child("TX streams", true);
    const uint32_t count = std::min(id.num_tx_streams, regs::ctrl::max_tx_streams);
    for (uint32_t t = 0; t < count; t++) {
        report_node& r = streams.child(fmt::format("TX stream {}", t));
        r.add_json("index", std::to_string(t));
        uint32_t limit = 0, rate = 0;
        const status st = read_rates(
            c, regs::ctrl_tx_rate_limit_reg(t), regs::ctrl_tx_rate_reg(t), limit, rate);
        if (st == status::decerr) {
            r.add_raw("read rate", "not reported by this device", "null");
            continue;
        }
        if (st != status::okay) {
            refused(r, st);
            continue;
        }
        add_rate(r, "read rate limit", limit);
        add_rate(r, "read rate", rate);
    }
}

} // namespace

void add_controller(report_node& device, axioe::client& c, const device_identity& id)
{
    report_node& n = device.child("Controller");
    if (!id.has(regs::cap::rate_control)) {
        refused(n, status::decerr);
        return;
    }
    uint32_t w[(regs::ctrl::runs_lo + 8) / 4] = {};
    const status st = try_read(c, regs::ctrl_base, w, std::size(w));
    if (st != status::okay) {
        refused(n, st);
        return;
    }
    auto wide = [&w](uint32_t lo) { return regs::join_words(w[lo / 4], w[lo / 4 + 1]); };
    const uint32_t policy = w[regs::ctrl::policy / 4];
    n.add_raw("policy",
              fmt::format("{} ({})", policy_name(policy), policy),
              json_string(policy_name(policy)));
    n.add_json("policy_code", std::to_string(policy));
    n.add("period", uint64_t(w[regs::ctrl::period_us / 4]), "us");
    n.add("events", wide(regs::ctrl::events_lo));
    n.add("coalesced", wide(regs::ctrl::coalesced_lo));
    n.add("runs", wide(regs::ctrl::runs_lo));
    // Read apart: a controller from before it answers DECERR there.
    uint32_t cuts[2] = {};
    if (try_read(c, regs::ctrl_base + regs::ctrl::nak_cuts_lo, cuts, 2) == status::okay)
        n.add("NAK cuts", regs::join_words(cuts[0], cuts[1]));
    else
        n.add_raw("NAK cuts", "not reported by this device", "null");
    if (id.has(regs::cap::tx)) {
        if (try_read(c, regs::ctrl_base + regs::ctrl::tx_nak_cuts_lo, cuts, 2) ==
            status::okay)
            n.add("TX NAK cuts", regs::join_words(cuts[0], cuts[1]));
        else
            n.add_raw("TX NAK cuts", "not reported by this device", "null");
    }
    report_node& streams = n.child("Streams", true);
    const uint32_t count = std::min(id.num_rx_streams, regs::ctrl::max_streams);
    for (uint32_t s = 0; s < count; s++) {
        report_node& r = streams.child(fmt::format("Stream {}", s));
        r.add_json("index", std::to_string(s));
        uint32_t limit = 0, rate = 0;
        const status st = read_rates(
            c, regs::ctrl_rate_limit_reg(s), regs::ctrl_rate_reg(s), limit, rate);
        if (st != status::okay) {
            refused(r, st);
            continue;
        }
        add_rate(r, "rate limit", limit);
        add_rate(r, "rate", rate);
        if (id.has(regs::cap::multi_link)) {
            const std::vector<unsigned> shown = shown_destinations(c, s);
            add_weights(r, c, s, shown);
            add_paths(r, c, s, shown);
            if (id.has(regs::cap::rc_links))
                add_device_rtts(r, c, s, shown);
        }
    }
    if (id.has(regs::cap::tx))
        add_tx_reads(n, c, id);
}

} // namespace app
} // namespace rdma
} // namespace gr
