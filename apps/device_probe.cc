/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "axioe/axioe_client.h"
#include "device_identity.h"
#include "device_probe.h"
#include "device_probe_links.h"
#include "probe_controller.h"
#include "probe_reads.h"
#include "regs/register_map.h"
#include <spdlog/fmt/fmt.h>
#include <chrono>
#include <ctime>
#include <memory>

namespace gr {
namespace rdma {
namespace app {

using status = axioe::status;

namespace {

std::string ipv4_string(uint32_t ip) { return socket_address(ip, 0).ip_string(); }

// MAC pairs: bits 47..32 in the _HI word, 31..0 in the _LO word.
std::string mac_string(uint32_t hi, uint32_t lo)
{
    return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                       (hi >> 8) & 0xFF,
                       hi & 0xFF,
                       lo >> 24,
                       (lo >> 16) & 0xFF,
                       (lo >> 8) & 0xFF,
                       lo & 0xFF);
}

std::string utc_string(uint64_t ns)
{
    const std::time_t s = static_cast<std::time_t>(ns / 1000000000);
    std::tm tm{};
    gmtime_r(&s, &tm);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
    return fmt::format("{}.{:09d}Z", text, ns % 1000000000);
}

uint64_t host_time_ns()
{
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
}

// The identity block; the client is replaced by one that respects the device's burst
// limit once it is known.
device_identity read_identity(std::unique_ptr<axioe::client>& c, const socket_address& at)
{
    std::array<uint32_t, identity_words> w{};
    status s = try_read(*c, regs::id_magic, w.data(), w.size());
    if (s == status::bad_request) {
        // A device that takes shorter bursts (docs/axioe.md §5) still answers one word.
        const uint32_t limit = c->read32(regs::id_max_burst_words);
        if (limit >= 1 && limit < axioe::max_burst_words) {
            axioe::client_options o;
            o.max_burst_words = limit;
            c = std::make_unique<axioe::client>(at, o);
            s = try_read(*c, regs::id_magic, w.data(), w.size());
        }
    }
    if (s != status::okay)
        throw probe_error(fmt::format("device at {} answered the identity READ with {}",
                                      at.to_string(),
                                      refusal(s)));
    const device_identity id = decode_identity(w);
    if (!id.is_gr_rdma())
        throw probe_error(fmt::format("{} answers AXIoE, but is not a gr-rdma device "
                                      "(ID_MAGIC reads {:#010x}, not {:#010x} \"GRDM\")",
                                      at.to_string(),
                                      id.magic,
                                      regs::magic_value));
    // Bursts within the device's limit, rounded down to whole 64-bit pairs so that no
    // counter is read in two halves at two instants.
    uint32_t limit = id.max_burst_words;
    if (limit >= 2)
        limit &= ~1u;
    if (limit >= 1 && limit < axioe::max_burst_words) {
        axioe::client_options o;
        o.max_burst_words = limit;
        c = std::make_unique<axioe::client>(at, o);
    }
    return id;
}

void add_identity(report_node& device, const device_identity& id)
{
    report_node& n = device.child("Identity");
    const std::string magic_text = word_as_text(id.magic);
    n.add_raw("magic",
              fmt::format("{:#010x} ({})", id.magic, magic_text),
              json_string(fmt::format("{:#010x}", id.magic)));
    n.add("map version", map_version_string(id.version));
    n.add_hex("serial", id.serial);
    n.add_list("capabilities", capability_names(id.capabilities));
    n.add_hex("capability bits", id.capabilities);
    n.add("links", uint64_t(id.num_links));
    n.add("rx streams", uint64_t(id.num_rx_streams));
    n.add("tx streams", uint64_t(id.num_tx_streams));
    n.add("max payload", uint64_t(id.max_payload), "bytes");
    n.add_list("formats", format_names(id.formats));
    n.add("max burst words", uint64_t(id.max_burst_words));
}

void add_clock(report_node& device, axioe::client& c)
{
    report_node& n = device.child("Clock");
    const uint64_t before = host_time_ns();
    uint32_t w[2] = {};
    const status s = try_read(c, regs::clock_time_ns_lo, w, 2);
    const uint64_t after = host_time_ns();
    if (s != status::okay) {
        refused(n, s);
        return;
    }
    const uint64_t t = regs::join_words(w[0], w[1]);
    // Against the host's clock at the middle of the round trip: good to half of it.
    const int64_t offset = static_cast<int64_t>(t - (before + (after - before) / 2));
    n.add_raw("device time",
              fmt::format("{} ns ({})", t, utc_string(t)),
              std::to_string(t),
              "device_time_ns");
    n.add_raw(
        "offset from this host",
        fmt::format("{:+.6f} s (within {:.6f} s)", offset / 1e9, (after - before) / 2e9),
        std::to_string(offset),
        "offset_ns");
    n.add_json("offset_error_ns", std::to_string((after - before) / 2));
}

void add_links(report_node& device, axioe::client& c, const device_identity& id)
{
    report_node& links = device.child("Links", true);
    const uint32_t count = std::min(id.num_links, max_links);
    if (count < id.num_links)
        device.add_text("note",
                        fmt::format("the device reports {} links; the register map has "
                                    "room for {}: showing those",
                                    id.num_links,
                                    max_links));
    for (uint32_t l = 0; l < count; l++) {
        report_node& n = links.child(fmt::format("Link {}", l));
        n.add_json("index", std::to_string(l));
        uint32_t w[regs::link::roce_port / 4 + 1] = {};
        const status s = try_read(c, regs::link_reg(l, 0), w, std::size(w));
        if (s != status::okay) {
            refused(n, s);
            continue;
        }
        n.add("address", ipv4_string(w[regs::link::ipv4 / 4]));
        n.add("MAC", mac_string(w[regs::link::mac_hi / 4], w[regs::link::mac_lo / 4]));
        n.add("RoCE port", uint64_t(w[regs::link::roce_port / 4]));
        n.add("UDP source port", uint64_t(w[regs::link::udp_sport / 4]));
        n.add("MTU", uint64_t(w[regs::link::mtu / 4]), "bytes");
        n.add_raw("status",
                  (w[regs::link::status / 4] & 1) ? "up" : "down",
                  json_string((w[regs::link::status / 4] & 1) ? "up" : "down"));
        n.add("weight", uint64_t(w[regs::link::weight / 4]));
        add_link_traffic(n, c, l, id.has(regs::cap::multi_link));
    }
}

void add_status(report_node& n, uint32_t word)
{
    const uint32_t code = (word & regs::status::error_mask) >> regs::status::error_shift;
    std::string text = (word & regs::status::running) ? "running"
                       : (word & regs::status::done)  ? "done (finite burst sent)"
                                                      : "idle";
    if (word & regs::status::error)
        text += fmt::format(
            "; last START refused: {} ({})", regs::describe_error(code), code);
    n.add_raw("status", text, json_string(text));
    n.add_hex("status word", word);
    n.add_json("running", (word & regs::status::running) ? "true" : "false");
    n.add_json("error_code", std::to_string(code));
}

void add_owner(report_node& n, axioe::client& c, unsigned s)
{
    uint32_t w[2] = {};
    const status st = try_read(c, regs::rx_reg(s, regs::rx::owner), w, 2);
    if (st != status::okay) {
        n.add("owner", "unknown: " + refusal(st));
        return;
    }
    const std::string owner = w[0] == regs::owner_state::unowned ? "free"
                              : w[0] == regs::owner_state::other ? "owned by another host"
                              : w[0] == regs::owner_state::mine
                                  ? "owned by this probe's address (a host there owns it)"
                                  : fmt::format("unknown (RX_OWNER reads {})", w[0]);
    n.add("owner", owner);
    n.add("lease", uint64_t(w[1]), "ms");
}

const char* transport_name(uint32_t t)
{
    switch (t) {
    case regs::transport_type::uc:
        return "UC";
    case regs::transport_type::rc:
        return "RC";
    case regs::transport_type::udp:
        return "UDP";
    default:
        return "unknown";
    }
}

const char* format_name(uint32_t f)
{
    switch (f) {
    case regs::format::sc16:
        return "sc16";
    case regs::format::fc32:
        return "fc32";
    default:
        return "unknown";
    }
}

void add_descriptor(report_node& stream, axioe::client& c, unsigned s)
{
    report_node& n = stream.child("Descriptor");
    constexpr uint32_t first = regs::rx::dest_ipv4, last = regs::rx::dest_mac_lo;
    uint32_t w[(last - first) / 4 + 1] = {};
    const status st = try_read(c, regs::rx_reg(s, first), w, std::size(w));
    if (st != status::okay) {
        refused(n, st);
        return;
    }
    auto reg = [&w](uint32_t offset) { return w[(offset - first) / 4]; };
    auto reg64 = [&reg](uint32_t lo) { return regs::join_words(reg(lo), reg(lo + 4)); };
    n.add("destination",
          fmt::format("{}:{}",
                      ipv4_string(reg(regs::rx::dest_ipv4)),
                      reg(regs::rx::dest_udp_port)));
    n.add_hex("destination QPN", reg(regs::rx::dest_qpn));
    n.add_hex("start PSN", reg(regs::rx::start_psn));
    n.add_hex("rkey", reg(regs::rx::rkey));
    n.add_hex("VA", reg64(regs::rx::va_lo));
    n.add("ring", reg64(regs::rx::ring_bytes_lo), "bytes");
    n.add("payload", uint64_t(reg(regs::rx::payload_bytes)), "bytes");
    n.add("path MTU", uint64_t(reg(regs::rx::path_mtu)), "bytes");
    n.add("notify interval", uint64_t(reg(regs::rx::notify_interval)), "messages");
    const uint32_t num = reg(regs::rx::rate_num), den = reg(regs::rx::rate_den);
    n.add_raw("rate",
              den ? fmt::format("{}/{} S/s ({:g} S/s)", num, den, double(num) / den)
                  : fmt::format("{}/0 (not set)", num),
              fmt::format("{{\"num\":{},\"den\":{}}}", num, den));
    n.add("format", format_name(reg(regs::rx::format)));
    n.add_hex("link mask", reg(regs::rx::link_mask));
    n.add("transport", transport_name(reg(regs::rx::transport)));
    const uint64_t start = reg64(regs::rx::start_time_lo);
    n.add_raw("start time",
              start ? fmt::format("{} ns ({})", start, utc_string(start))
                    : std::string("0 (at START)"),
              std::to_string(start),
              "start_time_ns");
    const uint64_t samples = reg64(regs::rx::num_samples_lo);
    n.add_raw("samples",
              samples ? std::to_string(samples) : std::string("0 (continuous)"),
              std::to_string(samples));
    n.add("retransmit window", uint64_t(reg(regs::rx::retx_window_bytes)), "bytes");
    n.add("destination MAC",
          mac_string(reg(regs::rx::dest_mac_hi), reg(regs::rx::dest_mac_lo)));
}

void add_counters(report_node& stream, axioe::client& c, unsigned s)
{
    report_node& n = stream.child("Counters");
    constexpr uint32_t first = regs::rx::packets_sent_lo,
                       last = regs::rx::messages_delayed_hi;
    uint32_t w[(last - first) / 4 + 1] = {};
    const status st = try_read(c, regs::rx_reg(s, first), w, std::size(w));
    if (st != status::okay) {
        refused(n, st);
        return;
    }
    auto at = [&w](uint32_t offset) { return w[(offset - first) / 4]; };
    auto pair = [&at](uint32_t lo) { return regs::join_words(at(lo), at(lo + 4)); };
    n.add("packets sent", pair(regs::rx::packets_sent_lo));
    n.add("samples emitted", pair(regs::rx::samples_emitted_lo));
    n.add("packets dropped", pair(regs::rx::packets_dropped_lo));
    n.add("samples dropped", pair(regs::rx::samples_dropped_lo));
    n.add("immediates sent", pair(regs::rx::imm_sent_lo));
    n.add("NAKs received", uint64_t(at(regs::rx::naks_received)));
    n.add("retransmits", uint64_t(at(regs::rx::retransmits)));
    n.add("zero substituted", pair(regs::rx::zero_substituted_lo));
    n.add("packets faulted", pair(regs::rx::packets_faulted_lo));
    n.add("samples faulted", pair(regs::rx::samples_faulted_lo));
    n.add("packets duplicated", pair(regs::rx::packets_duplicated_lo));
    n.add("messages delayed", pair(regs::rx::messages_delayed_lo));
}

void add_rx_streams(report_node& device, axioe::client& c, const device_identity& id)
{
    report_node& streams = device.child("RX streams", true);
    const uint32_t count = std::min(id.num_rx_streams, max_rx_streams);
    if (count < id.num_rx_streams)
        device.add_text("note",
                        fmt::format("the device reports {} RX streams; the register map "
                                    "has room for {}: showing those",
                                    id.num_rx_streams,
                                    max_rx_streams));
    for (uint32_t s = 0; s < count; s++) {
        report_node& n = streams.child(fmt::format("RX stream {}", s));
        n.add_json("index", std::to_string(s));
        uint32_t word = 0;
        const status st = try_read(c, regs::rx_reg(s, regs::rx::status), &word, 1);
        if (st != status::okay) {
            refused(n, st);
            continue;
        }
        add_status(n, word);
        const bool running = word & regs::status::running;
        if (id.has(regs::cap::ownership))
            add_owner(n, c, s);
        else
            n.add("owner", "none (no OWNERSHIP capability: any host may configure it)");
        // Both readable by anyone, owned or not (docs/register-map.md, "Ownership").
        if (try_read(c, regs::rx_reg(s, regs::rx::source_qpn), &word, 1) == status::okay)
            n.add_hex("source QPN", word);
        if (try_read(c, regs::rx_reg(s, regs::rx::fifo_us), &word, 1) == status::okay)
            n.add("FIFO", uint64_t(word), "us");
        add_descriptor(n, c, s);
        add_counters(n, c, s);
        if (id.has(regs::cap::multi_link))
            add_stream_links(n, c, s, running);
        if (id.has(regs::cap::shares))
            add_stream_shares(n, c, s);
    }
}

void add_metadata(report_node& device, axioe::client& c, const device_identity& id)
{
    report_node& n = device.child("Metadata");
    if (!id.has(regs::cap::metadata)) {
        refused(n, status::decerr);
        return;
    }
    constexpr uint32_t first = regs::metadata::dest_ipv4,
                       last = regs::metadata::packets_dropped_hi;
    uint32_t w[(last - first) / 4 + 1] = {};
    const status st = try_read(c, regs::metadata_reg(first), w, std::size(w));
    if (st != status::okay) {
        refused(n, st);
        return;
    }
    auto at = [&w](uint32_t offset) { return w[(offset - first) / 4]; };
    const uint32_t ip = at(regs::metadata::dest_ipv4),
                   port = at(regs::metadata::dest_udp_port);
    n.add_raw("destination",
              ip && port ? fmt::format("{}:{}", ipv4_string(ip), port)
                         : std::string("none"),
              json_string(fmt::format("{}:{}", ipv4_string(ip), port)));
    const uint32_t interval = at(regs::metadata::interval_us);
    n.add_raw("interval",
              interval ? fmt::format("{} us", interval)
                       : std::string("0 (no periodic timestamps)"),
              std::to_string(interval),
              "interval_us");
    n.add_bool("enabled",
               at(regs::metadata::control) & regs::metadata::control_bits::enable);
    n.add("records sent",
          regs::join_words(at(regs::metadata::packets_sent_lo),
                           at(regs::metadata::packets_sent_hi)));
    n.add("records dropped",
          regs::join_words(at(regs::metadata::packets_dropped_lo),
                           at(regs::metadata::packets_dropped_hi)));
    // Map 1.1 added it late: a device without it still has the rest of the block.
    uint32_t port_word = 0;
    const status ps =
        try_read(c, regs::metadata_reg(regs::metadata::source_udp_port), &port_word, 1);
    if (ps == status::okay)
        n.add("source port", uint64_t(port_word));
    else
        n.add("source port", "not reported: " + refusal(ps));
}

// A frequency in mHz as Hz, to the mHz: text with its unit, JSON a number.
void add_hz(report_node& n,
            const std::string& label,
            uint64_t mhz,
            const std::string& key)
{
    const std::string hz =
        fmt::format("{}.{:03d}", mhz / 1000, static_cast<int>(mhz % 1000));
    n.add_raw(label, hz + " Hz", hz, key);
}

// A gain in milli-dB as dB.
void add_db(report_node& n, const std::string& label, int32_t mdb, const std::string& key)
{
    const std::string db = fmt::format("{:.3f}", mdb / 1e3);
    n.add_raw(label, db + " dB", db, key);
}

// The RF front end of each channel (docs/radio.md): settings and ranges, as
// uhd_usrp_probe shows its frontends.
void add_rf(report_node& device, axioe::client& c, const device_identity& id)
{
    report_node& n = device.child("RF");
    n.add_json("reported", id.has(regs::cap::rf) ? "true" : "false");
    if (!id.has(regs::cap::rf)) {
        n.set_summary("not reported by this device");
        return;
    }
    uint32_t channels = 0;
    const status st = try_read(c, regs::id_num_rf_channels, &channels, 1);
    if (st != status::okay) {
        refused(n, st);
        return;
    }
    // JSON: the count is the length of "channels", the list (a second "channels" key
    // would make the object's keys ambiguous).
    n.add_text("channels", std::to_string(channels));
    report_node& list = n.child("Channels", true);
    for (uint32_t ch = 0; ch < std::min<uint32_t>(channels, 16); ch++) {
        report_node& f = list.child(fmt::format("Channel {}", ch));
        f.add_json("index", std::to_string(ch));
        uint32_t w[regs::rf::block_words] = {};
        const status s = try_read(c, regs::rf_reg(ch, 0), w, std::size(w));
        if (s != status::okay) {
            refused(f, s);
            continue;
        }
        auto wide = [&w](uint32_t offset) {
            return regs::join_words(w[offset / 4], w[offset / 4 + 1]);
        };
        auto word = [&w](uint32_t offset) { return w[offset / 4]; };
        add_hz(f, "center frequency", wide(regs::rf::freq_lo), "freq_hz");
        f.add("in effect since", wide(regs::rf::freq_time_lo), "ns");
        add_hz(f, "lowest frequency", wide(regs::rf::freq_min_lo), "freq_min_hz");
        add_hz(f, "highest frequency", wide(regs::rf::freq_max_lo), "freq_max_hz");
        add_hz(f, "tuning step", word(regs::rf::freq_step), "freq_step_hz");
        add_db(f, "gain", static_cast<int32_t>(word(regs::rf::gain)), "gain_db");
        add_db(f,
               "lowest gain",
               static_cast<int32_t>(word(regs::rf::gain_min)),
               "gain_min_db");
        add_db(f,
               "highest gain",
               static_cast<int32_t>(word(regs::rf::gain_max)),
               "gain_max_db");
        add_db(f,
               "gain step",
               static_cast<int32_t>(word(regs::rf::gain_step)),
               "gain_step_db");
        f.add("bandwidth", word(regs::rf::bandwidth), "Hz");
        f.add("narrowest bandwidth", word(regs::rf::bandwidth_min), "Hz");
        f.add("widest bandwidth", word(regs::rf::bandwidth_max), "Hz");
        std::vector<std::string> antennas;
        for (uint32_t i = 0; i < std::min<uint32_t>(word(regs::rf::antennas), 64); i++)
            antennas.push_back("ANT" + std::to_string(i));
        f.add("antenna", "ANT" + std::to_string(word(regs::rf::antenna)));
        f.add_list("antennas", antennas);
        f.add_bool("LO locked", word(regs::rf::status) & 1);
    }
}

} // namespace

report_node probe_device(const socket_address& at)
{
    auto c = std::make_unique<axioe::client>(at);
    try {
        const device_identity id = read_identity(c, at);
        report_node device(fmt::format("gr-rdma {} at {}", id.type(), at.to_string()));
        device.add("type", id.type());
        device.add("addr", at.to_string());
        add_identity(device, id);
        if (!id.same_major()) {
            device.add_text("note",
                            fmt::format("map version {}: this probe reads {}.x; beyond "
                                        "the identity its registers may differ",
                                        map_version_string(id.version),
                                        regs::map_version >> 16));
            return device;
        }
        add_clock(device, *c);
        add_links(device, *c, id);
        add_rx_streams(device, *c, id);
        add_controller(device, *c, id);
        add_metadata(device, *c, id);
        add_rf(device, *c, id);
        return device;
    } catch (const axioe::timeout_error& e) {
        throw probe_error(e.what());
    }
}

} // namespace app
} // namespace rdma
} // namespace gr
