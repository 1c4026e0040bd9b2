/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_REGISTER_TABLE_H
#define INCLUDED_RDMA_REGS_REGISTER_TABLE_H

#include "register_map.h"
#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <vector>

/*
 * Every register of the map once, as data: the host's controller, the emulator's
 * register file and the register tables of docs/register-map.md (and metadata.md) all
 * follow it. qa_regs checks the docs against it cell by cell, and register_table.cc
 * checks every constant of register_map.h against it at compile time.
 */

namespace gr {
namespace rdma {
namespace regs {

//! The blocks of the map (docs/register-map.md, "Address map"; docs/radio.md).
enum class block : uint8_t {
    identity,
    clock,
    link,
    rx,
    metadata,
    emulator,
    rf,             //!< RF channel c (map 1.3)
    command_queue,  //!< timed commands (map 1.3)
    scene,          //!< the emulator's RF scene (map 1.3)
    burst_queue,    //!< queued bursts of RX stream s (map 1.3)
    tx,             //!< TX stream t (cap::tx, docs/transmit.md)
    tx_emulator,    //!< the emulator's extension of TX stream t
    tx_burst_queue, //!< queued bursts of TX stream t (map 1.4)
    rx_destination, //!< destination d of RX stream s: instance 8 s + d (map 1.5)
    rx_epoch,       //!< the epochs (schedule changes) of RX stream s (map 1.5)
    emu_link,       //!< the emulator's emulated link n (map 1.5)
    ctrl,           //!< the device's controller (map 1.5, cap::rate_control)
    rx_share,       //!< share h of RX stream s: instance 8 s + h (map 1.5, cap::shares)
    rx_dest_rc,     //!< destination d's RC requester: instance 8 s + d (cap::rc_links)
};

//! Where a block lies: instance i at base + i * stride, each block_bytes long.
struct block_layout {
    uint32_t base;
    uint32_t stride; //!< 0: one instance only
    uint32_t bytes;
};

constexpr block_layout layout_of(block b)
{
    switch (b) {
    case block::identity:
        return { 0x0000, 0, 0x100 };
    case block::clock:
        return { 0x0100, 0, 0x100 };
    case block::link:
        return { link_base, link_stride, link_stride };
    case block::rx:
        return { rx_base, rx_stride, rx_stride };
    case block::metadata:
        return { metadata_base, 0, metadata_block_bytes };
    case block::emulator:
        return { emu_base, emu_stride, emu_stride };
    case block::rf:
        return { rf_base, rf_stride, rf_stride };
    case block::command_queue:
        return { cmdq_base, 0, cmd::block_bytes };
    case block::scene:
        return { scene_base, 0, scene_block_bytes };
    case block::burst_queue:
        return { bq_base, bq_stride, bq_stride };
    case block::tx:
        return { tx_base, tx_stride, tx_stride };
    case block::tx_emulator:
        return { emu_tx_base, emu_tx_stride, emu_tx_stride };
    case block::tx_burst_queue:
        return { tbq_base, tbq_stride, tbq_stride };
    case block::rx_destination:
        return { rx_dest_base, rx_dest_stride, rx_dest_stride };
    case block::rx_epoch:
        return { epoch_base, epoch_stride, epoch_stride };
    case block::emu_link:
        return { emu_link_base, emu_link_stride, emu_link_stride };
    case block::ctrl:
        return { ctrl_base, 0, ctrl_block_bytes };
    case block::rx_share:
        return { rx_share_base, rx_share_stride, rx_share_stride };
    case block::rx_dest_rc:
        return { rx_dest_rc_base, rx_dest_stride, rx_dest_stride };
    }
    return { 0, 0, 0 };
}

//! The bus address of \p offset in instance \p index of block \p b.
constexpr uint32_t address_of(block b, unsigned index, uint32_t offset)
{
    return layout_of(b).base + index * layout_of(b).stride + offset;
}

enum class access : uint8_t {
    ro, //!< a write answers SLVERR
    rw,
    wo, //!< reads 0
};

enum class reset_kind : uint8_t {
    value,  //!< reset_value, the same on every device
    device, //!< a constant of the device (its serial, its link's address, its limits)
    live,   //!< changes by itself (the clock, link up)
};

namespace flag {
//! While the stream is owned, only its owner may read it; others get NOT_OWNER. (Every
//! write to an owned stream's RX and extension blocks is its owner's alone.)
constexpr uint8_t owner_only = 1u << 0;
//! Latched by START: a write while the stream runs answers SLVERR.
constexpr uint8_t latched = 1u << 1;
} // namespace flag

struct register_info {
    block where;
    uint32_t offset;  //!< byte offset in its block (identity: also its address)
    const char* name; //!< as in docs/register-map.md
    uint8_t bits;     //!< 32, or 64: two words, the low one at offset
    uint8_t repeat;   //!< registers of `bits` in a row (EMU_FAULT_TABLE: 24), else 1
    access mode;
    uint8_t flags;       //!< flag::*
    uint32_t capability; //!< ID_CAPABILITIES bits without which it does not exist
    reset_kind reset;
    uint64_t reset_value; //!< reset_kind::value: what it reads after reset
    const char* meaning;  //!< one line; the docs say more

