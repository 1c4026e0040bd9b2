/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_REGISTER_FIELDS_H
#define INCLUDED_RDMA_REGS_REGISTER_FIELDS_H

#include "../util/socket_address.h"
#include "field_set.h"
#include "register_table.h"
#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/test_signal.h>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

/*
 * The values of whole register blocks as structs that both sides use: the host packs
 * an rx_descriptor into register words and unpacks the counters; the emulator unpacks
 * the words it was written into the same rx_descriptor and answers reads from the same
 * rx_counters. One generic piece of code, field_set (field_set.h), does every packing,
 * driven by the register table (each field names its register; the table gives width
 * and word order).
 */

namespace gr {
namespace rdma {
namespace regs {

//! The identity block.
struct identity_values {
    uint32_t magic = magic_value;
    uint32_t version = map_version;
    uint32_t capabilities = 0; //!< cap::*
    uint32_t num_links = 0;
    uint32_t num_rx_streams = 0;
    uint32_t num_tx_streams = 0;
    uint32_t max_payload = 0;
    uint32_t formats = 0;
    uint64_t serial = 0;
    uint32_t max_burst_words = 0; //!< ID_MAX_BURST_WORDS
    uint32_t num_rf_channels = 0; //!< ID_NUM_RF_CHANNELS (map 1.3)
};

//! A link block. The MAC is two registers, HI first (docs/register-map.md, "Word order").
struct link_values {
    uint32_t ipv4 = 0;
    std::array<uint8_t, 6> mac{};
    uint16_t udp_sport = 0;
    uint32_t mtu = 0;
    uint32_t status = 0;
    uint32_t weight = 1;
    uint16_t roce_port = 0;
    uint64_t tx_packets = 0;
    uint64_t tx_bytes = 0;
    uint64_t rx_packets = 0;
};

/*!
 * An RX stream descriptor (RX_DEST_IPV4 .. RX_DEST_MAC_LO): what the host programs
 * before START and the device latches at START. Defaults are the registers' reset
 * values.
 */
struct rx_descriptor {
    socket_address destination; //!< RX_DEST_IPV4 and RX_DEST_UDP_PORT
    uint32_t dest_qpn = 0;
    uint32_t start_psn = 0;
    uint32_t rkey = 0;
    uint64_t va = 0;
    uint64_t ring_bytes = 0;
    uint32_t payload_bytes = 1024; //!< sample bytes per WRITE message
    uint32_t path_mtu = 1024;
    uint32_t notify_interval =
        16; //!< every N-th message WITH IMMEDIATE; 0: only the last
    uint32_t rate_num = 0;
    uint32_t rate_den = 1;
    sample_format format = sample_format::sc16;
    uint32_t link_mask = 1;
    uint32_t transport = 0;                //!< transport_type
    uint64_t start_time_ns = 0;            //!< device time of sample 0; 0: at START
    uint64_t num_samples = 0;              //!< 0: continuous
    uint32_t retx_window_bytes = 4u << 20; //!< RC: sample bytes kept for retransmission
    std::array<uint8_t, 6> dest_mac{};     //!< next hop, for devices without ARP
};

//! What an RX stream did in its current run (RX_PACKETS_SENT .. RX_MESSAGES_DELAYED).
struct rx_counters {
    uint64_t packets_sent = 0;
    uint64_t samples_emitted = 0; //!< samples of every message produced: sent or dropped
    uint64_t packets_dropped = 0; //!< not sent (loss injection, overflow)
    uint64_t samples_dropped = 0;
    uint64_t imm_sent = 0;
    uint64_t naks_received = 0;    //!< RC: NAKs of any kind (32-bit register: wraps)
    uint64_t retransmits = 0;      //!< RC: packets sent again (32-bit register: wraps)
    uint64_t zero_substituted = 0; //!< RC: samples sent as zeros
    uint64_t packets_faulted = 0;  //!< sent with an injected fault
    uint64_t samples_faulted = 0;
    uint64_t packets_duplicated = 0;
    uint64_t messages_delayed = 0;
};

/*!
 * A TX stream descriptor (TX_HOST_IPV4 .. TX_RUN, TX_MIN_LEAD_NS, TX_MAX_LEAD_NS): what
 * the host programs before START and the device latches at START (docs/transmit.md).
 * Defaults are the registers' reset values.
 */
struct tx_descriptor {
    socket_address host; //!< TX_HOST_IPV4 and TX_HOST_UDP_PORT
    uint32_t host_qpn = 0;
    uint32_t start_psn = 0;
    uint32_t rkey = 0;
    uint64_t va = 0;
    uint64_t ring_bytes = 0;
    uint32_t payload_bytes = 1024; //!< bytes per READ: one message
    uint32_t path_mtu = 1024;
    uint32_t notify_interval = 16; //!< a SEND WITH IMMEDIATE every N messages
    uint32_t rate_num = 0;
    uint32_t rate_den = 1;
    sample_format format = sample_format::sc16;
    uint32_t link_mask = 1;
    uint32_t ctrl_rkey = 0;
    uint64_t start_time_ns = 0; //!< device time of sample 0; 0: START + lead
    uint64_t num_samples = 0;   //!< 0: continuous
    uint64_t ctrl_va = 0;
    uint32_t max_rd_atomic = 1;
    uint32_t run = 0;
    uint32_t min_lead_ns = 200000;
    uint32_t max_lead_ns = 50000000;
};

//! What a TX stream did in its current run (TX_SAMPLES_PLAYED .. TX_SAMPLES_NOT_PLAYED).
struct tx_counters {
    uint64_t samples_played = 0;
    uint64_t underflow_samples = 0;
    uint64_t late_zero_samples = 0;
    uint64_t reads = 0;
    uint64_t rereads = 0;
    uint32_t lead_ns = 0;
    uint32_t rtt_ns = 0;
    uint64_t check_samples = 0;
    uint64_t check_mismatches = 0;
    uint64_t samples_fetched = 0;
    uint64_t notifies_sent = 0;
    uint64_t samples_not_played = 0;
    // Map 1.4 (cap::tx_bursts): tx_burst_counter_fields.
    uint64_t dropped_samples = 0; //!< committed items of dropped bursts (time_error)
    uint64_t idle_ticks = 0;      //!< converter ticks outside every burst
    uint64_t bursts_done = 0;     //!< bursts played to their END (32-bit register: wraps)
    uint64_t time_errors = 0;     //!< STARTs whose time had passed (32-bit: wraps)
};

//! The emulator's TX extension block (EMU_TX_CHECK .. EMU_TX_FAULT_SEED).
struct tx_emulation {
    uint32_t check = 0;
    uint32_t loss_ppm = 0;
    uint32_t fault_seed = 0;
};

//! The emulator's random impairments (EMU_FAULT_SEED .. EMU_DELAY_MESSAGES).
struct impairment_values {
    uint32_t seed = 0; //!< EMU_FAULT_SEED
    uint32_t loss_ppm = 0;
    uint32_t loss_burst = 1;
    uint32_t duplicate_ppm = 0;
    uint32_t corrupt_ppm = 0;
    uint32_t delay_ppm = 0;
    uint32_t delay_messages = 0;
};

//! An RF channel block (docs/radio.md): what it reads. Frequencies in mHz, gains in
//! milli-dB, times in ns of device time.
struct rf_values {
    uint64_t freq_mhz = 0;
    uint64_t freq_time_ns = 0;
    uint64_t freq_min_mhz = 0;
    uint64_t freq_max_mhz = 0;
    uint32_t freq_step_mhz = 0;
    int32_t gain_mdb = 0;
    uint64_t gain_time_ns = 0;
    int32_t gain_min_mdb = 0;
    int32_t gain_max_mdb = 0;
    uint32_t gain_step_mdb = 0;
    uint32_t bandwidth_hz = 0;
    uint32_t bandwidth_min_hz = 0;
    uint32_t bandwidth_max_hz = 0;
    uint32_t antenna = 0;
    uint32_t antennas = 0;
    uint32_t status = 0; //!< rf::status_bits
};

//! The emulator's RF scene (docs/radio.md): tones at absolute RF frequencies, noise.
struct scene_values {
    uint32_t tones = 1;
    float noise = 0; //!< standard deviation at 0 dB gain, full scale 1.0
    std::array<uint64_t, scene::max_tones> freq_mhz{ 100250000000ull };
    std::array<float, scene::max_tones> amplitude{ 0.25f };
};

namespace detail {
// A MAC is two registers, HI (bits 47..32 in 15..0) at the lower address, then LO.
inline uint32_t mac_hi(const std::array<uint8_t, 6>& m)
{
    return (uint32_t(m[0]) << 8) | m[1];
}
inline uint32_t mac_lo(const std::array<uint8_t, 6>& m)
{
    return (uint32_t(m[2]) << 24) | (uint32_t(m[3]) << 16) | (uint32_t(m[4]) << 8) | m[5];
}
inline uint32_t float_bits(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
}
inline float bits_float(uint64_t v)
{
    const uint32_t bits = static_cast<uint32_t>(v);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// Tone I of the scene: its frequency and its amplitude.
template <unsigned I>
constexpr field<scene_values> scene_freq(const char* name)
{
    return { &named(name),
             [](const scene_values& s) -> uint64_t { return s.freq_mhz[I]; },
             [](scene_values& s, uint64_t v) { s.freq_mhz[I] = v; } };
}
template <unsigned I>
constexpr field<scene_values> scene_amplitude(const char* name)
{
    return { &named(name),
             [](const scene_values& s) -> uint64_t { return float_bits(s.amplitude[I]); },
             [](scene_values& s, uint64_t v) { s.amplitude[I] = bits_float(v); } };
}

inline void set_mac_hi(std::array<uint8_t, 6>& m, uint64_t v)
{
    m[0] = uint8_t(v >> 8);
    m[1] = uint8_t(v);
}
inline void set_mac_lo(std::array<uint8_t, 6>& m, uint64_t v)
{
    m[2] = uint8_t(v >> 24);
    m[3] = uint8_t(v >> 16);
    m[4] = uint8_t(v >> 8);
    m[5] = uint8_t(v);
}

// Without socket_address's out-of-line constructor: lib/regs links without lib/util.
inline socket_address make_address(uint32_t ip, uint16_t port)
{
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(ip);
    sa.sin_port = htons(port);
    return socket_address(sa);
}
} // namespace detail

// clang-format off
inline constexpr field<identity_values> identity_field_list[] = {
    detail::member<&identity_values::magic>("ID_MAGIC"),
    detail::member<&identity_values::version>("ID_VERSION"),
    detail::member<&identity_values::capabilities>("ID_CAPABILITIES"),
    detail::member<&identity_values::num_links>("ID_NUM_LINKS"),
    detail::member<&identity_values::num_rx_streams>("ID_NUM_RX_STREAMS"),
    detail::member<&identity_values::num_tx_streams>("ID_NUM_TX_STREAMS"),
    detail::member<&identity_values::max_payload>("ID_MAX_PAYLOAD"),
    detail::member<&identity_values::formats>("ID_FORMATS"),
    detail::member<&identity_values::serial>("ID_SERIAL"),
    detail::member<&identity_values::max_burst_words>("ID_MAX_BURST_WORDS"),
    detail::member<&identity_values::num_rf_channels>("ID_NUM_RF_CHANNELS"),
};

inline constexpr field<link_values> link_field_list[] = {
    detail::member<&link_values::ipv4>("LINK_IPV4"),
    { &named("LINK_MAC_HI"),
      [](const link_values& l) -> uint64_t { return detail::mac_hi(l.mac); },
      [](link_values& l, uint64_t v) { detail::set_mac_hi(l.mac, v); } },
    { &named("LINK_MAC_LO"),
      [](const link_values& l) -> uint64_t { return detail::mac_lo(l.mac); },
      [](link_values& l, uint64_t v) { detail::set_mac_lo(l.mac, v); } },
    detail::member<&link_values::udp_sport>("LINK_UDP_SPORT"),
    detail::member<&link_values::mtu>("LINK_MTU"),
    detail::member<&link_values::status>("LINK_STATUS"),
    detail::member<&link_values::weight>("LINK_WEIGHT"),
    detail::member<&link_values::roce_port>("LINK_ROCE_PORT"),
    detail::member<&link_values::tx_packets>("LINK_TX_PACKETS"),
    detail::member<&link_values::tx_bytes>("LINK_TX_BYTES"),
    detail::member<&link_values::rx_packets>("LINK_RX_PACKETS"),
};

inline constexpr field<rx_descriptor> rx_descriptor_field_list[] = {
    { &named("RX_DEST_IPV4"),
      [](const rx_descriptor& d) -> uint64_t { return d.destination.ip(); },
      [](rx_descriptor& d, uint64_t v) {
          d.destination = detail::make_address(uint32_t(v), d.destination.port());
      } },
    { &named("RX_DEST_UDP_PORT"),
      [](const rx_descriptor& d) -> uint64_t { return d.destination.port(); },
      [](rx_descriptor& d, uint64_t v) {
          d.destination = detail::make_address(d.destination.ip(), uint16_t(v));
      } },
    detail::member<&rx_descriptor::dest_qpn>("RX_DEST_QPN"),
    detail::member<&rx_descriptor::start_psn>("RX_START_PSN"),
    detail::member<&rx_descriptor::rkey>("RX_RKEY"),
    detail::member<&rx_descriptor::va>("RX_VA"),
    detail::member<&rx_descriptor::ring_bytes>("RX_RING_BYTES"),
    detail::member<&rx_descriptor::payload_bytes>("RX_PAYLOAD_BYTES"),
    detail::member<&rx_descriptor::path_mtu>("RX_PATH_MTU"),
    detail::member<&rx_descriptor::notify_interval>("RX_NOTIFY_INTERVAL"),
    detail::member<&rx_descriptor::rate_num>("RX_RATE_NUM"),
    detail::member<&rx_descriptor::rate_den>("RX_RATE_DEN"),
    detail::member<&rx_descriptor::format>("RX_FORMAT"),
    detail::member<&rx_descriptor::link_mask>("RX_LINK_MASK"),
    detail::member<&rx_descriptor::transport>("RX_TRANSPORT"),
    detail::member<&rx_descriptor::start_time_ns>("RX_START_TIME"),
    detail::member<&rx_descriptor::num_samples>("RX_NUM_SAMPLES"),
    detail::member<&rx_descriptor::retx_window_bytes>("RX_RETX_WINDOW_BYTES"),
    { &named("RX_DEST_MAC_HI"),
      [](const rx_descriptor& d) -> uint64_t { return detail::mac_hi(d.dest_mac); },
      [](rx_descriptor& d, uint64_t v) { detail::set_mac_hi(d.dest_mac, v); } },
    { &named("RX_DEST_MAC_LO"),
      [](const rx_descriptor& d) -> uint64_t { return detail::mac_lo(d.dest_mac); },
      [](rx_descriptor& d, uint64_t v) { detail::set_mac_lo(d.dest_mac, v); } },
};

inline constexpr field<rx_counters> rx_counter_field_list[] = {
    detail::member<&rx_counters::packets_sent>("RX_PACKETS_SENT"),
    detail::member<&rx_counters::samples_emitted>("RX_SAMPLES_EMITTED"),
    detail::member<&rx_counters::packets_dropped>("RX_PACKETS_DROPPED"),
    detail::member<&rx_counters::samples_dropped>("RX_SAMPLES_DROPPED"),
    detail::member<&rx_counters::imm_sent>("RX_IMM_SENT"),
    detail::member<&rx_counters::naks_received>("RX_NAKS_RECEIVED"),
    detail::member<&rx_counters::retransmits>("RX_RETRANSMITS"),
    detail::member<&rx_counters::zero_substituted>("RX_ZERO_SUBSTITUTED"),
    detail::member<&rx_counters::packets_faulted>("RX_PACKETS_FAULTED"),
    detail::member<&rx_counters::samples_faulted>("RX_SAMPLES_FAULTED"),
    detail::member<&rx_counters::packets_duplicated>("RX_PACKETS_DUPLICATED"),
    detail::member<&rx_counters::messages_delayed>("RX_MESSAGES_DELAYED"),
};
inline constexpr field<tx_descriptor> tx_descriptor_field_list[] = {
    { &named("TX_HOST_IPV4"),
      [](const tx_descriptor& d) -> uint64_t { return d.host.ip(); },
      [](tx_descriptor& d, uint64_t v) {
          d.host = detail::make_address(uint32_t(v), d.host.port());
      } },
    { &named("TX_HOST_UDP_PORT"),
      [](const tx_descriptor& d) -> uint64_t { return d.host.port(); },
      [](tx_descriptor& d, uint64_t v) {
          d.host = detail::make_address(d.host.ip(), uint16_t(v));
      } },
    detail::member<&tx_descriptor::host_qpn>("TX_HOST_QPN"),
    detail::member<&tx_descriptor::start_psn>("TX_START_PSN"),
    detail::member<&tx_descriptor::rkey>("TX_RKEY"),
    detail::member<&tx_descriptor::va>("TX_VA"),
    detail::member<&tx_descriptor::ring_bytes>("TX_RING_BYTES"),
    detail::member<&tx_descriptor::payload_bytes>("TX_PAYLOAD_BYTES"),
    detail::member<&tx_descriptor::path_mtu>("TX_PATH_MTU"),
    detail::member<&tx_descriptor::notify_interval>("TX_NOTIFY_INTERVAL"),
    detail::member<&tx_descriptor::rate_num>("TX_RATE_NUM"),
    detail::member<&tx_descriptor::rate_den>("TX_RATE_DEN"),
    detail::member<&tx_descriptor::format>("TX_FORMAT"),
    detail::member<&tx_descriptor::link_mask>("TX_LINK_MASK"),
    detail::member<&tx_descriptor::ctrl_rkey>("TX_CTRL_RKEY"),
    detail::member<&tx_descriptor::start_time_ns>("TX_START_TIME"),
    detail::member<&tx_descriptor::num_samples>("TX_NUM_SAMPLES"),
    detail::member<&tx_descriptor::ctrl_va>("TX_CTRL_VA"),
    detail::member<&tx_descriptor::max_rd_atomic>("TX_MAX_RD_ATOMIC"),
    detail::member<&tx_descriptor::run>("TX_RUN"),
    detail::member<&tx_descriptor::min_lead_ns>("TX_MIN_LEAD_NS"),
    detail::member<&tx_descriptor::max_lead_ns>("TX_MAX_LEAD_NS"),
};

inline constexpr field<tx_counters> tx_counter_field_list[] = {
    detail::member<&tx_counters::samples_played>("TX_SAMPLES_PLAYED"),
    detail::member<&tx_counters::underflow_samples>("TX_UNDERFLOW_SAMPLES"),
    detail::member<&tx_counters::late_zero_samples>("TX_LATE_ZERO_SAMPLES"),
    detail::member<&tx_counters::reads>("TX_READS"),
    detail::member<&tx_counters::rereads>("TX_REREADS"),
    detail::member<&tx_counters::lead_ns>("TX_LEAD_NS"),
    detail::member<&tx_counters::rtt_ns>("TX_RTT_NS"),
    detail::member<&tx_counters::check_samples>("TX_CHECK_SAMPLES"),
    detail::member<&tx_counters::check_mismatches>("TX_CHECK_MISMATCHES"),
    detail::member<&tx_counters::samples_fetched>("TX_SAMPLES_FETCHED"),
    detail::member<&tx_counters::notifies_sent>("TX_NOTIFIES_SENT"),
    detail::member<&tx_counters::samples_not_played>("TX_SAMPLES_NOT_PLAYED"),
};

// Map 1.4: a device without cap::tx_bursts answers DECERR there, so they are read apart.
inline constexpr field<tx_counters> tx_burst_counter_field_list[] = {
    detail::member<&tx_counters::dropped_samples>("TX_DROPPED_SAMPLES"),
    detail::member<&tx_counters::idle_ticks>("TX_IDLE_TICKS"),
    detail::member<&tx_counters::bursts_done>("TX_BURSTS_DONE"),
    detail::member<&tx_counters::time_errors>("TX_TIME_ERRORS"),
};

inline constexpr field<tx_emulation> tx_emulation_field_list[] = {
    detail::member<&tx_emulation::check>("EMU_TX_CHECK"),
    detail::member<&tx_emulation::loss_ppm>("EMU_TX_LOSS_PPM"),
    detail::member<&tx_emulation::fault_seed>("EMU_TX_FAULT_SEED"),
};

// The emulator's test signal: kind, tone frequency (whole Hz, int32), amplitude (float32
// bits) and seed. Its format and rate are the RX block's.
inline constexpr field<test_signal_config> signal_field_list[] = {
    { &named("EMU_SIGNAL"),
      [](const test_signal_config& c) -> uint64_t { return static_cast<uint32_t>(c.kind); },
      [](test_signal_config& c, uint64_t v) { c.kind = static_cast<test_signal_kind>(v); } },
    { &named("EMU_TONE_FREQ_HZ"),
      [](const test_signal_config& c) -> uint64_t {
          return static_cast<uint32_t>(static_cast<int32_t>(c.freq_hz));
      },
      [](test_signal_config& c, uint64_t v) {
          c.freq_hz = static_cast<int32_t>(static_cast<uint32_t>(v));
      } },
    { &named("EMU_AMPLITUDE"),
      [](const test_signal_config& c) -> uint64_t {
          uint32_t bits;
          std::memcpy(&bits, &c.amplitude, 4);
          return bits;
      },
      [](test_signal_config& c, uint64_t v) {
          const uint32_t bits = static_cast<uint32_t>(v);
          std::memcpy(&c.amplitude, &bits, 4);
      } },
    detail::member<&test_signal_config::seed>("EMU_SEED"),
};

inline constexpr field<rf_values> rf_field_list[] = {
    detail::member<&rf_values::freq_mhz>("RF_FREQ"),
    detail::member<&rf_values::freq_time_ns>("RF_FREQ_TIME"),
    detail::member<&rf_values::freq_min_mhz>("RF_FREQ_MIN"),
    detail::member<&rf_values::freq_max_mhz>("RF_FREQ_MAX"),
    detail::member<&rf_values::freq_step_mhz>("RF_FREQ_STEP"),
    detail::member<&rf_values::gain_mdb>("RF_GAIN"),
    detail::member<&rf_values::gain_time_ns>("RF_GAIN_TIME"),
    detail::member<&rf_values::gain_min_mdb>("RF_GAIN_MIN"),
    detail::member<&rf_values::gain_max_mdb>("RF_GAIN_MAX"),
    detail::member<&rf_values::gain_step_mdb>("RF_GAIN_STEP"),
    detail::member<&rf_values::bandwidth_hz>("RF_BANDWIDTH"),
    detail::member<&rf_values::bandwidth_min_hz>("RF_BANDWIDTH_MIN"),
    detail::member<&rf_values::bandwidth_max_hz>("RF_BANDWIDTH_MAX"),
    detail::member<&rf_values::antenna>("RF_ANTENNA"),
    detail::member<&rf_values::antennas>("RF_ANTENNAS"),
    detail::member<&rf_values::status>("RF_STATUS"),
};

inline constexpr field<scene_values> scene_field_list[] = {
    detail::member<&scene_values::tones>("EMU_SCENE_TONES"),
    { &named("EMU_SCENE_NOISE"),
      [](const scene_values& s) -> uint64_t { return detail::float_bits(s.noise); },
      [](scene_values& s, uint64_t v) { s.noise = detail::bits_float(v); } },
    detail::scene_freq<0>("EMU_SCENE_FREQ_0"), detail::scene_amplitude<0>("EMU_SCENE_AMPLITUDE_0"),
    detail::scene_freq<1>("EMU_SCENE_FREQ_1"), detail::scene_amplitude<1>("EMU_SCENE_AMPLITUDE_1"),
    detail::scene_freq<2>("EMU_SCENE_FREQ_2"), detail::scene_amplitude<2>("EMU_SCENE_AMPLITUDE_2"),
    detail::scene_freq<3>("EMU_SCENE_FREQ_3"), detail::scene_amplitude<3>("EMU_SCENE_AMPLITUDE_3"),
    detail::scene_freq<4>("EMU_SCENE_FREQ_4"), detail::scene_amplitude<4>("EMU_SCENE_AMPLITUDE_4"),
    detail::scene_freq<5>("EMU_SCENE_FREQ_5"), detail::scene_amplitude<5>("EMU_SCENE_AMPLITUDE_5"),
    detail::scene_freq<6>("EMU_SCENE_FREQ_6"), detail::scene_amplitude<6>("EMU_SCENE_AMPLITUDE_6"),
    detail::scene_freq<7>("EMU_SCENE_FREQ_7"), detail::scene_amplitude<7>("EMU_SCENE_AMPLITUDE_7"),
};

inline constexpr field<impairment_values> impairment_field_list[] = {
    detail::member<&impairment_values::seed>("EMU_FAULT_SEED"),
    detail::member<&impairment_values::loss_ppm>("EMU_LOSS_PPM"),
    detail::member<&impairment_values::loss_burst>("EMU_LOSS_BURST"),
    detail::member<&impairment_values::duplicate_ppm>("EMU_DUPLICATE_PPM"),
    detail::member<&impairment_values::corrupt_ppm>("EMU_CORRUPT_PPM"),
    detail::member<&impairment_values::delay_ppm>("EMU_DELAY_PPM"),
    detail::member<&impairment_values::delay_messages>("EMU_DELAY_MESSAGES"),
};
// clang-format on

inline constexpr field_set<identity_values> identity_fields{ identity_field_list };
inline constexpr field_set<link_values> link_fields{ link_field_list };
inline constexpr field_set<rx_descriptor> rx_descriptor_fields{
    rx_descriptor_field_list
};
inline constexpr field_set<rx_counters> rx_counter_fields{ rx_counter_field_list };
inline constexpr field_set<tx_descriptor> tx_descriptor_fields{
    tx_descriptor_field_list
};
inline constexpr field_set<tx_counters> tx_counter_fields{ tx_counter_field_list };
inline constexpr field_set<tx_counters> tx_burst_counter_fields{
    tx_burst_counter_field_list
};
inline constexpr field_set<tx_emulation> tx_emulation_fields{ tx_emulation_field_list };
inline constexpr field_set<test_signal_config> signal_fields{ signal_field_list };
inline constexpr field_set<impairment_values> impairment_fields{ impairment_field_list };
inline constexpr field_set<rf_values> rf_fields{ rf_field_list };
inline constexpr field_set<scene_values> scene_fields{ scene_field_list };

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
