/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_identity.h"
#include <spdlog/fmt/fmt.h>

namespace gr {
namespace rdma {
namespace app {

namespace {

struct named_bit {
    uint32_t mask;
    const char* name;
};

// Names as docs/register-map.md spells them. A new capability needs one line here.
constexpr named_bit capability_table[] = {
    { regs::cap::rx_uc, "RX_UC" },
    { regs::cap::rx_rc, "RX_RC" },
    { regs::cap::tx, "TX" },
    { regs::cap::immediate, "IMMEDIATE" },
    { regs::cap::clock, "CLOCK" },
    { regs::cap::metadata, "METADATA" },
    { regs::cap::emulator, "EMULATOR" },
    { regs::cap::loss_injection, "LOSS_INJECTION" },
    { regs::cap::ownership, "OWNERSHIP" },
    { regs::cap::rf, "RF" },
    { regs::cap::time_set, "TIME_SET" },
    { regs::cap::command_queue, "COMMAND_QUEUE" },
    { regs::cap::burst_queue, "BURST_QUEUE" },
    { regs::cap::tx_bursts, "TX_BURSTS" },
    { regs::cap::multi_link, "MULTI_LINK" },
    { regs::cap::shares, "SHARES" },
    { regs::cap::rate_control, "RATE_CONTROL" },
    { regs::cap::links_continue, "LINKS_CONTINUE" },
    { regs::cap::rc_links, "RC_LINKS" },
    { regs::cap::stop_cause, "STOP_CAUSE" },
};

constexpr named_bit format_table[] = {
    { 1u << regs::format::sc16, "sc16" },
    { 1u << regs::format::fc32, "fc32" },
    { 1u << regs::format::sc8, "sc8" },
};

template <size_t N>
std::vector<std::string> bit_names(uint32_t bits, const named_bit (&table)[N])
{
    std::vector<std::string> names;
    uint32_t known = 0;
    for (const auto& b : table) {
        known |= b.mask;
        if (bits & b.mask)
            names.push_back(b.name);
    }
    for (unsigned bit = 0; bit < 32; bit++)
        if ((bits & ~known) & (1u << bit))
            names.push_back(fmt::format("bit{}", bit));
    return names;
}

} // namespace

const char* device_identity::type() const
{
    return has(regs::cap::emulator) ? "emulator" : "device";
}

device_identity decode_identity(const std::array<uint32_t, identity_words>& w)
{
    device_identity id;
    id.magic = w[regs::id_magic / 4];
    id.version = w[regs::id_version / 4];
    id.capabilities = w[regs::id_capabilities / 4];
    id.num_links = w[regs::id_num_links / 4];
    id.num_rx_streams = w[regs::id_num_rx_streams / 4];
    id.num_tx_streams = w[regs::id_num_tx_streams / 4];
    id.max_payload = w[regs::id_max_payload / 4];
    id.formats = w[regs::id_formats / 4];
    id.serial = regs::join_words(w[regs::id_serial_lo / 4], w[regs::id_serial_hi / 4]);
    id.max_burst_words = w[regs::id_max_burst_words / 4];
    return id;
}

std::string map_version_string(uint32_t version)
{
    return fmt::format("{}.{}", version >> 16, version & 0xFFFF);
}

std::vector<std::string> capability_names(uint32_t capabilities)
{
    return bit_names(capabilities, capability_table);
}

std::vector<std::string> format_names(uint32_t formats)
{
    return bit_names(formats, format_table);
}

std::string word_as_text(uint32_t word)
{
    std::string text;
    for (int shift = 24; shift >= 0; shift -= 8) {
        const char c = static_cast<char>(word >> shift);
        if (c < 0x20 || c > 0x7E)
            return "";
        text += c;
    }
    return text;
}

} // namespace app
} // namespace rdma
} // namespace gr