    constexpr uint32_t words() const { return bits / 32u * repeat; }
    constexpr uint32_t end() const { return offset + 4 * words(); }
    constexpr bool has(uint8_t f) const { return (flags & f) == f; }
    constexpr bool exists_with(uint32_t capabilities) const
    {
        return (capabilities & capability) == capability;
    }
};

namespace detail {
constexpr uint8_t desc = flag::owner_only | flag::latched; // RX descriptor, EMU block
constexpr uint64_t mib = 1u << 20;
constexpr uint64_t float_half = 0x3F000000;    // 0.5f
constexpr uint64_t float_quarter = 0x3E800000; // 0.25f
constexpr uint32_t scene_caps = cap::emulator | cap::rf;
constexpr uint32_t emu_tx_caps = cap::emulator | cap::tx;
constexpr uint32_t tx_burst_caps = cap::tx | cap::tx_bursts;
constexpr uint32_t ml = cap::multi_link;
constexpr uint32_t emu_link_caps = cap::emulator | cap::multi_link;
constexpr uint32_t rc = cap::rate_control;
constexpr uint32_t sh = cap::multi_link | cap::shares;
constexpr uint32_t ml_rc = cap::multi_link | cap::rate_control;
constexpr uint32_t rc_tx = cap::rate_control | cap::tx;
constexpr uint32_t rcl = cap::rc_links;
constexpr uint32_t none32 = 0xFFFFFFFF;
constexpr auto V = reset_kind::value;
constexpr auto D = reset_kind::device;
constexpr auto L = reset_kind::live;
constexpr auto RO = access::ro;
constexpr auto RW = access::rw;
constexpr auto WO = access::wo;
} // namespace detail

// clang-format off
//! The register map, in address order within each block.
inline constexpr register_info register_table[] = {
#define ROW(b, off, name, bits, mode, flags, cap, reset, value, meaning) \
    { block::b, off, name, bits, 1, detail::mode, flags, cap, detail::reset, value, meaning }
    ROW(identity, 0x00, "ID_MAGIC",            32, RO, 0, 0, V, magic_value, "\"GRDM\""),
    ROW(identity, 0x04, "ID_VERSION",          32, RO, 0, 0, V, map_version, "map version, major 31..16, minor 15..0"),
    ROW(identity, 0x08, "ID_CAPABILITIES",     32, RO, 0, 0, D, 0, "cap::* bits"),
    ROW(identity, 0x0C, "ID_NUM_LINKS",        32, RO, 0, 0, D, 0, "Ethernet links with RoCEv2"),
    ROW(identity, 0x10, "ID_NUM_RX_STREAMS",   32, RO, 0, 0, D, 0, "RX streams"),
    ROW(identity, 0x14, "ID_NUM_TX_STREAMS",   32, RO, 0, 0, D, 0, "TX streams (0 without CAP_TX)"),
    ROW(identity, 0x18, "ID_MAX_PAYLOAD",      32, RO, 0, 0, D, 0, "largest bytes per RoCEv2 packet"),
    ROW(identity, 0x1C, "ID_FORMATS",          32, RO, 0, 0, D, 0, "bit n: format n streams"),
    ROW(identity, 0x20, "ID_SERIAL",           64, RO, 0, 0, D, 0, "serial number"),
    ROW(identity, 0x28, "ID_MAX_BURST_WORDS",  32, RO, 0, 0, D, 0, "longest AXIoE burst the device takes, 1..256"),
    ROW(identity, 0x2C, "SCRATCH",             32, RW, 0, 0, V, 0, "no effect; for link tests"),
    ROW(identity, 0x30, "ID_NUM_RF_CHANNELS",  32, RO, 0, 0, D, 0, "RF channels; 0 without RF"),

    ROW(clock,    0x00, "CLOCK_TIME_NS",       64, RO, 0, 0, L, 0, "device time, ns since the Unix epoch"),
    ROW(clock,    0x08, "CLOCK_SET_NOW",       64, WO, 0, cap::time_set, V, 0, "the device time becomes this, now"),
    ROW(clock,    0x10, "CLOCK_SET_PPS",       64, WO, 0, cap::time_set, V, 0, "... at the next PPS edge"),
    ROW(clock,    0x18, "CLOCK_LAST_PPS",      64, RO, 0, cap::time_set, L, 0, "device time at the last PPS edge"),
    ROW(clock,    0x20, "CLOCK_SOURCE",        32, RW, 0, cap::time_set, V, 0, "0 internal, 1 external, 2 GPSDO"),
    ROW(clock,    0x24, "CLOCK_SOURCES",       32, RO, 0, cap::time_set, D, 0, "bit i: source i available"),
    ROW(clock,    0x28, "TIME_SOURCE",         32, RW, 0, cap::time_set, V, 0, "PPS: 0 internal, 1 external, 2 GPSDO"),
    ROW(clock,    0x2C, "TIME_SOURCES",        32, RO, 0, cap::time_set, D, 0, "bit i: source i available"),
    ROW(clock,    0x30, "CLOCK_STATUS",        32, RO, 0, cap::time_set, L, 0, "REF_LOCKED, PPS_PRESENT, PPS_ARMED"),

    ROW(link,     0x00, "LINK_IPV4",           32, RO, 0, 0, D, 0, "source IPv4 address of the link's frames"),
    ROW(link,     0x04, "LINK_MAC_HI",         32, RO, 0, 0, D, 0, "MAC bits 47..32 in bits 15..0"),
    ROW(link,     0x08, "LINK_MAC_LO",         32, RO, 0, 0, D, 0, "MAC bits 31..0"),
    ROW(link,     0x0C, "LINK_UDP_SPORT",      32, RO, 0, 0, D, 0, "UDP source port of its RoCEv2 frames"),
    ROW(link,     0x10, "LINK_MTU",            32, RO, 0, 0, D, 0, "IP MTU of the link"),
    ROW(link,     0x14, "LINK_STATUS",         32, RO, 0, 0, L, 0, "bit 0: up"),
    ROW(link,     0x18, "LINK_WEIGHT",         32, RW, 0, 0, V, 1, "default weight of destinations on the link"),
    ROW(link,     0x1C, "LINK_ROCE_PORT",      32, RO, 0, 0, D, 0, "UDP port the link receives RoCEv2 on"),
    ROW(link,     0x20, "LINK_TX_PACKETS",     64, RO, 0, 0, V, 0, "packets sent on the link since reset"),
    ROW(link,     0x28, "LINK_TX_BYTES",       64, RO, 0, 0, V, 0, "IPv4 bytes of those packets"),
    ROW(link,     0x30, "LINK_RX_PACKETS",     64, RO, 0, 0, V, 0, "packets received on its RoCE port since reset"),
    ROW(link,     0x38, "LINK_CONTROL",        32, RW, 0, detail::ml, V, 1, "1 up (written: rejoin), 2 down by the host"),
    ROW(link,     0x3C, "LINK_DOWN_EVENTS",    32, RO, 0, detail::ml, V, 0, "times the link went out of the schedules; wraps"),
    ROW(link,     0x40, "LINK_CAPACITY",       64, RO, 0, detail::ml, L, 0, "bytes per second it carries; 0: unknown"),

    ROW(rx,       0x00, "RX_COMMAND",          32, WO, 0, 0, V, 0, "1 START, 2 STOP"),
    ROW(rx,       0x04, "RX_STATUS",           32, RO, 0, 0, V, 0, "RUNNING, DONE, ERROR, error code 15..8"),
    ROW(rx,       0x08, "RX_DEST_IPV4",        32, RW, detail::desc, 0, V, 0, "host NIC IPv4 address"),
    ROW(rx,       0x0C, "RX_DEST_UDP_PORT",    32, RW, detail::desc, 0, V, 0, "host NIC UDP port"),
    ROW(rx,       0x10, "RX_DEST_QPN",         32, RW, detail::desc, 0, V, 0, "host queue pair number"),
    ROW(rx,       0x14, "RX_START_PSN",        32, RW, detail::desc, 0, V, 0, "PSN of the first packet"),
    ROW(rx,       0x18, "RX_RKEY",             32, RW, detail::desc, 0, V, 0, "remote key of the ring"),
    ROW(rx,       0x1C, "RX_VA",               64, RW, detail::desc, 0, V, 0, "virtual address of ring slot 0"),
    ROW(rx,       0x24, "RX_RING_BYTES",       64, RW, detail::desc, 0, V, 0, "ring size in bytes"),
    ROW(rx,       0x2C, "RX_PAYLOAD_BYTES",    32, RW, detail::desc, 0, V, 1024, "sample bytes per WRITE message"),
    ROW(rx,       0x30, "RX_PATH_MTU",         32, RW, detail::desc, 0, V, 1024, "bytes per packet"),
    ROW(rx,       0x34, "RX_NOTIFY_INTERVAL",  32, RW, detail::desc, 0, V, 16, "every N-th message WITH IMMEDIATE"),
    ROW(rx,       0x38, "RX_RATE_NUM",         32, RW, detail::desc, 0, V, 0, "sample rate numerator"),
    ROW(rx,       0x3C, "RX_RATE_DEN",         32, RW, detail::desc, 0, V, 1, "sample rate denominator"),
    ROW(rx,       0x40, "RX_FORMAT",           32, RW, detail::desc, 0, V, 0, "0 sc16, 1 fc32, 2 sc8"),
    ROW(rx,       0x44, "RX_LINK_MASK",        32, RW, detail::desc, 0, V, 1, "links to send on"),
    ROW(rx,       0x48, "RX_TRANSPORT",        32, RW, detail::desc, 0, V, 0, "0 UC, 1 RC, 2 UDP"),
    ROW(rx,       0x4C, "RX_SOURCE_QPN",       32, RO, 0, 0, D, 0, "the device's QPN for this stream"),
    ROW(rx,       0x50, "RX_START_TIME",       64, RW, detail::desc, 0, V, 0, "device time of sample 0; 0: at START"),
    ROW(rx,       0x58, "RX_NUM_SAMPLES",      64, RW, detail::desc, 0, V, 0, "0: until STOP; else a burst"),
    ROW(rx,       0x60, "RX_RETX_WINDOW_BYTES",32, RW, detail::desc, 0, V, 4 * detail::mib, "RC retransmit window"),
    ROW(rx,       0x64, "RX_DEST_MAC_HI",      32, RW, detail::desc, 0, V, 0, "next-hop MAC bits 47..32 in 15..0"),
    ROW(rx,       0x68, "RX_DEST_MAC_LO",      32, RW, detail::desc, 0, V, 0, "next-hop MAC bits 31..0"),
    ROW(rx,       0x6C, "RX_FIFO_US",          32, RO, 0, 0, D, 0, "FIFO depth in microseconds"),
    ROW(rx,       0x70, "RX_OWNER_TOKEN",      64, WO, 0, cap::ownership, V, 0, "the token of a claim"),
    ROW(rx,       0x78, "RX_OWNER",            32, RW, 0, cap::ownership, V, 0, "read: owner_state; write: RELEASE"),
    ROW(rx,       0x7C, "RX_LEASE_MS",         32, RW, 0, cap::ownership, V, lease::default_ms, "owner's lease"),
    ROW(rx,       0x80, "RX_PACKETS_SENT",     64, RO, 0, 0, V, 0, "packets put on the wire"),
    ROW(rx,       0x88, "RX_SAMPLES_EMITTED",  64, RO, 0, 0, V, 0, "samples produced: delivered + lost"),
    ROW(rx,       0x90, "RX_PACKETS_DROPPED",  64, RO, 0, 0, V, 0, "packets not sent"),
    ROW(rx,       0x98, "RX_SAMPLES_DROPPED",  64, RO, 0, 0, V, 0, "samples in those packets"),
    ROW(rx,       0xA0, "RX_IMM_SENT",         64, RO, 0, 0, V, 0, "messages sent WITH IMMEDIATE"),
    ROW(rx,       0xA8, "RX_NAKS_RECEIVED",    32, RO, 0, 0, V, 0, "RC: NAKs received; wraps"),
    ROW(rx,       0xAC, "RX_RETRANSMITS",      32, RO, 0, 0, V, 0, "RC: packets sent again; wraps"),
    ROW(rx,       0xB0, "RX_ZERO_SUBSTITUTED", 64, RO, 0, 0, V, 0, "RC: samples sent as zeros"),
    ROW(rx,       0xB8, "RX_PACKETS_FAULTED",  64, RO, 0, 0, V, 0, "packets sent with an injected fault"),
    ROW(rx,       0xC0, "RX_SAMPLES_FAULTED",  64, RO, 0, 0, V, 0, "samples in those messages"),
    ROW(rx,       0xC8, "RX_PACKETS_DUPLICATED", 64, RO, 0, 0, V, 0, "extra copies sent"),
    ROW(rx,       0xD0, "RX_MESSAGES_DELAYED", 64, RO, 0, 0, V, 0, "messages sent out of order"),
    ROW(rx,       0xD8, "RX_FIRST_MESSAGE",    64, RW, detail::desc, cap::burst_queue, V, 0, "message index of the run's first message"),
    ROW(rx,       0xE0, "RX_SHARES",           32, RW, flag::latched, detail::sh, V, 1, "shares (hosts) of the stream, 1..8"),
    ROW(rx,       0xE4, "RX_SHARE_BLOCK",      32, RW, flag::latched, detail::sh, V, default_share_block, "messages per block of a share, 1..65536"),
    ROW(rx,       0xE8, "RX_SHARE_READY",      32, RO, 0, detail::sh, V, 0, "bit h: share h has a destination that may be active"),
    ROW(rx,       0xEC, "RX_STOP_CAUSE",       32, RO, 0, cap::stop_cause, V, 0, "why the last run ended: stop_cause"),

    ROW(metadata, 0x00, "MD_DEST_IPV4",        32, RW, 0, cap::metadata, V, 0, "host IPv4 address"),
    ROW(metadata, 0x04, "MD_DEST_UDP_PORT",    32, RW, 0, cap::metadata, V, 0, "host UDP port"),
    ROW(metadata, 0x08, "MD_INTERVAL_US",      32, RW, 0, cap::metadata, V, 0, "periodic timestamp interval; 0: none"),
    ROW(metadata, 0x0C, "MD_CONTROL",          32, RW, 0, cap::metadata, V, 0, "bit 0 ENABLE"),
    ROW(metadata, 0x10, "MD_PACKETS_SENT",     64, RO, 0, cap::metadata, V, 0, "records sent since reset"),
    ROW(metadata, 0x18, "MD_PACKETS_DROPPED",  64, RO, 0, cap::metadata, V, 0, "records made, not sent"),
    ROW(metadata, 0x20, "MD_SOURCE_UDP_PORT",  32, RO, 0, cap::metadata, D, 0, "UDP port the records leave from"),

    ROW(emulator, 0x00, "EMU_SIGNAL",          32, RW, detail::desc, cap::emulator, V, 0, "test signal: 0 ramp .. 6 extremes"),
    ROW(emulator, 0x04, "EMU_TONE_FREQ_HZ",    32, RW, detail::desc, cap::emulator, V, 100000, "tone frequency, int32 Hz"),
    ROW(emulator, 0x08, "EMU_AMPLITUDE",       32, RW, detail::desc, cap::emulator, V, detail::float_half, "float32 bits"),
    ROW(emulator, 0x0C, "EMU_SEED",            32, RW, detail::desc, cap::emulator, V, 1, "noise seed"),
    ROW(emulator, 0x10, "EMU_FAULT_SEED",      32, RW, detail::desc, cap::emulator, V, 0, "seed of the impairments"),
    ROW(emulator, 0x14, "EMU_LOSS_PPM",        32, RW, detail::desc, cap::emulator, V, 0, "loss bursts per million messages"),
    ROW(emulator, 0x18, "EMU_LOSS_BURST",      32, RW, detail::desc, cap::emulator, V, 1, "messages lost per burst"),
    ROW(emulator, 0x1C, "EMU_DUPLICATE_PPM",   32, RW, detail::desc, cap::emulator, V, 0, "messages sent twice, ppm"),
    ROW(emulator, 0x20, "EMU_CORRUPT_PPM",     32, RW, detail::desc, cap::emulator, V, 0, "payload bit flips, ppm"),
    ROW(emulator, 0x24, "EMU_DELAY_PPM",       32, RW, detail::desc, cap::emulator, V, 0, "messages held back, ppm"),
    ROW(emulator, 0x28, "EMU_DELAY_MESSAGES",  32, RW, detail::desc, cap::emulator, V, 0, "how many later messages pass them"),
    ROW(emulator, 0x40, "EMU_FAULT_COUNT",     32, RW, detail::desc, cap::emulator, V, 0, "fault table entries used"),
    { block::emulator, 0x44, "EMU_FAULT_TABLE", 32, 24, access::rw, detail::desc, cap::emulator, reset_kind::value, 0,
      "8 entries: message lo, message hi, fault kind" },
    ROW(emulator, 0xA4, "EMU_FAULT_LOG",       32, RO, flag::owner_only, cap::emulator, V, 0xFFFFFFFF, "FIFO: 3 words per fault"),
    ROW(emulator, 0xA8, "EMU_FAULT_LOG_LEVEL", 32, RO, flag::owner_only, cap::emulator, V, 0, "records waiting in the log"),

    ROW(rf,       0x00, "RF_FREQ",             64, RW, 0, cap::rf, D, 0, "center frequency, mHz"),
    ROW(rf,       0x08, "RF_FREQ_TIME",        64, RO, 0, cap::rf, V, 0, "device time from which RF_FREQ holds"),
    ROW(rf,       0x10, "RF_FREQ_MIN",         64, RO, 0, cap::rf, D, 0, "lowest center frequency, mHz"),
    ROW(rf,       0x18, "RF_FREQ_MAX",         64, RO, 0, cap::rf, D, 0, "highest center frequency, mHz"),
    ROW(rf,       0x20, "RF_FREQ_STEP",        32, RO, 0, cap::rf, D, 0, "tuning resolution, mHz"),
    ROW(rf,       0x24, "RF_GAIN",             32, RW, 0, cap::rf, D, 0, "gain, int32 milli-dB"),
    ROW(rf,       0x28, "RF_GAIN_TIME",        64, RO, 0, cap::rf, V, 0, "device time from which RF_GAIN holds"),
    ROW(rf,       0x30, "RF_GAIN_MIN",         32, RO, 0, cap::rf, D, 0, "int32 milli-dB"),
    ROW(rf,       0x34, "RF_GAIN_MAX",         32, RO, 0, cap::rf, D, 0, "int32 milli-dB"),
    ROW(rf,       0x38, "RF_GAIN_STEP",        32, RO, 0, cap::rf, D, 0, "milli-dB"),
    ROW(rf,       0x3C, "RF_BANDWIDTH",        32, RW, 0, cap::rf, D, 0, "analog filter bandwidth, Hz"),
    ROW(rf,       0x40, "RF_BANDWIDTH_MIN",    32, RO, 0, cap::rf, D, 0, "Hz"),
    ROW(rf,       0x44, "RF_BANDWIDTH_MAX",    32, RO, 0, cap::rf, D, 0, "Hz"),
    ROW(rf,       0x48, "RF_ANTENNA",          32, RW, 0, cap::rf, V, 0, "selected antenna input"),
    ROW(rf,       0x4C, "RF_ANTENNAS",         32, RO, 0, cap::rf, D, 0, "antenna inputs"),
    ROW(rf,       0x50, "RF_STATUS",           32, RO, 0, cap::rf, L, 0, "bit 0 LO_LOCKED"),

    ROW(command_queue, 0x00, "CMD_TIME",       64, RW, 0, cap::command_queue, V, 0, "device time the command executes at; 0: now"),
    ROW(command_queue, 0x08, "CMD_ADDR",       32, RW, 0, cap::command_queue, V, 0, "the register it writes"),
    ROW(command_queue, 0x0C, "CMD_DATA",       64, RW, 0, cap::command_queue, V, 0, "the value"),
    ROW(command_queue, 0x14, "CMD_PUSH",       32, WO, 0, cap::command_queue, V, 0, "1 PUSH, 2 CLEAR"),
    ROW(command_queue, 0x18, "CMD_STATUS",     32, RO, 0, cap::command_queue, D, 0, "queued 7..0, CAPACITY 15..8, ERROR 23..16"),
    ROW(command_queue, 0x1C, "CMD_EXECUTED",   32, RO, 0, cap::command_queue, V, 0, "commands executed; wraps"),
    ROW(command_queue, 0x20, "CMD_LATE",       32, RO, 0, cap::command_queue, V, 0, "of those, late when pushed; wraps"),

    ROW(scene,    0x00, "EMU_SCENE_TONES",     32, RW, 0, detail::scene_caps, V, 1, "tones in use, 0..8"),
    ROW(scene,    0x04, "EMU_SCENE_NOISE",     32, RW, 0, detail::scene_caps, V, 0, "float32 bits: noise deviation at 0 dB"),
#define TONE(i, freq, amplitude) \
    ROW(scene, 0x10 + 0x10 * i, "EMU_SCENE_FREQ_" #i, 64, RW, 0, detail::scene_caps, V, freq, "tone " #i ": RF frequency, mHz"), \
    ROW(scene, 0x18 + 0x10 * i, "EMU_SCENE_AMPLITUDE_" #i, 32, RW, 0, detail::scene_caps, V, amplitude, "tone " #i ": float32 bits")
    TONE(0, 100250000000ull, detail::float_quarter),
    TONE(1, 0, 0), TONE(2, 0, 0), TONE(3, 0, 0), TONE(4, 0, 0), TONE(5, 0, 0), TONE(6, 0, 0), TONE(7, 0, 0),
#undef TONE

    ROW(burst_queue, 0x00, "BQ_TIME",          64, RW, 0, cap::burst_queue, V, 0, "device time of the burst's sample 0; 0: seamless"),
    ROW(burst_queue, 0x08, "BQ_SAMPLES",       64, RW, 0, cap::burst_queue, V, 0, "samples in the burst, at least 1"),
    ROW(burst_queue, 0x10, "BQ_FIRST_MESSAGE", 64, RW, 0, cap::burst_queue, V, bq::next_message, "message index of its first message; all ones: the next"),
    ROW(burst_queue, 0x18, "BQ_PUSH",          32, WO, 0, cap::burst_queue, V, 0, "1 PUSH, 2 CLEAR"),
    ROW(burst_queue, 0x1C, "BQ_STATUS",        32, RO, 0, cap::burst_queue, D, 0, "queued 7..0, CAPACITY 15..8, ERROR 23..16"),

    ROW(tx,       0x00, "TX_COMMAND",          32, WO, 0, cap::tx, V, 0, "1 START, 2 STOP"),
    ROW(tx,       0x04, "TX_STATUS",           32, RO, 0, cap::tx, V, 0, "RUNNING, DONE, ERROR, error code 15..8"),
    ROW(tx,       0x08, "TX_HOST_IPV4",        32, RW, detail::desc, cap::tx, V, 0, "host NIC IPv4 address"),
    ROW(tx,       0x0C, "TX_HOST_UDP_PORT",    32, RW, detail::desc, cap::tx, V, 0, "host NIC UDP port"),
    ROW(tx,       0x10, "TX_HOST_QPN",         32, RW, detail::desc, cap::tx, V, 0, "host RC QP: READ responder, SEND receiver"),
    ROW(tx,       0x14, "TX_START_PSN",        32, RW, detail::desc, cap::tx, V, 0, "PSN of the device's first request"),
    ROW(tx,       0x18, "TX_RKEY",             32, RW, detail::desc, cap::tx, V, 0, "rkey of the TX ring"),
    ROW(tx,       0x1C, "TX_VA",               64, RW, detail::desc, cap::tx, V, 0, "VA of ring slot 0"),
    ROW(tx,       0x24, "TX_RING_BYTES",       64, RW, detail::desc, cap::tx, V, 0, "ring size in bytes"),
    ROW(tx,       0x2C, "TX_PAYLOAD_BYTES",    32, RW, detail::desc, cap::tx, V, 1024, "bytes per READ (one message)"),
    ROW(tx,       0x30, "TX_PATH_MTU",         32, RW, detail::desc, cap::tx, V, 1024, "READ RESPONSE packet size"),
    ROW(tx,       0x34, "TX_NOTIFY_INTERVAL",  32, RW, detail::desc, cap::tx, V, 16, "a SEND WITH IMMEDIATE every N messages"),
    ROW(tx,       0x38, "TX_RATE_NUM",         32, RW, detail::desc, cap::tx, V, 0, "sample rate numerator"),
    ROW(tx,       0x3C, "TX_RATE_DEN",         32, RW, detail::desc, cap::tx, V, 1, "sample rate denominator"),
    ROW(tx,       0x40, "TX_FORMAT",           32, RW, detail::desc, cap::tx, V, 0, "0 sc16, 1 fc32"),
    ROW(tx,       0x44, "TX_LINK_MASK",        32, RW, detail::desc, cap::tx, V, 1, "link the requests leave on"),
    ROW(tx,       0x48, "TX_CTRL_RKEY",        32, RW, detail::desc, cap::tx, V, 0, "rkey of the control page"),
    ROW(tx,       0x4C, "TX_SOURCE_QPN",       32, RO, 0, cap::tx, D, 0, "the device's QPN for this stream"),
    ROW(tx,       0x50, "TX_START_TIME",       64, RW, detail::desc, cap::tx, V, 0, "device time of sample 0; 0: START + lead"),
    ROW(tx,       0x58, "TX_NUM_SAMPLES",      64, RW, detail::desc, cap::tx, V, 0, "0: until STOP; else a burst"),
    ROW(tx,       0x60, "TX_CTRL_VA",          64, RW, detail::desc, cap::tx, V, 0, "VA of the control page"),
    ROW(tx,       0x68, "TX_MAX_RD_ATOMIC",    32, RW, detail::desc, cap::tx, V, 1, "READs outstanding at most, 1..16"),
    ROW(tx,       0x6C, "TX_RUN",              32, RW, detail::desc, cap::tx, V, 0, "run number of the control page"),
    ROW(tx,       0x70, "TX_OWNER_TOKEN",      64, WO, 0, cap::tx | cap::ownership, V, 0, "the token of a claim"),
    ROW(tx,       0x78, "TX_OWNER",            32, RW, 0, cap::tx | cap::ownership, V, 0, "read: owner_state; write: RELEASE"),
    ROW(tx,       0x7C, "TX_LEASE_MS",         32, RW, 0, cap::tx | cap::ownership, V, lease::default_ms, "owner's lease"),
    ROW(tx,       0x80, "TX_SAMPLES_PLAYED",   64, RO, 0, cap::tx, V, 0, "samples played intact"),
    ROW(tx,       0x88, "TX_UNDERFLOW_SAMPLES",64, RO, 0, cap::tx, V, 0, "zeros played: not committed in time"),
    ROW(tx,       0x90, "TX_LATE_ZERO_SAMPLES",64, RO, 0, cap::tx, V, 0, "zeros played: committed, not fetched in time"),
    ROW(tx,       0x98, "TX_READS",            64, RO, 0, cap::tx, V, 0, "sample READs sent, re-reads included"),
    ROW(tx,       0xA0, "TX_REREADS",          64, RO, 0, cap::tx, V, 0, "READs sent again"),
    ROW(tx,       0xA8, "TX_LEAD_NS",          32, RO, 0, cap::tx, V, 0, "current lead time"),
    ROW(tx,       0xAC, "TX_RTT_NS",           32, RO, 0, cap::tx, V, 0, "READ round trip, p99 estimate"),
    ROW(tx,       0xB0, "TX_CHECK_SAMPLES",    64, RO, 0, cap::tx, V, 0, "emulator: samples compared with the ramp"),
    ROW(tx,       0xB8, "TX_CHECK_MISMATCHES", 64, RO, 0, cap::tx, V, 0, "emulator: of those, wrong"),
    ROW(tx,       0xC0, "TX_SAMPLES_FETCHED",  64, RO, 0, cap::tx, V, 0, "samples whose READ completed"),
    ROW(tx,       0xC8, "TX_NOTIFIES_SENT",    64, RO, 0, cap::tx, V, 0, "SENDs with immediate sent"),
    ROW(tx,       0xD0, "TX_SAMPLES_NOT_PLAYED", 64, RO, 0, cap::tx, V, 0, "committed, not played because of STOP"),
    ROW(tx,       0xD8, "TX_MIN_LEAD_NS",      32, RW, detail::desc, cap::tx, V, 200000, "lower bound of the lead"),
    ROW(tx,       0xDC, "TX_MAX_LEAD_NS",      32, RW, detail::desc, cap::tx, V, 50000000, "upper bound of the lead"),
    ROW(tx,       0xE0, "TX_DROPPED_SAMPLES",  64, RO, 0, detail::tx_burst_caps, V, 0, "committed items of bursts dropped: time_error"),
    ROW(tx,       0xE8, "TX_IDLE_TICKS",       64, RO, 0, detail::tx_burst_caps, V, 0, "converter ticks outside every burst"),
    ROW(tx,       0xF0, "TX_BURSTS_DONE",      32, RO, 0, detail::tx_burst_caps, V, 0, "bursts played to their END; wraps"),
    ROW(tx,       0xF4, "TX_TIME_ERRORS",      32, RO, 0, detail::tx_burst_caps, V, 0, "STARTs whose time had passed; wraps"),

    ROW(tx_emulator, 0x00, "EMU_TX_CHECK",     32, RW, detail::desc, detail::emu_tx_caps, V, 0, "1: check played samples against the ramp"),
    ROW(tx_emulator, 0x04, "EMU_TX_LOSS_PPM",  32, RW, detail::desc, detail::emu_tx_caps, V, 0, "READ RESPONSE packets dropped, ppm"),
    ROW(tx_emulator, 0x08, "EMU_TX_FAULT_SEED",32, RW, detail::desc, detail::emu_tx_caps, V, 0, "seed of those drops"),

    ROW(tx_burst_queue, 0x00, "TBQ_TIME",      64, RW, flag::owner_only, detail::tx_burst_caps, V, 0, "START: device time of its first sample; 0: as soon as possible"),
    ROW(tx_burst_queue, 0x08, "TBQ_ITEM",      64, RW, flag::owner_only, detail::tx_burst_caps, V, 0, "START: first item; END: one past the last"),
    ROW(tx_burst_queue, 0x10, "TBQ_RESERVED",  64, RW, flag::owner_only, detail::tx_burst_caps, V, 0, "no effect; written 0 by the push burst"),
    ROW(tx_burst_queue, 0x18, "TBQ_PUSH",      32, WO, 0, detail::tx_burst_caps, V, 0, "1 START, 2 CLEAR, 3 END"),
    ROW(tx_burst_queue, 0x1C, "TBQ_STATUS",    32, RO, 0, detail::tx_burst_caps, D, 0, "queued 7..0, CAPACITY 15..8, ERROR 23..16"),

    ROW(rx_destination, 0x00, "DST_IPV4",      32, RW, detail::desc, detail::ml, V, 0, "host NIC IPv4 address"),
    ROW(rx_destination, 0x04, "DST_UDP_PORT",  32, RW, detail::desc, detail::ml, V, 0, "host NIC UDP port"),
    ROW(rx_destination, 0x08, "DST_QPN",       32, RW, detail::desc, detail::ml, V, 0, "host QP; 0: not used"),
    ROW(rx_destination, 0x0C, "DST_START_PSN", 32, RW, detail::desc, detail::ml, V, 0, "PSN of its first packet"),
    ROW(rx_destination, 0x10, "DST_RKEY",      32, RW, detail::desc, detail::ml, V, 0, "rkey of the ring on that NIC"),
    ROW(rx_destination, 0x14, "DST_VA",        64, RW, detail::desc, detail::ml, V, 0, "VA of ring slot 0"),
    ROW(rx_destination, 0x1C, "DST_RING_BYTES",64, RW, detail::desc, detail::ml, V, 0, "ring bytes"),
    ROW(rx_destination, 0x24, "DST_LINK",      32, RW, detail::desc, detail::ml, V, 0, "the device link it is reached over"),
    ROW(rx_destination, 0x28, "DST_WEIGHT",    32, RW, flag::owner_only, detail::ml, V, 1, "messages per period of the schedule, 0..65535"),
    ROW(rx_destination, 0x2C, "DST_SHARE",     32, RO, 0, detail::sh, V, 0, "its share, d / (8 / RX_SHARES); all ones: none"),
    ROW(rx_destination, 0x30, "DST_MESSAGES",  64, RO, 0, detail::ml, V, 0, "messages scheduled to it since START"),
    ROW(rx_destination, 0x38, "DST_STATE",     32, RO, 0, detail::ml, V, 0, "ACTIVE, DEVICE_DOWN, HOST_DOWN, USED"),
    ROW(rx_destination, 0x3C, "DST_PATH_NS",   32, RW, 0, detail::ml_rc, V, 0, "the host's measure of the path, ns; 0 none"),


    ROW(rx_epoch, 0x00, "EPOCH_COUNT",         32, RO, 0, detail::ml, V, 0, "epochs begun in the run"),
    ROW(rx_epoch, 0x04, "EPOCH_KEPT",          32, RO, 0, detail::ml, D, 0, "entries kept: epoch k is entry k mod this"),
    ROW(rx_epoch, 0x08, "EPOCH_SCHEDULED",     64, RO, 0, detail::ml, V, 0, "local messages scheduled so far"),
#define EPOCH(j) \
    ROW(rx_epoch, 0x10 + 0x20 * j, "EPOCH_FIRST_" #j, 64, RO, 0, detail::ml, V, 0, "entry " #j ": first local message"), \
    ROW(rx_epoch, 0x18 + 0x20 * j, "EPOCH_NUMBER_" #j, 32, RO, 0, detail::ml, V, detail::none32, "entry " #j ": its epoch; all ones: none"), \
    ROW(rx_epoch, 0x1C + 0x20 * j, "EPOCH_CAUSE_" #j, 32, RO, 0, detail::ml, V, 0, "entry " #j ": cause 7..0, link 15..8"), \
    { block::rx_epoch, 0x20 + 0x20 * j, "EPOCH_WEIGHTS_" #j, 32, 4, access::ro, 0, detail::ml, reset_kind::value, 0, \
      "entry " #j ": 16-bit weights, destination 2i low, 2i+1 high" }
    EPOCH(0), EPOCH(1), EPOCH(2), EPOCH(3),
#undef EPOCH

    ROW(emu_link, 0x00, "EMU_LINK_DOWN",       32, RW, 0, detail::emu_link_caps, V, 0, "1: every frame dropped, LINK_STATUS down"),
    ROW(emu_link, 0x04, "EMU_LINK_LOSS_PPM",   32, RW, 0, detail::emu_link_caps, V, 0, "frames dropped per million"),
    ROW(emu_link, 0x08, "EMU_LINK_DELAY_US",   32, RW, 0, detail::emu_link_caps, V, 0, "every frame held this long"),
    ROW(emu_link, 0x0C, "EMU_LINK_REORDER_US", 32, RW, 0, detail::emu_link_caps, V, 0, "and up to this much longer, at random"),
    ROW(emu_link, 0x10, "EMU_LINK_RATE",       64, RW, 0, detail::emu_link_caps, V, 0, "bytes per second at most; 0: none"),
    ROW(emu_link, 0x18, "EMU_LINK_SEED",       32, RW, 0, detail::emu_link_caps, V, 0, "seed of loss and reorder"),
    ROW(emu_link, 0x1C, "EMU_LINK_QUEUE_US",   32, RW, 0, detail::emu_link_caps, V, 5000, "longest wait for the rate before a drop"),
    ROW(emu_link, 0x20, "EMU_LINK_FRAMES_DROPPED",  64, RO, 0, detail::emu_link_caps, V, 0, "frames the emulated link dropped"),
    ROW(emu_link, 0x28, "EMU_LINK_SAMPLES_DROPPED", 64, RO, 0, detail::emu_link_caps, V, 0, "samples of the messages it cut"),
    ROW(emu_link, 0x30, "EMU_LINK_FRAMES_DELAYED",  64, RO, 0, detail::emu_link_caps, V, 0, "frames it held (delay, reorder, rate)"),
    ROW(emu_link, 0x38, "EMU_LINK_FRAMES_PASSED",   64, RO, 0, detail::emu_link_caps, V, 0, "frames it passed on"),

    ROW(ctrl,     0x00, "CTRL_POLICY",         32, RW, 0, detail::rc, V, 0, "0 none, 1 water filling, 2 shortest RTT"),
    ROW(ctrl,     0x04, "CTRL_PERIOD_US",      32, RW, 0, detail::rc, V, ctrl::default_period_us, "the loop runs at most once per period"),
    ROW(ctrl,     0x08, "CTRL_EVENTS",         64, RO, 0, detail::rc, V, 0, "events that arrived since reset"),
    ROW(ctrl,     0x10, "CTRL_COALESCED",      64, RO, 0, detail::rc, V, 0, "events replaced while pending"),
    ROW(ctrl,     0x18, "CTRL_RUNS",           64, RO, 0, detail::rc, V, 0, "runs of the loop since reset"),
    ROW(ctrl,     0x20, "CTRL_NAK_CUTS",       64, RO, 0, detail::rc, V, 0, "links cut by water filling for new NAKs"),
    ROW(ctrl,     0x28, "CTRL_TX_NAK_CUTS",    64, RO, 0, detail::rc_tx, V, 0, "links' READ RESPONSEs cut by water filling for new re-reads"),
    { block::ctrl, 0x40, "TX_RATE_LIMIT", 32, 8, access::rw, 0, detail::rc_tx, reset_kind::value, 0,
      "TX stream t at 4 t: the host's limit of its READs, KiB/s of sample bytes; 0 none" },
    { block::ctrl, 0x60, "CTRL_TX_RATE", 32, 8, access::ro, 0, detail::rc_tx, reset_kind::value, 0,
      "TX stream t at 4 t: the rate the device holds its READs to, KiB/s; 0 none" },
    { block::ctrl, 0x80, "RX_RATE_LIMIT", 32, 16, access::rw, 0, detail::rc, reset_kind::value, 0,
      "stream s at 4 s: the host's limit, KiB/s of sample bytes; 0 none" },
    { block::ctrl, 0xC0, "CTRL_RATE", 32, 16, access::ro, 0, detail::rc, reset_kind::value, 0,
      "stream s at 4 s: the rate the device holds it to, KiB/s; 0 none" },

    ROW(rx_share, 0x00, "SHARE_OWNER_TOKEN",   64, WO, 0, detail::sh, V, 0, "the token of a claim of the share"),
    ROW(rx_share, 0x08, "SHARE_OWNER",         32, RW, 0, detail::sh, V, 0, "read: owner_state; write: RELEASE"),
    ROW(rx_share, 0x0C, "SHARE_LEASE_MS",      32, RW, 0, detail::sh, V, lease::default_ms, "the share owner's lease"),
    ROW(rx_share, 0x10, "SHARE_SAMPLES_EMITTED", 64, RO, 0, detail::sh, V, 0, "samples of the share's messages produced"),
    ROW(rx_share, 0x18, "SHARE_START_TIME",    64, RO, 0, detail::sh, V, 0, "the run's RX_START_TIME as used; 0 before START"),
    ROW(rx_dest_rc, 0x00, "DST_SOURCE_QPN",    32, RO, 0, detail::rcl, D, 0, "the device QP it sends from"),
    ROW(rx_dest_rc, 0x04, "DST_RTT_NS",        32, RO, 0, detail::rcl, V, 0, "smoothed RTT from its ACKs, ns; 0 none yet"),
    ROW(rx_dest_rc, 0x08, "DST_RTT_SAMPLES",   32, RO, 0, detail::rcl, V, 0, "ACKs that gave an RTT sample; wraps"),
    ROW(rx_dest_rc, 0x10, "DST_RETRANSMITS",   64, RO, 0, detail::rcl, V, 0, "packets it sent again"),
    ROW(rx_dest_rc, 0x18, "DST_NAKS",          64, RO, 0, detail::rcl, V, 0, "NAKs of its packets"),
    ROW(rx_dest_rc, 0x20, "DST_ABANDONED",     64, RO, 0, detail::rcl, V, 0, "packets it gave up on"),
#undef ROW
};
// clang-format on

constexpr size_t register_count = std::size(register_table);

namespace detail {
constexpr bool same_name(const char* a, const char* b)
{
    while (*a && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}
} // namespace detail

//! The register named \p name; at compile time, a name not in the table fails to build.
constexpr const register_info& named(const char* name)
{
    for (const register_info& r : register_table)
        if (detail::same_name(r.name, name))
            return r;
    throw std::logic_error("no register of that name in regs::register_table");
}

//! The register of block \p b one of whose words is at \p offset, or null: a hole.
constexpr const register_info* covering(block b, uint32_t offset)
{
    for (const register_info& r : register_table)
        if (r.where == b && offset >= r.offset && offset < r.end())
            return &r;
    return nullptr;
}

//! An address decoded: which instance of which block, which register, which word of it.
struct decoded_address {
    block where = block::identity;
    unsigned index = 0;           //!< instance of the block
    uint32_t offset = 0;          //!< byte offset in the block
    const register_info* reg = 0; //!< null: no register there (DECERR)
};

//! What a device with \p capabilities, \p links links, \p rx_streams RX streams,
//! \p rf_channels RF channels and \p tx_streams TX streams has at \p address (reg
//! null: nothing, DECERR).
RDMA_TRANSPORT_API decoded_address decode(uint32_t address,
                                          uint32_t capabilities,
                                          unsigned links,
                                          unsigned rx_streams,
                                          unsigned rf_channels = 0,
                                          unsigned tx_streams = 0);

//! One AXIoE burst of a larger access: \p words words from block offset \p offset.
struct burst {
    uint32_t offset;
    uint32_t words;
};

//! A register that must be read or written in one burst is longer than the device's
//! ID_MAX_BURST_WORDS allows.
class burst_limit_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/*!
 * The bursts of at most \p max_words words that access the registers of block \p b
 * between offsets \p first and \p end (exclusive): holes are left out, a 64-bit value
 * is never cut in two (its halves come from one instant), and with \p writable_only
 * read-only registers are left out too. Throws burst_limit_error naming the register if
 * \p max_words is below its width, std::invalid_argument if \p first or \p end cut one.
 */
std::vector<burst>
plan_bursts(block b, uint32_t first, uint32_t end, size_t max_words, bool writable_only);

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
