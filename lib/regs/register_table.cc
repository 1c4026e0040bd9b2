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
static_assert(at("RX_STOP_CAUSE", rx::stop_cause));

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

// Map 1.5: several links (link_registers.h).
static_assert(at("LINK_CONTROL", link::control) &&
              at("LINK_DOWN_EVENTS", link::down_events) &&
              at64("LINK_CAPACITY", link::capacity_lo, link::capacity_lo + 4));
constexpr bool in_block(const char* name, block b, uint32_t offset, unsigned bits)
{
    return named(name).where == b && named(name).offset == offset &&
           named(name).bits == bits;
}
static_assert(in_block("DST_IPV4", block::rx_destination, dst::ipv4, 32) &&
              in_block("DST_UDP_PORT", block::rx_destination, dst::udp_port, 32) &&
              in_block("DST_QPN", block::rx_destination, dst::qpn, 32) &&
              in_block("DST_START_PSN", block::rx_destination, dst::start_psn, 32) &&
              in_block("DST_RKEY", block::rx_destination, dst::rkey, 32) &&
              in_block("DST_VA", block::rx_destination, dst::va_lo, 64) &&
              in_block("DST_RING_BYTES", block::rx_destination, dst::ring_bytes_lo, 64) &&
              in_block("DST_LINK", block::rx_destination, dst::link, 32) &&
              in_block("DST_WEIGHT", block::rx_destination, dst::weight, 32) &&
              in_block("DST_MESSAGES", block::rx_destination, dst::messages_lo, 64) &&
              in_block("DST_STATE", block::rx_destination, dst::state, 32));
// Destination 0's address registers are the RX block's, in the same order.
static_assert(named("RX_DEST_IPV4").offset == dst::rx_alias_offset + dst::ipv4 &&
              named("RX_DEST_UDP_PORT").offset == dst::rx_alias_offset + dst::udp_port &&
              named("RX_DEST_QPN").offset == dst::rx_alias_offset + dst::qpn &&
              named("RX_START_PSN").offset == dst::rx_alias_offset + dst::start_psn &&
              named("RX_RKEY").offset == dst::rx_alias_offset + dst::rkey &&
              named("RX_VA").offset == dst::rx_alias_offset + dst::va_lo &&
              named("RX_RING_BYTES").offset ==
                  dst::rx_alias_offset + dst::ring_bytes_lo &&
              named("RX_RING_BYTES").end() == dst::rx_alias_offset + dst::alias_end &&
              named("DST_RING_BYTES").end() == dst::alias_end);
static_assert(rx_dest_per_stream * rx_dest_stride == rx_dest_stream_stride);
static_assert(
    in_block("EPOCH_COUNT", block::rx_epoch, epoch::count, 32) &&
    in_block("EPOCH_KEPT", block::rx_epoch, epoch::kept, 32) &&
    in_block("EPOCH_SCHEDULED", block::rx_epoch, epoch::scheduled_lo, 64) &&
    in_block("EPOCH_FIRST_0", block::rx_epoch, epoch::entries + epoch::first_lo, 64) &&
    in_block("EPOCH_NUMBER_0", block::rx_epoch, epoch::entries + epoch::number, 32) &&
    in_block("EPOCH_CAUSE_0", block::rx_epoch, epoch::entries + epoch::cause, 32) &&
    in_block("EPOCH_WEIGHTS_0", block::rx_epoch, epoch::entries + epoch::weights, 32) &&
    named("EPOCH_WEIGHTS_0").end() == epoch::entries + epoch::entry_bytes &&
    epoch::entry_words * 4 == epoch::entry_bytes &&
    in_block("EPOCH_FIRST_3",
             block::rx_epoch,
             epoch::entries + 3 * epoch::entry_bytes + epoch::first_lo,
             64));
