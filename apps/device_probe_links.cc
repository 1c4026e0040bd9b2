/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_probe_links.h"
#include "probe_reads.h"
#include "regs/link_fields.h"
#include "regs/register_map.h"
#include <spdlog/fmt/fmt.h>
#include <algorithm>
#include <array>
#include <vector>

namespace gr {
namespace rdma {
namespace app {

using status = axioe::status;

namespace {

std::string control_text(uint32_t control)
{
    switch (control) {
    case regs::link_control::up:
        return "up (1: the host wants it used)";
    case regs::link_control::down:
        return "down (2: the host declared it down)";
    default:
        return fmt::format("unknown ({})", control);
    }
}

const char* control_name(uint32_t control)
{
    return control == regs::link_control::up     ? "up"
           : control == regs::link_control::down ? "down"
                                                 : "unknown";
}

// DST_STATE for people: whether it takes messages, and why not.
std::string state_text(uint32_t state)
{
    namespace bits = regs::dst::state_bits;
    std::string text = (state & bits::active) ? "active" : "inactive";
    std::string why;
    auto because = [&why](const char* reason) {
        why += why.empty() ? ": " : ", ";
        why += reason;
    };
    if (state & bits::device_down)
        because("its link went down (device)");
    if (state & bits::host_down)
        because("its link declared down by the host (LINK_CONTROL = 2)");
    const uint32_t unknown =
        state & ~(bits::active | bits::device_down | bits::host_down | bits::used);
    if (unknown)
        because(fmt::format("unknown bits {:#x}", unknown).c_str());
    return text + why;
}

struct cause_names {
    const char* json;
    std::string text;
};

cause_names cause_of(const regs::epoch_values& e)
{
    namespace code = regs::epoch::cause_code;
    switch (e.cause) {
    case code::start:
        return { "start", "START" };
    case code::link_down:
        return { "link_down", fmt::format("link {} went down", e.link) };
    case code::host_down:
        return { "host_down",
                 fmt::format("link {} declared down by the host (LINK_CONTROL = 2)",
                             e.link) };
    case code::link_up:
        return { "link_up", fmt::format("link {} rejoined (LINK_CONTROL = 1)", e.link) };
    case code::weights:
        return { "weights", "weights written" };
    default:
        return { "unknown", fmt::format("unknown ({})", e.cause) };
    }
}

// The destinations' weights in an epoch, for the first \p shown destinations.
void add_weights(report_node& n, const regs::epoch_values& e, unsigned shown)
{
    std::string text, json;
    for (unsigned d = 0; d < shown; d++) {
        text += (d ? " " : "") + std::to_string(e.weights[d]);
        json += (d ? "," : "") + std::to_string(e.weights[d]);
    }
    n.add_raw("weights", text, "[" + json + "]");
}

// An epoch entry as read: the device's refusal, or the epoch (its number checked).
struct epoch_read {
    uint32_t number = 0; // the epoch asked for
    status result = status::okay;
    regs::epoch_values epoch;
    bool replaced() const { return result == status::okay && epoch.number != number; }
    bool valid() const { return result == status::okay && epoch.number == number; }
};

// The newest epochs the device keeps, oldest first.
std::vector<epoch_read>
read_epochs(axioe::client& c, unsigned s, uint32_t count, uint32_t kept)
{
    // The entries a device may have (docs/register-map.md, "RX epochs"): never trust a
    // count from the wire beyond them.
    constexpr uint32_t max_kept = 7;
    const uint32_t entries = std::min(kept, max_kept);
    std::vector<epoch_read> out;
    for (uint32_t k = count - std::min(count, entries); k < count; k++) {
        epoch_read r;
        r.number = k;
        uint32_t w[regs::epoch::entry_words] = {};
        r.result = try_read(c, regs::epoch_entry_reg(s, k % entries, 0), w, std::size(w));
        if (r.result == status::okay)
            r.epoch = regs::epoch_values::from_words(w);
        out.push_back(r);
    }
    return out;
}

// The used destinations, with their weight in the current epoch (\p now, if read);
// returns one past the highest used one (0: none).
unsigned add_destinations(report_node& schedule,
                          axioe::client& c,
                          unsigned s,
                          const epoch_read* now)
{
    report_node& list = schedule.child("Destinations", true);
    unsigned shown = 0;
    for (unsigned d = 0; d < regs::rx_dest_per_stream; d++) {
        uint32_t w[3] = {}; // DST_MESSAGES (2), DST_STATE
        const status st =
            try_read(c, regs::rx_dest_reg(s, d, regs::dst::messages_lo), w, 3);
        if (st != status::okay) {
            report_node& n = list.child(fmt::format("Destination {}", d));
            n.add_json("index", std::to_string(d));
            refused(n, st);
            continue;
        }
        const uint32_t state = w[2];
        if (!(state & regs::dst::state_bits::used))
            continue;
        shown = d + 1;
        report_node& n = list.child(fmt::format("Destination {}", d));
        n.add_json("index", std::to_string(d));
        uint32_t lw[2] = {}; // DST_LINK, DST_WEIGHT: the owner's to read
        const status ls = try_read(c, regs::rx_dest_reg(s, d, regs::dst::link), lw, 2);
        if (ls == status::okay) {
            n.add("link", uint64_t(lw[0]));
            n.add("weight", uint64_t(lw[1]));
        } else {
            const std::string why = ls == status::not_owner
                                        ? "not readable: another host owns the stream"
                                        : "not readable: " + refusal(ls);
            n.add_raw("link", why, "null");
            n.add_raw("weight", why, "null");
        }
        // Anyone's: what the schedule gives it now (0 while inactive).
        if (now)
            n.add_raw(fmt::format("weight in epoch {}", now->number),
                      std::to_string(now->epoch.weights[d]),
                      std::to_string(now->epoch.weights[d]),
                      "epoch_weight");
        namespace bits = regs::dst::state_bits;
        n.add_raw("state", state_text(state), json_string(state_text(state)));
        n.add_hex("state word", state);
        n.add_json("active", (state & bits::active) ? "true" : "false");
        n.add_json("device_down", (state & bits::device_down) ? "true" : "false");
        n.add_json("host_down", (state & bits::host_down) ? "true" : "false");
        n.add("messages", regs::join_words(w[0], w[1]));
    }
    return shown;
}

void add_epochs(report_node& schedule,
                const std::vector<epoch_read>& epochs,
                unsigned destinations)
{
    report_node& list = schedule.child("Epochs", true);
    const unsigned shown = destinations ? destinations : regs::rx_dest_per_stream;
    for (const epoch_read& r : epochs) {
        report_node& n = list.child(fmt::format("Epoch {}", r.number));
        n.add_json("number", std::to_string(r.number));
        if (r.result != status::okay) {
            refused(n, r.result);
            continue;
        }
        if (r.replaced()) { // a newer epoch took the entry before we read it
            n.set_summary(fmt::format("replaced while read (its entry holds epoch {})",
                                      r.epoch.number));
            n.add_json("replaced", "true");
            continue;
        }
        n.add("first message", r.epoch.first);
        const cause_names cause = cause_of(r.epoch);
        n.add_raw("cause", cause.text, json_string(cause.json));
        n.add_json("cause_code", std::to_string(r.epoch.cause));
        n.add_json("cause_link", std::to_string(r.epoch.link));
        add_weights(n, r.epoch, shown);
    }
}

} // namespace

void add_link_traffic(report_node& n, axioe::client& c, unsigned l, bool multi_link)
{
    constexpr uint32_t first = regs::link::tx_packets_lo,
                       last = regs::link::rx_packets_hi;
    uint32_t w[(last - first) / 4 + 1] = {};
    const status s = try_read(c, regs::link_reg(l, first), w, std::size(w));
    if (s == status::okay) {
        auto pair = [&w](uint32_t lo) {
            return regs::join_words(w[(lo - first) / 4], w[(lo - first) / 4 + 1]);
        };
        n.add("TX packets", pair(regs::link::tx_packets_lo));
        n.add("TX bytes", pair(regs::link::tx_bytes_lo));
        n.add("RX packets", pair(regs::link::rx_packets_lo));
    } else {
        n.add("TX packets", "not reported: " + refusal(s));
    }
    if (!multi_link)
        return;
    uint32_t m[4] = {}; // LINK_CONTROL, LINK_DOWN_EVENTS, LINK_CAPACITY (2)
    const status ms = try_read(c, regs::link_reg(l, regs::link::control), m, 4);
    if (ms != status::okay) {
        n.add("control", "not reported: " + refusal(ms));
        return;
    }
    n.add_raw("control", control_text(m[0]), json_string(control_name(m[0])));
    n.add_json("control_word", std::to_string(m[0]));
    n.add("down events", uint64_t(m[1]));
    const uint64_t capacity = regs::join_words(m[2], m[3]);
    n.add_raw("capacity",
              capacity ? fmt::format("{} bytes/s", capacity) : "0 (not known)",
              std::to_string(capacity),
              "capacity_bytes_per_s");
}

void add_stream_shares(report_node& stream, axioe::client& c, unsigned s)
{
    report_node& n = stream.child("Shares");
    uint32_t w[3] = {}; // RX_SHARES, RX_SHARE_BLOCK, RX_SHARE_READY: anyone's
    const status st = try_read(c, regs::rx_reg(s, regs::rx::shares), w, 3);
    if (st != status::okay) {
        refused(n, st);
        return;
    }
    const unsigned shares = std::min<uint32_t>(w[0], regs::max_shares);
    n.set_summary(shares > 1 ? fmt::format("split over {} hosts", shares)
                             : "one (the whole stream is one host's)");
    n.add("count", uint64_t(w[0]));
    n.add("block", uint64_t(w[1]), "messages");
    n.add_hex("ready", w[2]);
    if (shares <= 1)
        return;
    report_node& list = n.child("Hosts", true);
    for (unsigned h = 0; h < shares; h++) {
        report_node& x = list.child(fmt::format("Share {}", h));
        x.add_json("index", std::to_string(h));
        x.add_bool("ready", (w[2] >> h) & 1);
        if (h > 0) { // share 0 is the stream's owner's
            uint32_t o = 0;
            const status os =
                try_read(c, regs::rx_share_reg(s, h, regs::share::owner), &o, 1);
            x.add("holder",
                  os != status::okay                ? "unknown: " + refusal(os)
                  : o == regs::owner_state::unowned ? std::string("nobody")
                  : o == regs::owner_state::mine    ? std::string("this probe's address")
                                                    : std::string("another host"));
        }
        uint32_t v[4] = {}; // SHARE_SAMPLES_EMITTED, SHARE_START_TIME (64 each)
        const status vs =
            try_read(c, regs::rx_share_reg(s, h, regs::share::samples_emitted_lo), v, 4);
        if (vs != status::okay) {
            x.add("samples emitted", "not reported: " + refusal(vs));
            continue;
        }
        x.add("samples emitted", regs::join_words(v[0], v[1]));
        x.add("start time", regs::join_words(v[2], v[3]), "ns");
    }
}

void add_stream_links(report_node& stream, axioe::client& c, unsigned s, bool running)
{
    uint32_t h[4] = {}; // EPOCH_COUNT, EPOCH_KEPT, EPOCH_SCHEDULED (2)
    const status st = try_read(c, regs::epoch_reg(s, regs::epoch::count), h, 4);
    if (st == status::okay && h[0] == 0 && !running)
        return; // it never ran: no destinations, no epochs to show
    report_node& n = stream.child("Schedule");
    if (!running)
        n.set_summary("of the last run");
    if (st != status::okay) {
        add_destinations(n, c, s, nullptr);
        refused(n.child("Epochs"), st);
        return;
    }
    n.add("epoch count", uint64_t(h[0]));
    n.add("epochs kept", uint64_t(h[1]));
    n.add("messages scheduled", regs::join_words(h[2], h[3]));
    const std::vector<epoch_read> epochs = read_epochs(c, s, h[0], h[1]);
    const epoch_read* now =
        !epochs.empty() && epochs.back().valid() ? &epochs.back() : nullptr;
    add_epochs(n, epochs, add_destinations(n, c, s, now));
}

} // namespace app
} // namespace rdma
} // namespace gr
