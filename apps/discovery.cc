/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "app_flags.h"
#include "axioe/axioe_packet.h"
#include "discovery.h"
#include "util/errors.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <spdlog/fmt/fmt.h>
#include <sys/socket.h>
#include <system_error>
#include <algorithm>
#include <memory>
#include <random>

namespace gr {
namespace rdma {
namespace app {

namespace {

using clock_type = std::chrono::steady_clock;

// The words of an identity answer: the header says how many follow, and the codec has
// checked the length against it.
std::array<uint32_t, identity_words> identity_of(const axioe::response& r)
{
    std::array<uint32_t, identity_words> w{};
    axioe::load_words(r.payload, w.data(), w.size());
    return w;
}

uint32_t ipv4_of(const sockaddr* sa)
{
    return ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr);
}

} // namespace

uint32_t broadcast_address(const std::string& flag, const std::string& name_or_ip)
{
    in_addr ip{};
    if (inet_pton(AF_INET, name_or_ip.c_str(), &ip) == 1)
        return ntohl(ip.s_addr);
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0)
        throw_errno("getifaddrs");
    const std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> owner(list, ::freeifaddrs);
    bool exists = false;
    std::string names;
    for (const ifaddrs* i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        if (names.find(std::string(" ") + i->ifa_name + " ") == std::string::npos)
            names += std::string(" ") + i->ifa_name + " ";
        if (name_or_ip != i->ifa_name)
            continue;
        exists = true;
        if (!(i->ifa_flags & IFF_BROADCAST) || !i->ifa_netmask)
            continue;
        const uint32_t address = ipv4_of(i->ifa_addr);
        const uint32_t mask = ipv4_of(i->ifa_netmask);
        // A /31 or /32 has no broadcast address (RFC 3021).
        if (~mask <= 1)
            continue;
        // The configured one if it is in the subnet; "ip addr add" without "brd +"
        // configures none, and getifaddrs then reports the address itself.
        const uint32_t configured = i->ifa_broadaddr ? ipv4_of(i->ifa_broadaddr) : 0;
        if (configured != address && (configured & mask) == (address & mask))
            return configured;
        return address | ~mask;
    }
    if (exists)
        bad_flag(flag,
                 name_or_ip,
                 "an interface with an IPv4 broadcast address (" + name_or_ip +
                     " has none: loopback, point-to-point or a /31; ask its devices "
                     "with --addr)");
    std::string listed;
    for (size_t at = 0; at < names.size();) {
        const size_t end = names.find(' ', at + 1);
        listed += (listed.empty() ? "" : ", ") + names.substr(at + 1, end - at - 1);
        at = end + 1;
    }
    bad_flag(flag,
             name_or_ip,
             "an IPv4 address or an interface with IPv4 (here: " +
                 (listed.empty() ? std::string("none") : listed) + ")");
}

discovery::discovery(std::vector<discovery_target> targets)
    : d_socket(socket_address(0, 0)), d_rx(axioe::max_datagram_bytes + 1)
{
    // A random first sequence number, as every AXIoE client takes (docs/axioe.md
    // §7.1): a device may still hold answers to an earlier search from this port.
    uint32_t sequence = static_cast<uint32_t>(std::random_device{}());
    bool any_broadcast = false;
    for (auto& t : targets) {
        target_state s;
        s.target = std::move(t);
        s.sequence = sequence++;
        axioe::request r;
        r.op = axioe::opcode::read;
        r.sequence = s.sequence;
        r.address = regs::id_magic;
        r.count = static_cast<uint16_t>(identity_words);
        axioe::encode_request(s.request.data(), r);
        any_broadcast = any_broadcast || s.target.broadcast;
        d_targets.push_back(std::move(s));
    }
    // Only when asked to: without it a broadcast address given to --addr fails
    // (EACCES) instead of reaching every device of the segment.
    if (any_broadcast) {
        const int on = 1;
        if (::setsockopt(d_socket.fd(), SOL_SOCKET, SO_BROADCAST, &on, sizeof(on)) != 0)
            throw_errno("setsockopt(SO_BROADCAST)");
    }
}

void discovery::send_pending()
{
    for (auto& t : d_targets) {
        if (t.failed || (t.answered && !t.target.broadcast))
            continue;
        try {
            d_socket.send_to(t.request.data(), t.request.size(), t.target.to);
        } catch (const std::system_error& e) {
            t.failed = true;
            d_notes.push_back(fmt::format("{} ({}): cannot send: {}{}",
                                          t.target.to.to_string(),
                                          t.target.origin,
                                          e.what(),
                                          e.code().value() == EACCES
                                              ? " (a broadcast address? use --broadcast)"
                                              : ""));
        }
    }
}

bool discovery::done() const
{
    for (const auto& t : d_targets)
        if (t.target.broadcast || !(t.answered || t.failed))
            return false;
    return true;
}

long discovery::match(uint32_t sequence, const socket_address& peer) const
{
    for (size_t i = 0; i < d_targets.size(); i++) {
        const auto& t = d_targets[i];
        if (t.sequence == sequence && (t.target.broadcast || t.target.to == peer))
            return static_cast<long>(i);
    }
    return -1;
}

bool discovery::seen(const socket_address& peer)
{
    if (std::find(d_peers.begin(), d_peers.end(), peer) != d_peers.end())
        return true;
    d_peers.push_back(peer);
    return false;
}

void discovery::handle(const datagram& d)
{
    const std::string from = d.peer.to_string();
    if (d.truncated) {
        d_notes.push_back(from + ": a datagram longer than any AXIoE response, ignored");
        return;
    }
    axioe::response r;
    const auto parsed = axioe::decode_response(d.data, d.length, r);
    if (parsed != axioe::parse_status::ok) {
        d_notes.push_back(fmt::format(
            "{}: not an AXIoE response ({}), ignored", from, axioe::to_string(parsed)));
        return;
    }
    const long i = match(r.sequence, d.peer);
    if (i < 0) {
        d_notes.push_back(fmt::format(
            "{}: an AXIoE response to no request of this search (sequence {:#x}), "
            "ignored; a device answers from the address it was asked at",
            from,
            r.sequence));
        return;
    }
    target_state& t = d_targets[static_cast<size_t>(i)];
    t.answered = true;
    // Retransmissions get the same answer again (docs/axioe.md §7.2), and a device
    // asked both directly and by broadcast answers both: each device counts once.
    if (seen(d.peer))
        return;
    t.answers++;
    if (!axioe::is_success(r.code)) {
        d_notes.push_back(fmt::format(
            "{} ({}): answered {} ({}){}",
            from,
            t.target.origin,
            axioe::to_string(r.code),
            axioe::describe(r.code),
            r.code == axioe::status::bad_request
                ? fmt::format("; a device that takes fewer than {} words per burst "
                              "answers so",
                              identity_words)
                : ""));
        return;
    }
    if (r.request_opcode != static_cast<uint8_t>(axioe::opcode::read) ||
        r.address != regs::id_magic || r.count != identity_words) {
        d_notes.push_back(from + ": an answer that does not echo the identity READ, "
                                 "ignored");
        return;
    }
    const device_identity id = decode_identity(identity_of(r));
    if (!id.is_gr_rdma()) {
        d_notes.push_back(fmt::format("{} ({}): answers AXIoE, but is not a gr-rdma "
                                      "device (ID_MAGIC reads {:#010x}, not {:#010x} "
                                      "\"GRDM\")",
                                      from,
                                      t.target.origin,
                                      id.magic,
                                      regs::magic_value));
        return;
    }
    d_answers.push_back({ { d.peer, id }, static_cast<size_t>(i) });
}

void discovery::run(std::chrono::duration<double> wait)
{
    const auto start = clock_type::now();
    const auto deadline = start + std::chrono::duration_cast<clock_type::duration>(wait);
    auto next_send = start;
    datagram slot;
    slot.data = d_rx.data();
    slot.capacity = d_rx.size();
    while (!done()) {
        auto now = clock_type::now();
        if (now >= deadline)
            break;
        if (now >= next_send) {
            send_pending();
            next_send = now + resend_period;
            continue;
        }
        const auto until = std::min(deadline, next_send);
        if (d_socket.receive(slot,
                             std::chrono::ceil<std::chrono::microseconds>(until - now)))
            handle(slot);
    }
    for (const auto& t : d_targets) {
        if (t.failed)
            continue;
        if (t.target.broadcast)
            d_notes.push_back(fmt::format("broadcast to {} ({}): {} answer(s) in {} s",
                                          t.target.to.to_string(),
                                          t.target.origin,
                                          t.answers,
                                          wait.count()));
        else if (!t.answered)
            d_notes.push_back(fmt::format("{} ({}): no answer within {} s; is a device "
                                          "or gr-rdma-emu listening there?",
                                          t.target.to.to_string(),
                                          t.target.origin,
                                          wait.count()));
    }
}

std::vector<found_device> discovery::devices() const
{
    std::vector<answer> sorted = d_answers;
    std::stable_sort(sorted.begin(), sorted.end(), [](const answer& a, const answer& b) {
        if (a.target != b.target)
            return a.target < b.target;
        const auto ka = std::make_pair(a.device.address.ip(), a.device.address.port());
        const auto kb = std::make_pair(b.device.address.ip(), b.device.address.port());
        return ka < kb;
    });
    std::vector<found_device> out;
    for (const auto& a : sorted)
        out.push_back(a.device);
    return out;
}

} // namespace app
} // namespace rdma
} // namespace gr