static_assert(
    in_block("EMU_LINK_DOWN", block::emu_link, emu_link::down, 32) &&
    in_block("EMU_LINK_LOSS_PPM", block::emu_link, emu_link::loss_ppm, 32) &&
    in_block("EMU_LINK_DELAY_US", block::emu_link, emu_link::delay_us, 32) &&
    in_block("EMU_LINK_REORDER_US", block::emu_link, emu_link::reorder_us, 32) &&
    in_block("EMU_LINK_RATE", block::emu_link, emu_link::rate_lo, 64) &&
    in_block("EMU_LINK_SEED", block::emu_link, emu_link::seed, 32) &&
    in_block("EMU_LINK_QUEUE_US", block::emu_link, emu_link::queue_us, 32) &&
    in_block(
        "EMU_LINK_FRAMES_DROPPED", block::emu_link, emu_link::frames_dropped_lo, 64) &&
    in_block(
        "EMU_LINK_SAMPLES_DROPPED", block::emu_link, emu_link::samples_dropped_lo, 64) &&
    in_block(
        "EMU_LINK_FRAMES_DELAYED", block::emu_link, emu_link::frames_delayed_lo, 64) &&
    in_block("EMU_LINK_FRAMES_PASSED", block::emu_link, emu_link::frames_passed_lo, 64));
// The destinations of 16 streams end where the shares (0x9000, docs/links.md) begin;
// the epochs of 16 streams lie between the controller (0xA000) and the scene; the
// emulated links of 16 links between the scene and the emulator extension blocks.
static_assert(rx_dest_base + 16 * rx_dest_stream_stride <= 0x9000 &&
              epoch_base >= 0xA100 && epoch_base + 16 * epoch_stride <= scene_base &&
              scene_base + scene_block_bytes <= emu_link_base &&
              emu_link_base + 16 * emu_link_stride <= emu_base);

// Map 1.5: the controller (ctrl_registers.h), between the shares and the epochs.
static_assert(in_block("CTRL_POLICY", block::ctrl, ctrl::policy, 32) &&
              in_block("CTRL_PERIOD_US", block::ctrl, ctrl::period_us, 32) &&
              in_block("CTRL_EVENTS", block::ctrl, ctrl::events_lo, 64) &&
              in_block("CTRL_COALESCED", block::ctrl, ctrl::coalesced_lo, 64) &&
              in_block("CTRL_RUNS", block::ctrl, ctrl::runs_lo, 64) &&
              in_block("CTRL_NAK_CUTS", block::ctrl, ctrl::nak_cuts_lo, 64) &&
              in_block("TX_RATE_LIMIT", block::ctrl, ctrl::tx_rate_limit, 32) &&
              named("TX_RATE_LIMIT").repeat == ctrl::max_tx_streams &&
              in_block("CTRL_TX_RATE", block::ctrl, ctrl::tx_rate, 32) &&
              named("CTRL_TX_RATE").repeat == ctrl::max_tx_streams &&
              named("CTRL_TX_RATE").end() == ctrl::rate_limit &&
              in_block("RX_RATE_LIMIT", block::ctrl, ctrl::rate_limit, 32) &&
              named("RX_RATE_LIMIT").repeat == ctrl::max_streams &&
              in_block("CTRL_RATE", block::ctrl, ctrl::rate, 32) &&
              named("CTRL_RATE").repeat == ctrl::max_streams &&
              named("CTRL_RATE").end() == ctrl_block_bytes &&
              0x9000 + 0x1000 <= ctrl_base && ctrl_base + ctrl_block_bytes <= epoch_base);

// Map 1.5: several hosts (link_registers.h).
static_assert(in_block("RX_SHARES", block::rx, rx::shares, 32) &&
              in_block("RX_SHARE_BLOCK", block::rx, rx::share_block, 32) &&
              in_block("RX_SHARE_READY", block::rx, rx::share_ready, 32) &&
              named("RX_SHARE_READY").end() <= rx_stride &&
              named("RX_SHARE_BLOCK").reset_value == default_share_block &&
              in_block("DST_SHARE", block::rx_destination, dst::share, 32));
