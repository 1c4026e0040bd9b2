/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_REGISTER_FILE_H
#define INCLUDED_RDMA_EMU_REGISTER_FILE_H

#include "../axioe/axioe_server.h"
#include "../regs/register_fields.h"
#include "../regs/register_map.h"
#include "../util/log.h"
#include "command_queue.h"
#include "device_clock.h"
#include "device_controller.h"
#include "link_channel.h"
#include "link_set.h"
#include "metadata_sender.h"
#include "rf_channel.h"
#include "rx_engine.h"
#include "tx_engine.h"
#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

//! What the identity block reports.
struct device_identity {
    uint64_t serial = 0;
    uint32_t capabilities = 0;
    uint32_t fifo_us = rx_descriptor{}.fifo_us; //!< RX_FIFO_US of every stream
    //! ID_MAX_BURST_WORDS; the AXIoE server must refuse longer bursts (axioe::server).
    uint32_t max_burst_words = axioe::max_burst_words;
    //! Master clock in Hz: rates are master_clock_hz / d for an integer d (written
    //! RATE_NUM/RATE_DEN are replaced by the nearest); 0: every rational rate.
    uint32_t master_clock_hz = 0;
};

//! The radio behind the register file (docs/radio.md); a part left out answers DECERR
//! (its capability must be left out of the identity too).
struct device_radio {
    device_clock* clock = nullptr;     //!< null: a clock of the register file's own
    std::vector<rf_channel*> channels; //!< RF channel s of RX stream s (CAP_RF)
    command_queue* commands = nullptr; //!< CAP_COMMAND_QUEUE
};

//! What a link counts (LINK_TX_PACKETS, LINK_TX_BYTES, LINK_RX_PACKETS), since reset.
struct link_stats {
    std::atomic<uint64_t> tx_packets{ 0 };
    std::atomic<uint64_t> tx_bytes{ 0 }; //!< IPv4 bytes: headers included
    std::atomic<uint64_t> rx_packets{ 0 };
};

//! A link as the link block reports it.
struct link_info {
    uint32_t ipv4 = 0;
    std::array<uint8_t, 6> mac{};
    uint16_t udp_port = 0;  //!< where RoCEv2 (ACK/NAK) comes back
    uint16_t udp_sport = 0; //!< source port of its frames
    unsigned mtu = 0;
    const link_stats* stats = nullptr; //!< null: its counters read 0
    link_channel* channel = nullptr;   //!< its emulated network (EMU_LINK_*), or none
};

/*!
 * The device's register file (docs/register-map.md), executing AXIoE accesses. Holds
 * the descriptor registers the host writes, hands them to the RX engines on START and
 * answers counter and status reads from the engines. A burst is served under one lock
 * from one snapshot of the engines, so 64-bit values read in one burst are consistent.
 * Which registers exist, their access, reset values and packing come from the register
 * table (regs/register_table.h), for the capabilities in the identity.
 *
 * With cap::ownership in the identity, streams have owners (docs/register-map.md,
 * "Ownership"): the client that claimed a stream alone may configure, start and stop it
 * and read its descriptor, until it releases it or stays silent for its lease. Leases
 * are checked on every access and by tick(), so that a dead owner's stream stops even
 * when nobody else talks to the device.
 */
class register_file : public axioe::register_target
{
public:
    //! \p metadata (may be null): the metadata channel behind the metadata block;
    //! \p radio: the clock, RF channels and command queue (map 1.3).
    //! \p tx: the TX engines (with cap::tx in the identity; docs/transmit.md).
    //! \p link_states: the links as the streams see them (with cap::multi_link: their
    //! control and status; docs/register-map.md, "Several links").
    //! \p controller: the controller block (with cap::rate_control; "Controller").
    register_file(const device_identity& identity,
                  std::vector<link_info> links,
                  std::vector<rx_engine*> engines,
                  metadata_sender* metadata = nullptr,
                  device_radio radio = {},
                  std::vector<tx_engine*> tx = {},
                  link_set* link_states = nullptr,
                  device_controller* controller = nullptr);

