/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/link_registers.h"
#include "link_args.h"
#include <stdexcept>
#include <string>
#include <utility>

namespace gr {
namespace rdma {

namespace {

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> out;
    for (size_t at = 0; at <= text.size();) {
        const size_t end = std::min(text.find(separator, at), text.size());
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// "L@FROM[-UNTIL]" joined by '+': link L from FROM s after START, until UNTIL s.
void parse_faults(const device_args& args,
                  const std::string& key,
                  link_plan::link_fault::kind what,
                  link_plan& p)
{
    if (!args.has(key))
        return;
    const std::string text = args.get(key, "");
    const std::string fix = ": give " + key +
                            "=LINK@FROM[-UNTIL] in seconds after the start, several "
                            "joined by '+', e.g. " +
                            key + "=1@0.2-0.5";
    for (const std::string& one : split(text, '+')) {
        const size_t at = one.find('@');
        const size_t dash = one.find('-', at == std::string::npos ? 0 : at);
        link_plan::link_fault f;
        f.what = what;
        try {
            if (at == std::string::npos || at == 0)
                throw std::invalid_argument("no link");
            size_t used = 0;
            f.link = static_cast<unsigned>(std::stoul(one.substr(0, at), &used));
            if (used != at)
                throw std::invalid_argument("link");
            const std::string from = one.substr(at + 1, dash - at - 1);
            f.from_s = std::stod(from, &used);
            if (used != from.size())
                throw std::invalid_argument("from");
            if (dash != std::string::npos) {
                const std::string until = one.substr(dash + 1);
                f.until_s = std::stod(until, &used);
                if (used != until.size())
                    throw std::invalid_argument("until");
            }
        } catch (const std::exception&) {
            throw std::invalid_argument("device args: " + key + "=" + text + ": '" + one +
                                        "' is not LINK@FROM[-UNTIL]" + fix);
        }
        if (f.link >= p.links || !(f.from_s >= 0) || f.from_s > 1e6 ||
            (f.until_s >= 0 && !(f.until_s > f.from_s)) || f.until_s > 1e6)
            throw std::invalid_argument("device args: " + key + "=" + text + ": '" + one +
                                        "' names link " + std::to_string(f.link) +
                                        " of links=" + std::to_string(p.links) +
                                        " or times that do not run forward" + fix);
        p.faults.push_back(f);
    }
}

// nic_addr=A+B: one NIC per link (destination d's at the d-th address); one address
// serves every link.
void parse_nic_addresses(const device_args& args, link_plan& p)
{
    if (!args.has("nic_addr"))
        return;
    const std::vector<std::string> parts = split(args.get("nic_addr", ""), '+');
    if (parts.size() > 1 && parts.size() != p.links)
        throw std::invalid_argument(
            "device args: nic_addr=" + args.get("nic_addr", "") + " names " +
            std::to_string(parts.size()) + " NICs for links=" + std::to_string(p.links) +
            ": give one address for all links, or one per link separated by '+'");
    if (parts.size() > 1)
        for (const std::string& a : parts)
            p.nic_addresses.push_back(
                device_args::parse("nic_addr=" + a).get_address("nic_addr", "", 0).ip());
}

// emu_link_delay_us= and emu_link_reorder_us=: one value per link.
void parse_emulated_paths(const device_args& args, const arg_table& k, link_plan& p)
{
    const std::pair<const char*, std::vector<uint32_t>*> per_link[] = {
        { "emu_link_delay_us", &p.emu_delay_us },
        { "emu_link_reorder_us", &p.emu_reorder_us }
    };
    for (const auto& [key, to] : per_link) {
        const std::vector<uint64_t> us = args.get_uint_list(k[key]);
        if (!us.empty() && us.size() != p.links)
            throw std::invalid_argument(std::string("device args: ") + key + "=" +
                                        args.get(key, "") + " gives " +
                                        std::to_string(us.size()) +
                                        " values for links=" + std::to_string(p.links) +
                                        ": give one per link, e.g. " + key + "=0:300");
        for (uint64_t v : us)
            to->push_back(static_cast<uint32_t>(v));
    }
}

} // namespace

const arg_table& link_plan::keys()
{
    // clang-format off
    static const arg_table t("links", {
        arg_key::integer("links", 1, max_links, "1", "device links", "spread the stream over the device's links 0..N-1").hinted("destination d on link d, d < links"),
        arg_key::list("weights", 0, regs::dst::max_weight, "weights", "one weight per link: its messages per period of the schedule"),
        arg_key::integer("link_timeout", 0, 10000, "20", "ms", "a link silent this long while another notified is declared down; 0: never").depending("0, 2…10000").hinted("0: never, else 2..10000"),
        arg_key::integer("link_retry", 10, 600000, "1000", "ms", "a link declared down gets its share back this long after"),
        arg_key::text("emu_link_down", "the emulator takes links down: LINK@FROM[-UNTIL] seconds, several joined by +"),
        arg_key::text("emu_link_loss", "the emulator loses a link's packets: as emu_link_down"),
        arg_key::list("emu_link_delay_us", 0, regs::emu_link::max_delay_us, "µs", "the emulator delays each link's packets, one value per link"),
        arg_key::list("emu_link_reorder_us", 0, regs::emu_link::max_delay_us, "µs", "the emulator reorders each link's packets within this window, one value per link"),
    });
    // clang-format on
    return t;
}

link_plan link_plan::from_args(const device_args& args)
{
    link_plan p;
    const arg_table& k = keys();
    p.links = static_cast<unsigned>(args.get_uint(k["links"]));
    const std::vector<uint64_t> w = args.get_uint_list(k["weights"]);
    if (!w.empty() && w.size() != p.links)
        throw std::invalid_argument("device args: weights=" + args.get("weights", "") +
                                    " gives " + std::to_string(w.size()) +
                                    " weights for links=" + std::to_string(p.links) +
                                    ": give one per link, e.g. links=2,weights=3:1");
    uint64_t sum = 0;
    for (uint64_t x : w) {
        p.weights.push_back(static_cast<uint16_t>(x));
        sum += x;
    }
    if (!w.empty() && (sum == 0 || sum > regs::link_schedule::max_period))
        throw std::invalid_argument("device args: weights=" + args.get("weights", "") +
                                    " add up to " + std::to_string(sum) +
                                    ": they must add up to 1.." +
                                    std::to_string(regs::link_schedule::max_period) +
                                    " (one period of the schedule)");
    parse_nic_addresses(args, p);
    p.link_timeout_ms = static_cast<unsigned>(args.get_uint(k["link_timeout"]));
    if (p.link_timeout_ms == 1)
        throw std::invalid_argument(
            "device args: link_timeout=1 is invalid: expected 0 (never) or 2..10000 ms "
            "(the host looks at the schedule every millisecond)");
    p.link_retry_ms = static_cast<unsigned>(args.get_uint(k["link_retry"]));
    parse_emulated_paths(args, k, p);
    parse_faults(args, "emu_link_down", link_fault::kind::down, p);
    parse_faults(args, "emu_link_loss", link_fault::kind::loss, p);
    if (!p.several() &&
        (!p.faults.empty() || !p.emu_delay_us.empty() || !p.emu_reorder_us.empty()))
        throw std::invalid_argument(
            "device args: emu_link_down=, emu_link_loss=, emu_link_delay_us= and "
            "emu_link_reorder_us= act on the links of a stream over several links: "
            "give links=");
    return p;
}

} // namespace rdma
} // namespace gr
