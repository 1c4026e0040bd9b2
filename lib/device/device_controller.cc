/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/host_time.h"
#include "../util/log.h"
#include "device_controller.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace gr {
namespace rdma {

uint64_t random_owner_token()
{
    // random_device: the kernel's generator, not a seeded PRNG whose output another
    // host could predict from tokens it saw.
    std::random_device rd;
    uint64_t token = 0;
    while (token == 0)
        token = (uint64_t(rd()) << 32) | rd();
    return token;
}

device_controller::device_controller(const socket_address& device,
                                     const axioe::client_options& options)
    : d_address(device),
      d_client(device, options),
      d_max_burst_words(options.max_burst_words)
{
}

void device_controller::read_registers(
    regs::block b, unsigned index, uint32_t first, uint32_t end, uint32_t* words)
{
    for (const regs::burst& r :
         regs::plan_bursts(b, first, end, d_client.max_burst_words(), false))
        d_client.read_atomic(regs::address_of(b, index, r.offset),
                             words + (r.offset - first) / 4,
                             r.words);
}

void device_controller::write_registers(
    regs::block b, unsigned index, uint32_t first, uint32_t end, const uint32_t* words)
{
    for (const regs::burst& r :
         regs::plan_bursts(b, first, end, d_client.max_burst_words(), true))
        d_client.write_atomic(regs::address_of(b, index, r.offset),
                              words + (r.offset - first) / 4,
                              r.words);
}

device_info device_controller::identify()
{
    // Magic, version and the burst limit one word at a time (every device takes a
    // 1-word burst); everything after that within the limit.
    const uint32_t magic = d_client.read32(regs::id_magic);
    if (magic != regs::magic_value)
        throw std::runtime_error("device at " + d_address.to_string() +
                                 " is not a gr-rdma device (identity register reads " +
                                 std::to_string(magic) +
                                 "); check addr= in the device args");
    const uint32_t version = d_client.read32(regs::id_version);
    if ((version >> 16) != (regs::map_version >> 16))
        throw std::runtime_error(
            "device at " + d_address.to_string() + " speaks register map " +
            std::to_string(version >> 16) + "." + std::to_string(version & 0xFFFF) +
            ", this host speaks " + std::to_string(regs::map_version >> 16) +
            ".x: update the device firmware or gr-rdma");
    const uint32_t limit = d_client.read32(regs::id_max_burst_words);
    if (limit < 2 || limit > axioe::max_burst_words)
        throw std::runtime_error(
            "device at " + d_address.to_string() + " takes at most " +
            std::to_string(limit) +
            " word(s) per AXIoE burst (ID_MAX_BURST_WORDS): this host needs 2 to 256, to "
            "read a 64-bit register at one instant; check the device's firmware");
    d_client.set_max_burst_words(std::min<size_t>(limit, d_max_burst_words));

    constexpr uint32_t end = regs::scratch;
    uint32_t w[end / 4] = {};
    read_registers(regs::block::identity, 0, 0, end, w);
    device_info info;
    regs::identity_fields.unpack(w, 0, end / 4, info);
    d_capabilities = info.capabilities;
    return info;
}

link_state device_controller::read_link(unsigned link)
{
    // Up to LINK_ROCE_PORT: the counters above it are map 1.2.
    constexpr uint32_t end = regs::link::roce_port + 4;
    uint32_t w[end / 4] = {};
    read_registers(regs::block::link, link, 0, end, w);
    regs::link_values v;
    regs::link_fields.unpack(w, 0, end / 4, v);
    link_state state;
    state.roce = socket_address(v.ipv4, v.roce_port);
    state.mtu = v.mtu;
    state.mac = v.mac;
    return state;
}

rational device_controller::configure_rx(unsigned stream, const rx_setup& s)
{
    // The whole descriptor; write_registers() leaves RX_SOURCE_QPN out (read-only) and
    // splits the rest as the device's burst limit asks. It is latched at START, so a
    // descriptor written in several bursts is whole when it counts.
    constexpr uint32_t first = regs::span_of(regs::rx_descriptor_fields).first;
    constexpr uint32_t end = regs::span_of(regs::rx_descriptor_fields).second;
    uint32_t w[(end - first) / 4] = {};
    regs::rx_descriptor_fields.pack(s, first, w, (end - first) / 4);
    write_registers(regs::block::rx, stream, first, end, w);

    // The pair at one instant (one burst): the device replaced it, if it did, when DEN
    // was written.
    static_assert(regs::rx::rate_den == regs::rx::rate_num + 4);
    uint32_t rate[2] = {};
    d_client.read_atomic(regs::rx_reg(stream, regs::rx::rate_num), rate, 2);
    const rational actual{ rate[0], rate[1] };
    using u64 = uint64_t;
    if (u64(actual.num) * s.rate_den != u64(s.rate_num) * actual.den)
        make_logger("device")->warn(
            "RX stream {} of the device at {}: asked for {}/{} S/s, the device makes "
            "{}/{} S/s (its master clock's nearest rate)",
            stream,
            d_address.to_string(),
            s.rate_num,
            s.rate_den,
            actual.num,
            actual.den);
    return actual;
}

void device_controller::configure_signal(unsigned stream,
                                         const test_signal_config& signal)
{
    constexpr uint32_t first = regs::span_of(regs::signal_fields).first;
    constexpr uint32_t end = regs::span_of(regs::signal_fields).second;
    uint32_t w[(end - first) / 4] = {};
    regs::signal_fields.pack(signal, first, w, (end - first) / 4);
    write_registers(regs::block::emulator, stream, first, end, w);
    if (signal.scene_given)
        configure_scene(signal);
}

void device_controller::configure_scene(const test_signal_config& signal)
{
    // The whole scene, tones not given included (none): what the device had before
    // must not leak into this run.
    regs::scene_values v;
    v.tones = std::min(signal.scene_tones, regs::scene::max_tones);
    v.noise = signal.scene_noise;
    for (unsigned i = 0; i < regs::scene::max_tones; i++) {
        const bool used = i < v.tones;
        v.freq_mhz[i] =
            used ? static_cast<uint64_t>(std::llround(signal.scene[i].freq_hz * 1e3)) : 0;
        v.amplitude[i] = used ? signal.scene[i].amplitude : 0.0f;
    }
    constexpr uint32_t first = regs::span_of(regs::scene_fields).first;
    constexpr uint32_t end = regs::span_of(regs::scene_fields).second;
    uint32_t w[(end - first) / 4] = {};
    regs::scene_fields.pack(v, first, w, (end - first) / 4);
    write_registers(regs::block::scene, 0, first, end, w);
}

void device_controller::configure_impairments(unsigned stream,
                                              const emulated_impairments& im)
{
    if (im.faults.size() > regs::emu::max_faults)
        throw std::invalid_argument("at most " + std::to_string(regs::emu::max_faults) +
                                    " targeted faults fit the emulator's fault table");
    constexpr uint32_t first = regs::span_of(regs::impairment_fields).first;
    constexpr uint32_t end = regs::span_of(regs::impairment_fields).second;
    uint32_t w[(end - first) / 4] = {};
    regs::impairment_fields.pack(im, first, w, (end - first) / 4);
    write_registers(regs::block::emulator, stream, first, end, w);
    std::vector<uint32_t> table;
    for (const auto& [message, kind] : im.faults) {
        table.push_back(regs::low_word(message));
        table.push_back(regs::high_word(message));
        table.push_back(kind);
    }
    if (!table.empty())
        write_registers(regs::block::emulator,
                        stream,
                        regs::emu::fault_table,
                        regs::emu::fault_table + 4 * static_cast<uint32_t>(table.size()),
                        table.data());
    d_client.write32(regs::emu_reg(stream, regs::emu::fault_count),
                     static_cast<uint32_t>(im.faults.size()));
}

std::vector<injected_fault> device_controller::read_fault_log(unsigned stream)
{
    std::vector<injected_fault> out;
    // Whole records per burst: 64 (192 words), or what the device's limit allows.
    const size_t records_per_read =
        std::max<size_t>(1, std::min<size_t>(64, d_client.max_burst_words() / 3));
    uint32_t w[3 * 64];
    while (true) {
        d_client.read(
            regs::emu_reg(stream, regs::emu::fault_log), w, 3 * records_per_read, true);
        for (size_t i = 0; i < records_per_read; i++) {
            if (w[3 * i] == UINT32_MAX && w[3 * i + 1] == UINT32_MAX)
                return out;
            out.push_back({ regs::join_words(w[3 * i], w[3 * i + 1]), w[3 * i + 2] });
        }
    }
}

uint64_t device_controller::start_rx(unsigned stream)
{
    try {
        d_client.write32(regs::rx_reg(stream, regs::rx::command), regs::command::start);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error(owned_elsewhere(stream_direction::rx, stream));
        const uint32_t status = d_client.read32(regs::rx_reg(stream, regs::rx::status));
        const uint32_t code =
            (status & regs::status::error_mask) >> regs::status::error_shift;
        throw std::runtime_error("device at " + d_address.to_string() +
                                 " refused to start RX stream " + std::to_string(stream) +
                                 ": " + regs::describe_error(code));
    }
    return d_client.read64(regs::rx_reg(stream, regs::rx::start_time_lo));
}

void device_controller::stop_rx(unsigned stream)
{
    d_client.write32(regs::rx_reg(stream, regs::rx::command), regs::command::stop);
}

stream_owner device_controller::renew(unsigned stream) { return read_rx_owner(stream); }

bool device_controller::renew_nowait(unsigned stream)
{
    return d_client.post_read(regs::rx_reg(stream, regs::rx::owner));
}

rx_device_counters device_controller::read_rx_counters(unsigned stream)
{
    rx_device_counters c;
    // Status first: counters read after a "done" are final.
    c.status = d_client.read32(regs::rx_reg(stream, regs::rx::status));
    constexpr uint32_t first = regs::span_of(regs::rx_counter_fields).first;
    constexpr uint32_t end = regs::span_of(regs::rx_counter_fields).second;
    uint32_t w[(end - first) / 4] = {};
    read_registers(regs::block::rx, stream, first, end, w);
    regs::rx_counter_fields.unpack(w, first, (end - first) / 4, c);
    return c;
}

uint64_t device_controller::device_time_ns()
{
    return d_client.read64(regs::clock_time_ns_lo);
}

clock_estimate device_controller::estimate_clock(int rounds)
{
    clock_estimate best;
    uint64_t best_rtt = UINT64_MAX;
    for (int i = 0; i < rounds; i++) {
        const int64_t before = host_time_ns();
        const uint64_t device = device_time_ns();
        const int64_t after = host_time_ns();
        // A retried exchange has an ambiguous round trip: only first attempts count.
        if (d_client.last_attempts() != 1 || after < before)
            continue;
        const uint64_t rtt = static_cast<uint64_t>(after - before);
        if (rtt < best_rtt) {
            best_rtt = rtt;
            best.offset_ns =
                static_cast<int64_t>(device) - (before + (after - before) / 2);
            best.error_ns = rtt / 2 + 1000; // + the device's read granularity
        }
    }
    if (best_rtt == UINT64_MAX)
        throw std::runtime_error("could not read the clock of the device at " +
                                 d_address.to_string() +
                                 " without retries: the control link loses too much");
    return best;
}

} // namespace rdma
} // namespace gr