    axioe::status read(const socket_address& client,
                       uint32_t address,
                       uint32_t* out,
                       size_t count,
                       bool fixed) override;
    axioe::status write(const socket_address& client,
                        uint32_t address,
                        const uint32_t* words,
                        size_t count,
                        bool fixed) override;
    //! Ends the runs of owners whose lease lapsed; returns when the next one may.
    std::chrono::microseconds tick() override;

    //! The descriptor currently programmed for RX stream \p s (for tests and logs).
    rx_descriptor rx_descriptor_of(unsigned s) const;
    //! The descriptor currently programmed for TX stream \p t.
    tx_descriptor tx_descriptor_of(unsigned t) const;

    //! Who owns RX stream \p s, as of the last access or tick (for tests and logs).
    struct owner_info {
        bool owned = false;
        socket_address client;
        uint32_t lease_ms = regs::lease::default_ms;
    };
    owner_info owner_of(unsigned s) const;
    //! Who owns TX stream \p t (its owner follows the RX streams' in the table).
    owner_info tx_owner_of(unsigned t) const
    {
        return owner_of(static_cast<unsigned>(d_engines.size()) + t);
    }

private:
    static constexpr size_t block_words = regs::rx_stride / 4;
    using register_words = std::array<uint32_t, block_words>; // one block's words
    using destination_words = std::array<uint32_t, regs::rx_dest_stride / 4>;

    struct snapshot {
        uint64_t time_ns = 0;
        uint64_t last_pps_ns = 0;
        uint32_t clock_status = 0;
        std::vector<regs::rf_values> rf;
        uint32_t cmd_status = 0;
        uint32_t cmd_executed = 0;
        uint32_t cmd_late = 0;
        std::vector<rx_counters> counters;
        std::vector<uint32_t> status;
        std::vector<uint64_t> start_time_ns;
        std::vector<emu::tx_counters> tx_stats;
        std::vector<uint32_t> tx_status;
        std::vector<uint64_t> tx_start_time_ns;
        std::vector<regs::link_values> links;
        metadata_registers metadata;
        // Each RX stream's EPOCH_SCHEDULED, then EPOCH_COUNT, read in that order: every
        // epoch that begins below the schedule read is counted (the engine records an
        // epoch before it schedules its first message), so a burst over the epoch
        // block is one instant, as AXIoE promises (docs/axioe.md, section 6).
        struct epoch_header {
            uint64_t scheduled = 0;
            uint32_t count = 0;
        };
        std::vector<epoch_header> epochs;
    };
    // The owner of a stream; the token is never read back, only compared.
    struct owner {
        bool owned = false;
        socket_address client;
        uint64_t token = 0;
        uint32_t lease_ms = regs::lease::default_ms;
        int64_t last_heard_ns = 0; // device monotonic time of its last request
    };

