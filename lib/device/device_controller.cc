/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_controller.h"
#include "../util/host_time.h"
#include <cstdio>
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
    : d_address(device), d_client(device, options)
{
}

device_info device_controller::identify()
{
    uint32_t w[10];
    d_client.read(regs::id_magic, w, 10);
    if (w[0] != regs::magic_value)
        throw std::runtime_error("device at " + d_address.to_string() +
                                 " is not a gr-rdma device (identity register reads " +
                                 std::to_string(w[0]) +
                                 "); check addr= in the device args");
    if ((w[1] >> 16) != (regs::map_version >> 16))
        throw std::runtime_error(
            "device at " + d_address.to_string() + " speaks register map " +
            std::to_string(w[1] >> 16) + "." + std::to_string(w[1] & 0xFFFF) +
            ", this host speaks " + std::to_string(regs::map_version >> 16) +
            ".x: update the device firmware or gr-rdma");
    device_info info;
    info.version = w[1];
    info.capabilities = w[2];
    info.num_links = w[3];
    info.num_rx_streams = w[4];
    info.max_payload = w[6];
    info.formats = w[7];
    info.serial = regs::join_words(w[8], w[9]);
    return info;
}

link_state device_controller::read_link(unsigned link)
{
    uint32_t w[8];
    d_client.read(regs::link_reg(link, 0), w, 8);
    link_state state;
    state.roce = socket_address(w[regs::link::ipv4 / 4],
                                static_cast<uint16_t>(w[regs::link::roce_port / 4]));
    state.mtu = w[regs::link::mtu / 4];
    const uint32_t mac_hi = w[regs::link::mac_hi / 4], mac_lo = w[regs::link::mac_lo / 4];
    state.mac = { uint8_t(mac_hi >> 8),  uint8_t(mac_hi),      uint8_t(mac_lo >> 24),
                  uint8_t(mac_lo >> 16), uint8_t(mac_lo >> 8), uint8_t(mac_lo) };
    return state;
}

void device_controller::configure_rx(unsigned stream, const rx_setup& s)
{
    // Registers dest_ipv4 .. retx_window_bytes are contiguous but for the read-only
    // source_qpn: two bursts program them all.
    constexpr uint32_t first = regs::rx::dest_ipv4;
    constexpr size_t count = (regs::rx::retx_window_bytes - first) / 4 + 1;
    uint32_t w[count] = {};
    auto set = [&w](uint32_t reg, uint32_t value) { w[(reg - first) / 4] = value; };
    set(regs::rx::dest_ipv4, s.destination.ip());
    set(regs::rx::dest_udp_port, s.destination.port());
    set(regs::rx::dest_qpn, s.dest_qpn);
    set(regs::rx::start_psn, s.start_psn);
    set(regs::rx::rkey, s.rkey);
    set(regs::rx::va_lo, regs::low_word(s.va));
    set(regs::rx::va_hi, regs::high_word(s.va));
    set(regs::rx::ring_bytes_lo, regs::low_word(s.ring_bytes));
    set(regs::rx::ring_bytes_hi, regs::high_word(s.ring_bytes));
    set(regs::rx::payload_bytes, s.payload_bytes);
    set(regs::rx::path_mtu, s.path_mtu);
    set(regs::rx::notify_interval, s.notify_interval);
    set(regs::rx::rate_num, s.rate_num);
    set(regs::rx::rate_den, s.rate_den);
    set(regs::rx::format, static_cast<uint32_t>(s.format));
    set(regs::rx::link_mask, 1);
    set(regs::rx::transport, s.transport);
    set(regs::rx::start_time_lo, regs::low_word(s.start_time_ns));
    set(regs::rx::start_time_hi, regs::high_word(s.start_time_ns));
    set(regs::rx::num_samples_lo, regs::low_word(s.num_samples));
    set(regs::rx::num_samples_hi, regs::high_word(s.num_samples));
    set(regs::rx::retx_window_bytes, s.retx_window_bytes);
    const size_t before = (regs::rx::source_qpn - first) / 4;
    d_client.write(regs::rx_reg(stream, first), w, before);
    d_client.write(regs::rx_reg(stream, regs::rx::start_time_lo),
                   w + before + 1,
                   count - before - 1);
}

void device_controller::configure_signal(unsigned stream, const test_signal_config& signal)
{
    const auto freq = static_cast<int32_t>(signal.freq_hz);
    uint32_t w[4] = {
        static_cast<uint32_t>(signal.kind), static_cast<uint32_t>(freq), 0, signal.seed
    };
    std::memcpy(&w[2], &signal.amplitude, 4);
    d_client.write(regs::emu_reg(stream, regs::emu::signal), w, 4);
}