static_assert(
    in_block("DST_SOURCE_QPN", block::rx_dest_rc, dst_rc::source_qpn, 32) &&
    in_block("DST_RTT_NS", block::rx_dest_rc, dst_rc::rtt_ns, 32) &&
    in_block("DST_RTT_SAMPLES", block::rx_dest_rc, dst_rc::rtt_samples, 32) &&
    in_block("DST_RETRANSMITS", block::rx_dest_rc, dst_rc::retransmits_lo, 64) &&
    in_block("DST_NAKS", block::rx_dest_rc, dst_rc::naks_lo, 64) &&
    in_block("DST_ABANDONED", block::rx_dest_rc, dst_rc::abandoned_lo, 64) &&
    named("DST_ABANDONED").end() == dst_rc::end);
static_assert(
    in_block("SHARE_OWNER_TOKEN", block::rx_share, share::token_lo, 64) &&
    in_block("SHARE_OWNER", block::rx_share, share::owner, 32) &&
    in_block("SHARE_LEASE_MS", block::rx_share, share::lease_ms, 32) &&
    in_block("SHARE_SAMPLES_EMITTED", block::rx_share, share::samples_emitted_lo, 64) &&
    in_block("SHARE_START_TIME", block::rx_share, share::start_time_lo, 64) &&
    named("SHARE_LEASE_MS").reset_value == lease::default_ms &&
    named("SHARE_LEASE_MS").end() == share::owner_end);
// The share's ownership registers are the RX block's, 0x70 lower: one protocol.
static_assert(share::token_lo + share::rx_owner_offset == rx::owner_token_lo &&
              share::owner + share::rx_owner_offset == rx::owner &&
              share::lease_ms + share::rx_owner_offset == rx::lease_ms);
// 8 shares per stream, the shares of 16 streams in 0x9000-0x9FFF.
static_assert(max_shares * rx_share_stride == rx_share_stream_stride &&
              rx_share_base == 0x9000 &&
              rx_share_base + 16 * rx_share_stream_stride <= ctrl_base &&
              rx_share_reg(1, 2, share::owner) == 0x9148);
static_assert(share_of_destination(0, 1) == 0 && share_of_destination(7, 1) == 0 &&
              share_of_destination(4, 2) == 1 &&
              share_of_destination(6, 3) == share_none &&
              share_of_destination(7, 8) == 7);

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
                     block::emulator,
                     block::rx_destination,
                     block::rx_epoch,
                     block::emu_link,
                     block::ctrl,
                     block::rx_share,
                     block::rx_dest_rc }) {
        const block_layout l = layout_of(b);
        const bool per_stream = b == block::rx || b == block::emulator ||
                                b == block::burst_queue || b == block::rx_epoch;
        const bool per_tx_stream =
            b == block::tx || b == block::tx_emulator || b == block::tx_burst_queue;
        const unsigned instances = b == block::link || b == block::emu_link ? links
                                   : b == block::rx_destination || b == block::rx_dest_rc
                                       ? rx_streams * rx_dest_per_stream
                                   : b == block::rx_share ? rx_streams * max_shares
                                   : per_stream           ? rx_streams
                                   : per_tx_stream        ? tx_streams
                                   : b == block::rf       ? rf_channels
                                                          : 1;
        const uint64_t span = l.stride ? uint64_t(l.stride) * instances : l.bytes;
        if (address < l.base || address >= l.base + span)
            continue;
        d.where = b;
        d.index = l.stride ? (address - l.base) / l.stride : 0;
        d.offset = l.stride ? (address - l.base) % l.stride : address - l.base;
        const register_info* r = covering(b, d.offset);
        d.reg = r && r->exists_with(capabilities) ? r : nullptr;
        // Share 0 is the stream owner's: it has no owner registers of its own.
        if (b == block::rx_share && d.index % max_shares == 0 &&
            d.offset < share::owner_end)
            d.reg = nullptr;
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