    regs::decoded_address decode(uint32_t address) const;
    snapshot take_snapshot() const;
    axioe::status read_one(const socket_address& client,
                           const regs::decoded_address& a,
                           const snapshot& snap,
                           uint32_t& value) const;
    axioe::status write_one(const regs::decoded_address& a, uint32_t value);
    axioe::status read_rx(const socket_address& client,
                          const regs::decoded_address& a,
                          const snapshot& snap,
                          uint32_t& value) const;
    axioe::status write_rx(unsigned s, uint32_t reg, uint32_t value);
    axioe::status start(unsigned s);
    axioe::status write_emu(unsigned s, uint32_t reg, uint32_t value);
    // TX streams (docs/transmit.md; register_file_tx.cc).
    axioe::status read_tx(const socket_address& client,
                          const regs::decoded_address& a,
                          const snapshot& snap,
                          uint32_t& value) const;
    axioe::status write_tx(unsigned t, uint32_t reg, uint32_t value);
    axioe::status start_tx(unsigned t);
    axioe::status write_tx_emu(unsigned t, uint32_t reg, uint32_t value);
    axioe::status write_tx_burst_queue(unsigned t, uint32_t reg, uint32_t value);
    uint32_t tx_burst_queue_status(unsigned t) const;
    void reset_tx_descriptor(unsigned t);
    // The radio (docs/radio.md).
    axioe::status read_clock(const regs::decoded_address& a,
                             const snapshot& snap,
                             uint32_t& value) const;
    axioe::status write_clock(uint32_t reg, uint32_t value);
    axioe::status write_rf(unsigned c, uint32_t reg, uint32_t value);
    axioe::status
    write_command(const socket_address& client, uint32_t reg, uint32_t value);
    axioe::status write_scene(uint32_t reg, uint32_t value);
    axioe::status write_burst_queue(unsigned s, uint32_t reg, uint32_t value);
    uint32_t burst_queue_status(unsigned s) const;
    void
    note_refused_push(uint32_t address, const uint32_t* words, size_t count, bool fixed);
    bool push_refused(const socket_address& client,
                      uint32_t address,
                      const uint32_t* words,
                      size_t count,
                      bool fixed);
    void apply_master_clock(unsigned s);
    bool is_fault_log(const regs::decoded_address& a) const;
    // Several links (docs/register-map.md, map 1.5; register_file_links.cc).
    bool multi_link() const { return d_identity.capabilities & regs::cap::multi_link; }
    uint32_t link_status(unsigned n) const;
    axioe::status read_link(const regs::decoded_address& a,
                            const snapshot& snap,
                            uint32_t& value) const;
    axioe::status write_link(unsigned n, uint32_t reg, uint32_t value);
    axioe::status read_destination(const regs::decoded_address& a, uint32_t& value) const;
    axioe::status read_destination_rc(const regs::decoded_address& a,
                                      uint32_t& value) const;
    axioe::status write_destination(const regs::decoded_address& a, uint32_t value);
    axioe::status
    read_epoch(const regs::decoded_address& a, const snapshot& snap, uint32_t& value) const;
    axioe::status read_emu_link(const regs::decoded_address& a, uint32_t& value) const;
    axioe::status write_emu_link(unsigned n, uint32_t reg, uint32_t value);
    void destinations_of(unsigned s, rx_descriptor& d) const;
    uint32_t validate_destinations(const rx_descriptor& d) const;
    void reset_destinations(unsigned s);
    static destination_words fresh_destination(); // DST_* at their reset values
    axioe::status read_fault_log(unsigned s, uint32_t& value);
    // Several hosts (docs/register-map.md, "Shares"; register_file_shares.cc).
    bool shares_present() const { return d_identity.capabilities & regs::cap::shares; }
    unsigned shares_of(unsigned s) const; // RX_SHARES as written (1 without shares)
    uint32_t share_ready(unsigned s) const;
    axioe::status read_share(const socket_address& client,
                             const regs::decoded_address& a,
                             const snapshot& snap,
                             uint32_t& value) const;
    axioe::status write_share(const regs::decoded_address& a, uint32_t value);
    axioe::status write_share_layout(unsigned s, uint32_t reg, uint32_t value);
    bool any_share_owned(unsigned s) const;
    // Owner slots of shares: after the RX and TX streams, 8 per RX stream.
    unsigned share_slot(unsigned s, unsigned h) const;
    bool is_share_slot(unsigned slot) const { return slot >= share_slot(0, 0); }
    //! The owner slot of destination d of stream s: its share's while that is owned.
    unsigned destination_slot(unsigned s, unsigned d) const;
    void reset_share_destinations(unsigned s, unsigned h);
    void free_share(unsigned slot, uint32_t how);
    //! Before the stream's descriptor returns to reset: what its owned shares keep.
    struct kept_shares {
        uint32_t shares = 1, block = regs::default_share_block;
        std::array<bool, regs::max_shares> owned{};
        std::array<destination_words, regs::rx_dest_per_stream> words{};
    };
    kept_shares keep_owned_shares(unsigned s) const;
    void restore_owned_shares(unsigned s, const kept_shares& k);
    // The controller (docs/register-map.md, "Controller"; register_file_ctrl.cc).
    axioe::status read_ctrl(const regs::decoded_address& a, uint32_t& value) const;
    axioe::status write_ctrl(const regs::decoded_address& a, uint32_t value);
    void ctrl_started(unsigned s, const rx_descriptor& d);
    void ctrl_tx_started(unsigned t, const tx_descriptor& d);
    void ctrl_link_changed(unsigned n);
    void ctrl_capacity(unsigned n);

