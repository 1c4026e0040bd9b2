/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "register_table.h"
#include <string>

namespace gr {
namespace rdma {
namespace regs {

namespace {

// register_map.h's constants are what most code uses: each must be its table row's
// address (a 64-bit value's _lo at the row, _hi one word above). A mismatch does not
// build.
constexpr bool at(const char* name, uint32_t offset)
{
    return named(name).offset == offset;
}
constexpr bool at64(const char* name, uint32_t lo, uint32_t hi)
{
    return named(name).bits == 64 && named(name).offset == lo && lo + 4 == hi;
}

static_assert(at("ID_MAGIC", id_magic) && at("ID_VERSION", id_version));
static_assert(at("ID_CAPABILITIES", id_capabilities) && at("ID_NUM_LINKS", id_num_links));
static_assert(at("ID_NUM_RX_STREAMS", id_num_rx_streams));
static_assert(at("ID_NUM_TX_STREAMS", id_num_tx_streams));
static_assert(at("ID_MAX_PAYLOAD", id_max_payload) && at("ID_FORMATS", id_formats));
static_assert(at64("ID_SERIAL", id_serial_lo, id_serial_hi));
static_assert(at("ID_MAX_BURST_WORDS", id_max_burst_words) && at("SCRATCH", scratch));
static_assert(named("CLOCK_TIME_NS").bits == 64 &&
              address_of(block::clock, 0, named("CLOCK_TIME_NS").offset) ==
                  clock_time_ns_lo &&
              clock_time_ns_hi == clock_time_ns_lo + 4);

static_assert(layout_of(block::link).base == link_base);
static_assert(at("LINK_IPV4", link::ipv4) && at("LINK_MAC_HI", link::mac_hi));
static_assert(at("LINK_MAC_LO", link::mac_lo) && at("LINK_UDP_SPORT", link::udp_sport));
static_assert(at("LINK_MTU", link::mtu) && at("LINK_STATUS", link::status));
static_assert(at("LINK_WEIGHT", link::weight) && at("LINK_ROCE_PORT", link::roce_port));
static_assert(at64("LINK_TX_PACKETS", link::tx_packets_lo, link::tx_packets_hi));
static_assert(at64("LINK_TX_BYTES", link::tx_bytes_lo, link::tx_bytes_hi));
static_assert(at64("LINK_RX_PACKETS", link::rx_packets_lo, link::rx_packets_hi));

static_assert(layout_of(block::rx).base == rx_base);
static_assert(at("RX_COMMAND", rx::command) && at("RX_STATUS", rx::status));
static_assert(at("RX_DEST_IPV4", rx::dest_ipv4) &&
              at("RX_DEST_UDP_PORT", rx::dest_udp_port));
static_assert(at("RX_DEST_QPN", rx::dest_qpn) && at("RX_START_PSN", rx::start_psn));
static_assert(at("RX_RKEY", rx::rkey) && at64("RX_VA", rx::va_lo, rx::va_hi));
static_assert(at64("RX_RING_BYTES", rx::ring_bytes_lo, rx::ring_bytes_hi));
static_assert(at("RX_PAYLOAD_BYTES", rx::payload_bytes) &&
              at("RX_PATH_MTU", rx::path_mtu));
static_assert(at("RX_NOTIFY_INTERVAL", rx::notify_interval));
static_assert(at("RX_RATE_NUM", rx::rate_num) && at("RX_RATE_DEN", rx::rate_den));
static_assert(at("RX_FORMAT", rx::format) && at("RX_LINK_MASK", rx::link_mask));
static_assert(at("RX_TRANSPORT", rx::transport) && at("RX_SOURCE_QPN", rx::source_qpn));
static_assert(at64("RX_START_TIME", rx::start_time_lo, rx::start_time_hi));
static_assert(at64("RX_NUM_SAMPLES", rx::num_samples_lo, rx::num_samples_hi));
static_assert(at("RX_RETX_WINDOW_BYTES", rx::retx_window_bytes));
static_assert(at("RX_DEST_MAC_HI", rx::dest_mac_hi) &&
              at("RX_DEST_MAC_LO", rx::dest_mac_lo));
static_assert(at("RX_FIFO_US", rx::fifo_us));
static_assert(at64("RX_OWNER_TOKEN", rx::owner_token_lo, rx::owner_token_hi));
static_assert(at("RX_OWNER", rx::owner) && at("RX_LEASE_MS", rx::lease_ms));
static_assert(named("RX_LEASE_MS").reset_value == lease::default_ms);
static_assert(at64("RX_PACKETS_SENT", rx::packets_sent_lo, rx::packets_sent_hi));
static_assert(at64("RX_SAMPLES_EMITTED", rx::samples_emitted_lo, rx::samples_emitted_hi));
static_assert(at64("RX_PACKETS_DROPPED", rx::packets_dropped_lo, rx::packets_dropped_hi));
static_assert(at64("RX_SAMPLES_DROPPED", rx::samples_dropped_lo, rx::samples_dropped_hi));
static_assert(at64("RX_IMM_SENT", rx::imm_sent_lo, rx::imm_sent_hi));
static_assert(at("RX_NAKS_RECEIVED", rx::naks_received) &&
              at("RX_RETRANSMITS", rx::retransmits));
static_assert(at64("RX_ZERO_SUBSTITUTED",
                   rx::zero_substituted_lo,
                   rx::zero_substituted_hi));
static_assert(at64("RX_PACKETS_FAULTED", rx::packets_faulted_lo, rx::packets_faulted_hi));
static_assert(at64("RX_SAMPLES_FAULTED", rx::samples_faulted_lo, rx::samples_faulted_hi));
static_assert(at64("RX_PACKETS_DUPLICATED",
                   rx::packets_duplicated_lo,
                   rx::packets_duplicated_hi));
static_assert(at64("RX_MESSAGES_DELAYED",
                   rx::messages_delayed_lo,
                   rx::messages_delayed_hi));

static_assert(layout_of(block::metadata).base == metadata_base);
static_assert(at("MD_DEST_IPV4", metadata::dest_ipv4) &&
              at("MD_DEST_UDP_PORT", metadata::dest_udp_port));
static_assert(at("MD_INTERVAL_US", metadata::interval_us) &&
              at("MD_CONTROL", metadata::control));
static_assert(at64("MD_PACKETS_SENT",
                   metadata::packets_sent_lo,
                   metadata::packets_sent_hi));
static_assert(at64("MD_PACKETS_DROPPED",
                   metadata::packets_dropped_lo,
                   metadata::packets_dropped_hi));
static_assert(at("MD_SOURCE_UDP_PORT", metadata::source_udp_port));

static_assert(layout_of(block::emulator).base == emu_base);
static_assert(at("EMU_SIGNAL", emu::signal) && at("EMU_TONE_FREQ_HZ", emu::tone_freq_hz));
static_assert(at("EMU_AMPLITUDE", emu::amplitude) && at("EMU_SEED", emu::seed));
static_assert(at("EMU_FAULT_SEED", emu::fault_seed) && at("EMU_LOSS_PPM", emu::loss_ppm));
static_assert(at("EMU_LOSS_BURST", emu::loss_burst) &&
              at("EMU_DUPLICATE_PPM", emu::duplicate_ppm));
static_assert(at("EMU_CORRUPT_PPM", emu::corrupt_ppm) &&
              at("EMU_DELAY_PPM", emu::delay_ppm));
static_assert(at("EMU_DELAY_MESSAGES", emu::delay_messages) &&
              at("EMU_FAULT_COUNT", emu::fault_count));
static_assert(at("EMU_FAULT_TABLE", emu::fault_table) &&
              named("EMU_FAULT_TABLE").words() * 4 ==
                  emu::max_faults * emu::fault_entry_bytes);
static_assert(at("EMU_FAULT_LOG", emu::fault_log) &&
              at("EMU_FAULT_LOG_LEVEL", emu::fault_log_level));

static_assert(at("ID_NUM_RF_CHANNELS", id_num_rf_channels));

constexpr bool tx_at(const char* name, uint32_t offset, unsigned bits)
{
    return named(name).where == block::tx && named(name).offset == offset &&
           named(name).bits == bits;
}
static_assert(layout_of(block::tx).base == tx_base);
static_assert(tx_at("TX_COMMAND", tx::command, 32) && tx_at("TX_STATUS", tx::status, 32));
static_assert(tx_at("TX_HOST_IPV4", tx::host_ipv4, 32) &&
              tx_at("TX_HOST_UDP_PORT", tx::host_udp_port, 32) &&
              tx_at("TX_HOST_QPN", tx::host_qpn, 32) &&
              tx_at("TX_START_PSN", tx::start_psn, 32) && tx_at("TX_RKEY", tx::rkey, 32));
static_assert(tx_at("TX_VA", tx::va_lo, 64) && tx::va_hi == tx::va_lo + 4 &&
              tx_at("TX_RING_BYTES", tx::ring_bytes_lo, 64) &&
              tx::ring_bytes_hi == tx::ring_bytes_lo + 4);
static_assert(tx_at("TX_PAYLOAD_BYTES", tx::payload_bytes, 32) &&
              tx_at("TX_PATH_MTU", tx::path_mtu, 32) &&
              tx_at("TX_NOTIFY_INTERVAL", tx::notify_interval, 32) &&
              tx_at("TX_RATE_NUM", tx::rate_num, 32) &&
              tx_at("TX_RATE_DEN", tx::rate_den, 32) &&
              tx_at("TX_FORMAT", tx::format, 32) &&
              tx_at("TX_LINK_MASK", tx::link_mask, 32) &&
              tx_at("TX_CTRL_RKEY", tx::ctrl_rkey, 32) &&
              tx_at("TX_SOURCE_QPN", tx::source_qpn, 32));
static_assert(tx_at("TX_START_TIME", tx::start_time_lo, 64) &&
              tx_at("TX_NUM_SAMPLES", tx::num_samples_lo, 64) &&
              tx_at("TX_CTRL_VA", tx::ctrl_va_lo, 64) &&
              tx_at("TX_MAX_RD_ATOMIC", tx::max_rd_atomic, 32) &&
              tx_at("TX_RUN", tx::run, 32));
// Ownership: the RX block's offsets, so that one piece of code serves both.
static_assert(tx_at("TX_OWNER_TOKEN", tx::owner_token_lo, 64) &&
              tx::owner_token_lo == rx::owner_token_lo &&
              tx_at("TX_OWNER", tx::owner, 32) && tx::owner == rx::owner &&
              tx_at("TX_LEASE_MS", tx::lease_ms, 32) && tx::lease_ms == rx::lease_ms);
static_assert(tx_at("TX_SAMPLES_PLAYED", tx::samples_played_lo, 64) &&
              tx_at("TX_UNDERFLOW_SAMPLES", tx::underflow_samples_lo, 64) &&
              tx_at("TX_LATE_ZERO_SAMPLES", tx::late_zero_samples_lo, 64) &&
              tx_at("TX_READS", tx::reads_lo, 64) &&
              tx_at("TX_REREADS", tx::rereads_lo, 64) &&
              tx_at("TX_LEAD_NS", tx::lead_ns, 32) && tx_at("TX_RTT_NS", tx::rtt_ns, 32));
static_assert(tx_at("TX_CHECK_SAMPLES", tx::check_samples_lo, 64) &&
              tx_at("TX_CHECK_MISMATCHES", tx::check_mismatches_lo, 64) &&
              tx_at("TX_SAMPLES_FETCHED", tx::samples_fetched_lo, 64) &&
              tx_at("TX_NOTIFIES_SENT", tx::notifies_sent_lo, 64) &&
              tx_at("TX_SAMPLES_NOT_PLAYED", tx::samples_not_played_lo, 64) &&
              tx_at("TX_MIN_LEAD_NS", tx::min_lead_ns, 32) &&
              tx_at("TX_MAX_LEAD_NS", tx::max_lead_ns, 32));
static_assert(layout_of(block::tx_emulator).base == emu_tx_base);
static_assert(named("EMU_TX_CHECK").where == block::tx_emulator &&
              named("EMU_TX_CHECK").offset == emu_tx::check &&
              named("EMU_TX_LOSS_PPM").offset == emu_tx::loss_ppm &&
              named("EMU_TX_FAULT_SEED").offset == emu_tx::fault_seed);
static_assert(tx_at("TX_DROPPED_SAMPLES", tx::dropped_samples_lo, 64) &&
              tx_at("TX_IDLE_TICKS", tx::idle_ticks_lo, 64) &&
              tx_at("TX_BURSTS_DONE", tx::bursts_done, 32) &&
              tx_at("TX_TIME_ERRORS", tx::time_errors, 32) &&
              named("TX_TIME_ERRORS").end() <= tx_stride);
constexpr bool tbq_at(const char* name, uint32_t offset, unsigned bits)
{
    return named(name).where == block::tx_burst_queue && named(name).offset == offset &&
           named(name).bits == bits;
}
static_assert(layout_of(block::tx_burst_queue).base == tbq_base &&
              layout_of(block::tx_burst_queue).stride == tbq_stride);
static_assert(tbq_at("TBQ_TIME", tbq::time_lo, 64) &&
              tbq_at("TBQ_ITEM", tbq::item_lo, 64) &&
              tbq_at("TBQ_RESERVED", tbq::reserved_lo, 64) &&
              tbq_at("TBQ_PUSH", tbq::push, 32) && tbq_at("TBQ_STATUS", tbq::status, 32));
// The push burst, TBQ_TIME_LO to TBQ_PUSH, has no hole (a hole would make it DECERR).
static_assert((named("TBQ_PUSH").end() - named("TBQ_TIME").offset) / 4 ==
                  tbq::push_words &&
              named("TBQ_TIME").end() == named("TBQ_ITEM").offset &&
              named("TBQ_ITEM").end() == named("TBQ_RESERVED").offset &&
              named("TBQ_RESERVED").end() == named("TBQ_PUSH").offset);
// The RX burst queues of 8 streams (a device with TX has at most 8) end where the TX
// ones begin; 8 TX queues end below the metadata block.
static_assert(bq_base + 8 * bq_stride == tbq_base &&
              tbq_base + 8 * tbq_stride <= metadata_base);
// The RX extension blocks of 8 streams end where the TX ones begin.
static_assert(emu_base + 8 * emu_stride == emu_tx_base);
constexpr bool clock_at(const char* name, uint32_t address, unsigned bits)
{
    return named(name).bits == bits &&
           address_of(block::clock, 0, named(name).offset) == address;
}
static_assert(clock_at("CLOCK_SET_NOW", clock_set::now_lo, 64) &&
              clock_at("CLOCK_SET_PPS", clock_set::pps_lo, 64) &&
              clock_at("CLOCK_LAST_PPS", clock_set::last_pps_lo, 64));
static_assert(clock_at("CLOCK_SOURCE", clock_set::clock_source, 32) &&
              clock_at("CLOCK_SOURCES", clock_set::clock_sources, 32) &&
              clock_at("TIME_SOURCE", clock_set::time_source, 32) &&
              clock_at("TIME_SOURCES", clock_set::time_sources, 32) &&
              clock_at("CLOCK_STATUS", clock_set::status, 32));

static_assert(layout_of(block::rf).base == rf_base &&
              layout_of(block::rf).stride == rf_stride);
static_assert(named("RF_FREQ").bits == 64 && at("RF_FREQ", rf::freq_lo));
static_assert(named("RF_FREQ_TIME").bits == 64 && at("RF_FREQ_TIME", rf::freq_time_lo));
static_assert(named("RF_FREQ_MIN").bits == 64 && at("RF_FREQ_MIN", rf::freq_min_lo));
static_assert(named("RF_FREQ_MAX").bits == 64 && at("RF_FREQ_MAX", rf::freq_max_lo));
static_assert(at("RF_FREQ_STEP", rf::freq_step) && at("RF_GAIN", rf::gain));
static_assert(named("RF_GAIN_TIME").bits == 64 && at("RF_GAIN_TIME", rf::gain_time_lo));
static_assert(at("RF_GAIN_MIN", rf::gain_min) && at("RF_GAIN_MAX", rf::gain_max) &&
              at("RF_GAIN_STEP", rf::gain_step));
static_assert(at("RF_BANDWIDTH", rf::bandwidth) &&
              at("RF_BANDWIDTH_MIN", rf::bandwidth_min) &&
              at("RF_BANDWIDTH_MAX", rf::bandwidth_max));
static_assert(at("RF_ANTENNA", rf::antenna) && at("RF_ANTENNAS", rf::antennas) &&
              at("RF_STATUS", rf::status));
static_assert(named("RF_STATUS").end() == rf::block_words * 4);

constexpr bool cmd_at(const char* name, uint32_t address)
{
    return address_of(block::command_queue, 0, named(name).offset) == address;
}
static_assert(layout_of(block::command_queue).base == cmdq_base);
static_assert(cmd_at("CMD_TIME", cmd::time_lo) && named("CMD_TIME").bits == 64);
static_assert(cmd_at("CMD_ADDR", cmd::addr) && cmd_at("CMD_DATA", cmd::data_lo) &&
              named("CMD_DATA").bits == 64);
static_assert(cmd_at("CMD_PUSH", cmd::push) && cmd_at("CMD_STATUS", cmd::status));
static_assert(cmd_at("CMD_EXECUTED", cmd::executed) && cmd_at("CMD_LATE", cmd::late));
static_assert((named("CMD_PUSH").end() - named("CMD_TIME").offset) / 4 ==
              cmd::push_words);

constexpr bool scene_at(const char* name, uint32_t address)
{
    return address_of(block::scene, 0, named(name).offset) == address;
}
static_assert(scene_at("EMU_SCENE_TONES", scene::tones) &&
              scene_at("EMU_SCENE_NOISE", scene::noise));
static_assert(scene_at("EMU_SCENE_FREQ_0", scene_tone_reg(0, scene::tone_freq_lo)) &&
              scene_at("EMU_SCENE_AMPLITUDE_0",
                       scene_tone_reg(0, scene::tone_amplitude)));
static_assert(scene_at("EMU_SCENE_FREQ_7", scene_tone_reg(7, scene::tone_freq_lo)) &&
              scene_at("EMU_SCENE_AMPLITUDE_7",
                       scene_tone_reg(7, scene::tone_amplitude)) &&
              scene::max_tones == 8);
constexpr bool bq_at(const char* name, uint32_t offset, unsigned bits)
{
    return named(name).where == block::burst_queue && named(name).offset == offset &&
           named(name).bits == bits;
}
static_assert(layout_of(block::burst_queue).base == bq_base &&
              layout_of(block::burst_queue).stride == bq_stride);
static_assert(bq_at("BQ_TIME", bq::time_lo, 64) &&
              bq_at("BQ_SAMPLES", bq::samples_lo, 64) &&
              bq_at("BQ_FIRST_MESSAGE", bq::first_message_lo, 64));
static_assert(bq_at("BQ_PUSH", bq::push, 32) && bq_at("BQ_STATUS", bq::status, 32));
static_assert((named("BQ_PUSH").end() - named("BQ_TIME").offset) / 4 == bq::push_words);
static_assert(named("RX_FIRST_MESSAGE").where == block::rx &&
              at64("RX_FIRST_MESSAGE", rx::first_message_lo, rx::first_message_lo + 4));
// The burst queues of 16 streams end below the metadata block.
static_assert(cmdq_base + cmd::block_bytes <= bq_base &&
              bq_base + 16 * bq_stride <= metadata_base);
// The scene and the emulator extension blocks of 16 streams do not overlap.
static_assert(scene_base + scene_block_bytes <= emu_base);

// Rows in address order without overlaps, each inside its block: what decode() and
// the docs check rely on.
constexpr bool well_formed()
{
    for (size_t i = 0; i < register_count; i++) {
        const register_info& r = register_table[i];
        if ((r.bits != 32 && r.bits != 64) || r.repeat == 0 || r.offset % 4 ||
            r.end() > layout_of(r.where).bytes)
            return false;
        if (i > 0 && register_table[i - 1].where == r.where &&
            register_table[i - 1].end() > r.offset)
            return false;
        if (i > 0 && register_table[i - 1].where > r.where)
            return false;
    }
    return true;
}
static_assert(well_formed(),
              "register_table: rows overlap, are out of order or too wide");

} // namespace

decoded_address decode(uint32_t address,
                       uint32_t capabilities,
                       unsigned links,
                       unsigned rx_streams,
                       unsigned rf_channels,
                       unsigned tx_streams)
{
    decoded_address d;
    // The TX burst queues before the RX ones: they lie where the RX queues of streams
    // 8.. would, which a device with TX streams does not have.
    for (block b : { block::identity,
                     block::clock,
                     block::link,
                     block::rx,
                     block::tx,
                     block::tx_emulator,
                     block::command_queue,
                     block::tx_burst_queue,
                     block::burst_queue,
                     block::metadata,
                     block::rf,
                     block::scene,
                     block::emulator }) {
        const block_layout l = layout_of(b);
        const bool per_stream =
            b == block::rx || b == block::emulator || b == block::burst_queue;
        const bool per_tx_stream =
            b == block::tx || b == block::tx_emulator || b == block::tx_burst_queue;
        const unsigned instances = b == block::link ? links
                                   : per_stream     ? rx_streams
                                   : per_tx_stream  ? tx_streams
                                   : b == block::rf ? rf_channels
                                                    : 1;
        const uint64_t span = l.stride ? uint64_t(l.stride) * instances : l.bytes;
        if (address < l.base || address >= l.base + span)
            continue;
        d.where = b;
        d.index = l.stride ? (address - l.base) / l.stride : 0;
        d.offset = l.stride ? (address - l.base) % l.stride : address - l.base;
        const register_info* r = covering(b, d.offset);
        d.reg = r && r->exists_with(capabilities) ? r : nullptr;
        return d;
    }
    return d;
}

std::vector<burst>
plan_bursts(block b, uint32_t first, uint32_t end, size_t max_words, bool writable_only)
{
    std::vector<burst> out;
    if (max_words == 0)
        throw std::invalid_argument("plan_bursts: max_words must be at least 1");
    for (uint32_t at = first; at < end;) {
        const register_info* r = covering(b, at);
        if (!r || (writable_only && r->mode == access::ro)) {
            at += 4; // a hole, or a register the caller does not want
            continue;
        }
        // A repeated register may be cut between its elements, a 64-bit one never.
        const uint32_t unit = r->bits / 32u;
        if ((at - r->offset) % (4 * unit) != 0 ||
            (end < r->end() && (r->end() - end) % (4 * unit)))
            throw std::invalid_argument(std::string("plan_bursts: the range cuts ") +
                                        r->name + " in two");
        if (unit > max_words)
            throw burst_limit_error(
                std::string(r->name) + " is " + std::to_string(r->bits) +
                " bits wide and must be accessed in one burst, but the device takes at "
                "most " +
                std::to_string(max_words) + " word(s) per burst (ID_MAX_BURST_WORDS)");
        const uint32_t stop = std::min(end, r->end());
        for (; at < stop; at += 4 * unit) {
            burst* last = out.empty() ? nullptr : &out.back();
            if (last && last->offset + 4 * last->words == at &&
                last->words + unit <= max_words)
                last->words += unit;
            else
                out.push_back({ at, unit });
        }
    }
    return out;
}

} // namespace regs
} // namespace rdma
} // namespace gr
