/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/net_interface.h"
#include "emulator.h"
#include "inproc_wire.h"
#include "raw_wire.h"
#include "udp_wire.h"
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {
namespace emu {

wire_type parse_wire_type(const std::string& text)
{
    if (text == "udp")
        return wire_type::udp;
    if (text == "raw")
        return wire_type::raw;
    if (text == "inproc")
        return wire_type::inproc;
    throw std::invalid_argument("emulator: wire '" + text +
                                "' is unknown: expected udp, raw or inproc");
}

const char* to_string(wire_type type)
{
    return type == wire_type::raw ? "raw" : type == wire_type::inproc ? "inproc" : "udp";
}

/*!
 * Link n as its link block counts it: packets and IPv4 bytes sent, datagrams received
 * on its RoCE port. Everything else is the wire's own.
 */
class emulator::counting_wire : public wire
{
public:
    counting_wire(wire& inner, link_stats& stats) : d_inner(inner), d_stats(stats) {}

    socket_address local_address() const override { return d_inner.local_address(); }
    uint16_t source_port() const override { return d_inner.source_port(); }
    unsigned mtu() const override { return d_inner.mtu(); }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override
    {
        const size_t sent = d_inner.send(batch, count, to);
        uint64_t bytes = 0;
        for (size_t i = 0; i < sent; i++)
            bytes += batch[i].length + headroom; // + IPv4 and UDP headers
        d_stats.tx_packets.fetch_add(sent, std::memory_order_relaxed);
        d_stats.tx_bytes.fetch_add(bytes, std::memory_order_relaxed);
        return sent;
    }
    size_t receive(datagram* slots, size_t count) override
    {
        const size_t got = d_inner.receive(slots, count);
        d_stats.rx_packets.fetch_add(got, std::memory_order_relaxed);
        return got;
    }
    bool icrc_ok(const datagram& d) const override { return d_inner.icrc_ok(d); }

private:
    wire& d_inner;
    link_stats& d_stats;
};

namespace {
std::unique_ptr<wire> make_wire(wire_type type, const socket_address& at)
{
    if (type == wire_type::raw)
        return std::make_unique<raw_wire>(at);
    if (type == wire_type::inproc)
        return std::make_unique<inproc_wire>(at);
    return std::make_unique<udp_wire>(at);
}
} // namespace

emulator::emulator(const emulator_config& config)
{
    if (config.rx_streams == 0 || config.rx_streams > 16)
        throw std::invalid_argument("emulator: rx_streams must be 1..16");
    if (config.max_burst_words == 0 || config.max_burst_words > axioe::max_burst_words)
        throw std::invalid_argument("emulator: max_burst_words must be 1.." +
                                    std::to_string(axioe::max_burst_words) + ", not " +
                                    std::to_string(config.max_burst_words));
    if (config.more_links.size() > 15)
        throw std::invalid_argument("emulator: at most 16 links");
    std::vector<socket_address> addresses{ config.link };
    addresses.insert(addresses.end(), config.more_links.begin(), config.more_links.end());
    std::vector<wire*> outs;
    std::vector<const link_channel*> channels_of_links;
    for (unsigned n = 0; n < addresses.size(); n++) {
        auto l = std::make_unique<link_parts>();
        l->network = make_wire(config.wire, addresses[n]);
        l->channel = std::make_unique<link_channel>(*l->network, n);
        l->counted = std::make_unique<counting_wire>(*l->channel, l->stats);
        outs.push_back(l->counted.get());
        channels_of_links.push_back(l->channel.get());
        d_links.push_back(std::move(l));
    }
    d_link = d_links[0]->counted.get();
    d_link_set = std::make_unique<link_set>(outs, channels_of_links);
    // Metadata leaves from the link's address by an ordinary UDP socket (any port).
    d_metadata = std::make_unique<metadata_sender>(
        socket_address(d_link->local_address().ip(), 0), config.rx_streams);

    if (config.tx_streams > 8)
        throw std::invalid_argument("emulator: tx_streams must be 0..8");
    const unsigned tx_streams = config.rx_streams <= 8 ? config.tx_streams : 0;
    // RC ACK/NAKs and READ RESPONSEs come back to the link; one receiver sorts them to
    // the streams.
    d_acks = std::make_unique<ack_receiver>(*d_link, config.rx_streams, tx_streams);
    // Each further link hears the ACK/NAKs of the RX destinations reached over it (RC
    // over several links, docs/links.md).
    std::vector<ack_receiver*> link_acks{ d_acks.get() };
    for (unsigned n = 1; n < d_links.size(); n++) {
        d_more_acks.push_back(
            std::make_unique<ack_receiver>(*d_links[n]->counted, config.rx_streams));
        link_acks.push_back(d_more_acks.back().get());
    }
    // The radio: RF channel s is the front end of RX stream s.
    std::vector<rf_channel*> channels;
    for (unsigned s = 0; s < config.rx_streams; s++) {
        d_channels.push_back(std::make_unique<rf_channel>(config.rf, d_clock));
        channels.push_back(d_channels.back().get());
    }
    d_commands = std::make_unique<command_queue>(d_clock, channels, config.rx_streams);
    d_controller = std::make_unique<device_controller>(
        config.rx_streams, unsigned(d_links.size()), tx_streams);
    std::vector<rx_engine*> engines;
    for (unsigned s = 0; s < config.rx_streams; s++) {
        engine_radio radio;
        radio.clock = &d_clock;
        radio.channel = channels[s];
        radio.commands = d_commands.get();
        d_rx.push_back(std::make_unique<rx_engine>(
            s, *d_link, d_metadata.get(), d_acks.get(), radio, d_link_set.get()));
        d_rx_pacing.push_back(std::make_shared<consumer_pacing>());
        d_rx.back()->set_pacing(d_rx_pacing.back().get());
        d_rx.back()->set_rate_source(d_controller->dequeue_rate(s));
        d_rx.back()->set_link_acks(link_acks);
        d_rx.back()->set_ctrl_sink(d_controller.get());
        engines.push_back(d_rx.back().get());
        d_commands->connect(s, engines.back());
    }

    std::vector<tx_engine*> tx;
    for (unsigned t = 0; t < tx_streams; t++) {
        d_tx.push_back(
            std::make_unique<tx_engine>(t, *d_link, *d_acks, &d_clock, d_metadata.get()));
        d_tx_pacing.push_back(std::make_shared<consumer_pacing>());
        d_tx.back()->set_pacing(d_tx_pacing.back().get());
        d_tx.back()->set_rate_source(d_controller->tx_read_rate(t));
        d_tx.back()->set_ctrl_sink(d_controller.get());
        tx.push_back(d_tx.back().get());
    }

    std::vector<link_info> links;
    for (const auto& l : d_links) {
        link_info link;
        const socket_address local = l->counted->local_address();
        link.ipv4 = local.ip();
        link.udp_port = local.port();
        link.udp_sport = l->counted->source_port();
        link.mtu = l->counted->mtu();
        link.stats = &l->stats;
        link.channel = l->channel.get();
        if (const auto nif = find_interface_by_ip(local.ip()))
            link.mac = nif->mac;
        links.push_back(link);
    }

    device_identity identity;
    identity.serial = config.serial;
    identity.fifo_us = config.fifo_us;
    identity.max_burst_words = static_cast<uint32_t>(config.max_burst_words);
    identity.master_clock_hz = config.master_clock_hz;
    // LOSS_INJECTION: its extension block loses, duplicates, corrupts and delays
    // messages on request, reproducibly. The radio of map 1.3, burst queue included; the
    // TX bursts of map 1.4; the links of map 1.5 (one, or more_links more) and their
    // controller.
    identity.capabilities =
        regs::cap::rx_uc | regs::cap::rx_rc | regs::cap::immediate | regs::cap::clock |
        regs::cap::metadata | regs::cap::emulator | regs::cap::loss_injection |
        regs::cap::ownership | regs::cap::rf | regs::cap::time_set |
        regs::cap::command_queue | regs::cap::burst_queue | regs::cap::multi_link |
        regs::cap::shares | regs::cap::rate_control | regs::cap::links_continue |
        regs::cap::rc_links | regs::cap::stop_cause |
        (tx_streams ? regs::cap::tx | regs::cap::tx_bursts : 0);
    if (config.capabilities_off & ~(regs::cap::rc_links | regs::cap::stop_cause))
        throw std::invalid_argument("emulator: only RC_LINKS and STOP_CAUSE can be left "
                                    "out of its capabilities");
    identity.capabilities &= ~config.capabilities_off;
    device_radio radio;
    radio.clock = &d_clock;
    radio.channels = channels;
    radio.commands = d_commands.get();
    d_registers = std::make_unique<register_file>(identity,
                                                  std::move(links),
                                                  engines,
                                                  d_metadata.get(),
                                                  std::move(radio),
                                                  std::move(tx),
                                                  d_link_set.get(),
                                                  d_controller.get());
    d_server = std::make_unique<axioe::server>(
        config.control, *d_registers, config.max_burst_words);
    // A host of this process may pace its streams (emu_pace=consumer): found by our
    // control address, whatever its args call us.
    pacing_registry::publish(d_server->address(), [this](bool tx, unsigned stream) {
        const auto& all = tx ? d_tx_pacing : d_rx_pacing;
        return stream < all.size() ? all[stream] : nullptr;
    });
}

emulator::~emulator()
{
    pacing_registry::withdraw(d_server->address());
    d_server.reset(); // no request reaches what goes below
    // An engine runs the queue's due commands, and the queue stops engines: the runs
    // end before the queue goes, the queue's thread before the engines do.
    for (auto& engine : d_rx)
        engine->stop();
    for (auto& engine : d_tx)
        engine->stop();
    d_controller.reset(); // its loop looks at the engines: it ends while they exist
    d_registers.reset();
    d_commands.reset();
}

} // namespace emu
} // namespace rdma
} // namespace gr