void device_controller::configure_impairments(unsigned stream,
                                              const emulated_impairments& im)
{
    if (im.faults.size() > regs::emu::max_faults)
        throw std::invalid_argument("at most " + std::to_string(regs::emu::max_faults) +
                                    " targeted faults fit the emulator's fault table");
    const uint32_t random[] = { im.seed,          im.loss_ppm,    im.loss_burst,
                                im.duplicate_ppm, im.corrupt_ppm, im.delay_ppm,
                                im.delay_messages };
    d_client.write(regs::emu_reg(stream, regs::emu::fault_seed), random, 7);
    std::vector<uint32_t> table;
    for (const auto& [message, kind] : im.faults) {
        table.push_back(regs::low_word(message));
        table.push_back(regs::high_word(message));
        table.push_back(kind);
    }
    if (!table.empty())
        d_client.write(
            regs::emu_reg(stream, regs::emu::fault_table), table.data(), table.size());
    d_client.write32(regs::emu_reg(stream, regs::emu::fault_count),
                     static_cast<uint32_t>(im.faults.size()));
}

std::vector<injected_fault> device_controller::read_fault_log(unsigned stream)
{
    std::vector<injected_fault> out;
    constexpr size_t records_per_read = 64; // 192 words: within one AXIoE burst
    while (true) {
        uint32_t w[3 * records_per_read];
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
            throw stream_owned_error(owned_elsewhere(stream));
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

void device_controller::claim_rx(unsigned stream,
                                 uint64_t token,
                                 uint32_t lease_ms,
                                 bool take_over)
{
    if (token == 0)
        throw std::invalid_argument("an RX stream claim token must not be 0");
    if (lease_ms < regs::lease::min_ms || lease_ms > regs::lease::max_ms)
        throw std::invalid_argument("lease of " + std::to_string(lease_ms) +
                                    " ms is invalid: expected " +
                                    std::to_string(regs::lease::min_ms) + " .. " +
                                    std::to_string(regs::lease::max_ms) + " ms");
    // One burst: the device takes the token, and the take-over, at one instant.
    const uint32_t w[3] = { regs::low_word(token),
                            regs::high_word(token),
                            regs::owner_command::take_over };
    try {
        d_client.write(
            regs::rx_reg(stream, regs::rx::owner_token_lo), w, take_over ? 3 : 2);
    } catch (const axioe::error& e) {
        if (e.code() == axioe::status::not_owner)
            throw stream_owned_error(owned_elsewhere(stream));
        throw;
    }
    d_client.write32(regs::rx_reg(stream, regs::rx::lease_ms), lease_ms);
}

void device_controller::release_rx(unsigned stream)
{
    d_client.write32(regs::rx_reg(stream, regs::rx::owner), regs::owner_command::release);
}

rx_owner device_controller::read_rx_owner(unsigned stream)
{
    switch (d_client.read32(regs::rx_reg(stream, regs::rx::owner))) {
    case regs::owner_state::mine:
        return rx_owner::this_host;
    case regs::owner_state::other:
        return rx_owner::another_host;
    default:
        return rx_owner::none;
    }
}

rx_owner device_controller::renew(unsigned stream) { return read_rx_owner(stream); }

bool device_controller::renew_nowait(unsigned stream)
{
    return d_client.post_read(regs::rx_reg(stream, regs::rx::owner));
}

std::string device_controller::owned_elsewhere(unsigned stream)
{
    std::string lease;
    try {
        char text[32];
        std::snprintf(text,
                      sizeof(text),
                      "%g s",
                      d_client.read32(regs::rx_reg(stream, regs::rx::lease_ms)) / 1000.0);
        lease = std::string(" (") + text + ")";
    } catch (const std::exception&) {
        // The message is still right without the figure.
    }
    return "device at " + d_address.to_string() + ": RX stream " +
           std::to_string(stream) + " is owned by another host; wait for its lease" +
           lease + " to lapse or add take_over=1";
}

rx_device_counters device_controller::read_rx_counters(unsigned stream)
{
    constexpr uint32_t first = regs::rx::packets_sent_lo;
    constexpr size_t count = (regs::rx::messages_delayed_hi - first) / 4 + 1;
    rx_device_counters c;
    // Status first: counters read after a "done" are final.
    c.status = d_client.read32(regs::rx_reg(stream, regs::rx::status));
    uint32_t w[count];
    d_client.read(regs::rx_reg(stream, first), w, count);
    auto at64 = [&w](uint32_t reg) {
        return regs::join_words(w[(reg - first) / 4], w[(reg - first) / 4 + 1]);
    };
    c.packets_sent = at64(regs::rx::packets_sent_lo);
    c.samples_emitted = at64(regs::rx::samples_emitted_lo);
    c.packets_dropped = at64(regs::rx::packets_dropped_lo);
    c.samples_dropped = at64(regs::rx::samples_dropped_lo);
    c.imm_sent = at64(regs::rx::imm_sent_lo);
    c.packets_faulted = at64(regs::rx::packets_faulted_lo);
    c.samples_faulted = at64(regs::rx::samples_faulted_lo);
    c.packets_duplicated = at64(regs::rx::packets_duplicated_lo);
    c.messages_delayed = at64(regs::rx::messages_delayed_lo);
    c.naks_received = w[(regs::rx::naks_received - first) / 4];
    c.retransmits = w[(regs::rx::retransmits - first) / 4];
    c.zero_substituted = at64(regs::rx::zero_substituted_lo);
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