    // Ownership; all with d_mutex held.
    void hear_from(const socket_address& client);
    int64_t expire_leases(int64_t now_ns);
    bool refused(const socket_address& client, uint32_t address, bool is_write) const;
    bool owned_by_other(unsigned s, const socket_address& client) const;
    bool device_wide_write_refused(const socket_address& client) const;
    bool touches_owner_registers(uint32_t address, size_t count, bool fixed) const;
    axioe::status write_owner(const socket_address& client,
                              uint32_t address,
                              const uint32_t* words,
                              size_t count,
                              bool fixed);
    axioe::status
    claim(unsigned s, const socket_address& client, uint64_t token, bool take_over);
    axioe::status release(unsigned s, const socket_address& client);
    // Owner slots: RX stream s is slot s, TX stream t slot (RX streams) + t, share h of
    // RX stream s share_slot(s, h).
    unsigned owner_slot(const regs::decoded_address& a) const;
    bool slot_running(unsigned s) const;
    std::string slot_name(unsigned s) const;
    //! \p how: regs::stop_cause::how, for the RX_STOP_CAUSE of a run it stops.
    void free_stream(unsigned s, uint32_t how);
    void reset_descriptor(unsigned s); // descriptor and extension block: reset values

    // Where a READ_FIXED of the fault log is within the current 3-word record.
    struct log_cursor {
        std::array<uint32_t, 3> words{};
        unsigned next = 3;
    };

    const device_identity d_identity;
    const regs::identity_values d_identity_values; // the identity block as read
    const std::vector<link_info> d_links;
    const std::vector<rx_engine*> d_engines;
    const std::vector<tx_engine*> d_tx;
    metadata_sender* const d_metadata;
    const std::unique_ptr<device_clock> d_own_clock; // without a device clock given
    device_clock& d_clock;
    const std::vector<rf_channel*> d_channels;
    command_queue* const d_commands;
    const bool d_ownership; // cap::ownership
    logger_ptr d_logger;

    mutable std::mutex d_mutex;
    uint32_t d_scratch = 0;
    std::vector<uint32_t> d_link_weight;
    link_set* const d_link_states;                  // map 1.5; may be null
    device_controller* const d_controller;          // may be null
    std::vector<destination_words> d_dest_words;    // 8 per RX stream (0: its own part)
    std::vector<regs::emu_link_values> d_emu_links; // EMU_LINK_* as written
    std::vector<uint32_t> d_emu_rate_lo;            // EMU_LINK_RATE acts on its high word
    std::vector<register_words> d_rx_words;  // the writable RX descriptor registers
    std::vector<register_words> d_emu_words; // the emulator extension registers
    std::vector<log_cursor> d_log_cursor;
    std::vector<owner> d_owners;                // RX streams, then TX streams
    std::vector<register_words> d_tx_words;     // the writable TX descriptor registers
    std::vector<register_words> d_tx_emu_words; // the emulator's TX extension
    std::vector<bool> d_tx_run_started;
    std::vector<uint32_t> d_tx_refusal;
    // Each TX stream's burst queue staging registers (TBQ_TIME .. TBQ_RESERVED, lo/hi)
    // and the ERROR of its last push.
    std::vector<std::array<uint32_t, 6>> d_tbq_staged;
    std::vector<uint32_t> d_tbq_error;
    // RX_START_TIME reads the time of the last run's sample 0 until it is written again.
    std::vector<bool> d_run_started;
    // Why the register file itself refused the last START (its time had passed), or 0:
    // RX_STATUS then reads that error instead of the engine's.
    std::vector<uint32_t> d_refusal;
    // A 64-bit register that acts (RF_FREQ, CLOCK_SET_*) acts when its high word is
    // written, with the low word written before it.
    std::vector<uint32_t> d_rf_freq_lo;
    uint32_t d_set_now_lo = 0;
    uint32_t d_set_pps_lo = 0;
    // The command queue's staging registers: CMD_TIME lo/hi, CMD_ADDR, CMD_DATA lo/hi.
    std::array<uint32_t, 5> d_staged{};
    regs::scene_values d_scene; // EMU_SCENE_*, latched by each START
    // Each stream's burst queue staging registers (BQ_TIME .. BQ_FIRST_MESSAGE, lo/hi)
    // and the ERROR of its last push.
    using burst_staging = std::array<uint32_t, 6>;
    std::vector<burst_staging> d_bq_staged;
    std::vector<uint32_t> d_bq_error;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
