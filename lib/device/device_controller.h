/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_DEVICE_CONTROLLER_H
#define INCLUDED_RDMA_DEVICE_DEVICE_CONTROLLER_H

#include "../axioe/axioe_client.h"
#include "../regs/register_fields.h"
#include "../regs/register_map.h"
#include "../util/rational_rate.h"
#include <gnuradio/rdma/sample_format.h>
#include <gnuradio/rdma/test_signal.h>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace rdma {

//! The identity block (regs::identity_values) as identify() read it.
struct device_info : regs::identity_values {
    bool has(uint32_t cap) const { return (capabilities & cap) == cap; }
};

struct link_state {
    socket_address roce; //!< the link's IPv4 address and the UDP port it takes RoCEv2 on
    unsigned mtu = 0;    //!< IP MTU of the link
    std::array<uint8_t, 6> mac{};
};

//! What the host programs into an RX stream descriptor before START: the registers'
//! own struct, which the emulator unpacks too. Defaults are the reset values.
using rx_setup = regs::rx_descriptor;

//! Emulator-only impairments (the emulator extension block; docs/register-map.md).
struct emulated_impairments : regs::impairment_values {
    std::vector<std::pair<uint64_t, uint32_t>>
        faults; //!< (message, regs::fault kind), <= 8
    bool any() const
    {
        return loss_ppm || duplicate_ppm || corrupt_ppm || delay_ppm || !faults.empty();
    }
};

//! A fault the emulator injected (its fault log).
struct injected_fault {
    uint64_t message = 0;
    uint32_t kind = 0;
};

//! RX_STATUS and the counters of an RX stream.
struct rx_device_counters : regs::rx_counters {
    uint32_t status = 0;
};

//! What the host programs into a TX stream descriptor before START (docs/transmit.md).
using tx_setup = regs::tx_descriptor;

//! TX_STATUS and the counters of a TX stream: TX_SAMPLES_PLAYED .. TX_SAMPLES_NOT_PLAYED
//! and, from a device with CAP_TX_BURSTS, TX_DROPPED_SAMPLES .. TX_TIME_ERRORS (else 0).
struct tx_device_counters : regs::tx_counters {
    uint32_t status = 0;
    bool has_burst_counters = false; //!< the map 1.4 counters were read
};

//! TBQ_STATUS of a TX stream (docs/register-map.md, "TX burst queue").
struct tx_burst_queue_status {
    uint32_t queued = 0;   //!< entries pushed and not taken up
    uint32_t capacity = 0; //!< entries the queue holds
    uint32_t error = 0;    //!< regs::tbq::error of the last push
};

//! The device refused a TX burst queue push (SLVERR): code() is TBQ_STATUS.ERROR
//! (regs::tbq::error), what() names the cause.
class tx_burst_refused : public std::runtime_error
{
public:
    tx_burst_refused(const std::string& what, uint32_t code)
        : std::runtime_error(what), d_code(code)
    {
    }
    uint32_t code() const { return d_code; }

private:
    uint32_t d_code;
};

//! Device time = host time + offset_ns, known to within error_ns.
struct clock_estimate {
    int64_t offset_ns = 0;
    uint64_t error_ns = 0;
};

//! Which of the device's streams: an RX stream (its RX block) or a TX stream (its TX
//! block). Both blocks have their command, status and ownership registers at the same
//! offsets (docs/register-map.md, "Ownership" and "TX stream").
enum class stream_direction { rx, tx };

//! "RX" or "TX", as messages name a stream.
const char* to_string(stream_direction d);

//! Who owns a stream, as this host sees it (RX_OWNER / TX_OWNER, docs/register-map.md).
enum class stream_owner {
    none,         //!< free: anyone may claim it
    this_host,    //!< this controller's client owns it
    another_host, //!< another client owns it
};

//! Another host owns the stream: what would change it was refused (NOT_OWNER).
class stream_owned_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! A new claim token: random, never 0. One per run; never shown to anyone.
uint64_t random_owner_token();

/*!
 * The host's view of the SDR's registers: register semantics over an AXIoE client.
 * Configuration only; nothing here runs on the sample path.
 */
class device_controller
{
public:
    explicit device_controller(const socket_address& device,
                               const axioe::client_options& options = {});

    /*!
     * Read the identity block; throws std::runtime_error naming the address if the
     * peer does not answer like a gr-rdma device, speaks another map version, or takes
     * bursts too short for this host (ID_MAX_BURST_WORDS below 2). From then on, no
     * burst to the device is longer than its ID_MAX_BURST_WORDS.
     */
    device_info identify();
    //! Whether the device has every capability in \p cap (ID_CAPABILITIES as identify()
    //! read it; false before).
    bool has(uint32_t cap) const { return (d_capabilities & cap) == cap; }
    link_state read_link(unsigned link);

    /*!
     * Write the RX descriptor, then read RX_RATE_NUM/RX_RATE_DEN back: a device that
     * cannot make every rate replaces the request with the nearest it makes
     * (docs/radio.md, "Sample rate"). Returns the rate the device will use; when it
     * differs from setup's, logs a warning naming both.
     */
    rational configure_rx(unsigned stream, const rx_setup& setup);
    //! The emulator's test signal (its extension block): kind, frequency (whole Hz),
    //! amplitude, seed.
    //! With signal.scene_given, also the RF scene (configure_scene()).
    void configure_signal(unsigned stream, const test_signal_config& signal);
    //! The emulator's RF scene (docs/radio.md; device-wide, like the device time):
    //! signal's scene tones and noise, every tone register written (those not given:
    //! none).
    void configure_scene(const test_signal_config& signal);
    void configure_impairments(unsigned stream, const emulated_impairments& impairments);
    //! Drain the emulator's log of injected faults (oldest first).
    std::vector<injected_fault> read_fault_log(unsigned stream);
    //! START; returns the device time (ns) of sample 0. Throws std::runtime_error with
    //! the device's reason when it refuses.
    uint64_t start_rx(unsigned stream);
    void stop_rx(unsigned stream);

    /*!
     * Claim \p dir stream \p stream (needs regs::cap::ownership) with \p token (not 0;
     * keep it secret) and a lease of \p lease_ms (regs::lease::min_ms .. max_ms): the
     * device stops and frees the stream once this host is silent that long. With
     * \p take_over, claim it even if another host owns it; the device stops that
     * host's run. Throws stream_owned_error, naming the owner's lease and the fix, if
     * another host owns it. (device_controller_owner.cc)
     */
    void claim(stream_direction dir,
               unsigned stream,
               uint64_t token,
               uint32_t lease_ms,
               bool take_over);
    /*!
     * Several hosts (docs/links.md, "Several hosts"; device_controller_shares.cc).
     * Claim share \p share >= 1 of RX stream \p stream as claim() claims a stream
     * (the share's destinations become this host's); throws stream_owned_error when
     * another host holds it.
     */
    void claim_share(unsigned stream,
                     unsigned share,
                     uint64_t token,
                     uint32_t lease_ms,
                     bool take_over);
    //! Give the share up; the device stops the stream if it runs (it writes into
    //! this host's ring).
    void release_share(unsigned stream, unsigned share);
    //! RX_SHARE_READY: bit h, share h has a destination that may take messages.
    uint32_t read_share_ready(unsigned stream);
    //! SHARE_SAMPLES_EMITTED: samples of the share's messages produced in the run.
    uint64_t read_share_emitted(unsigned stream, unsigned share);
    //! SHARE_START_TIME: the run's device time of stream sample 0 (0: none yet).
    uint64_t read_share_start_time(unsigned stream, unsigned share);

    //! Give \p dir stream \p stream up; the device stops it if it runs. Throws
    //! axioe::error NOT_OWNER when another host owns it.
    void release(stream_direction dir, unsigned stream);
    //! Who owns \p dir stream \p stream.
    stream_owner read_owner(stream_direction dir, unsigned stream);
    //! RX_STATUS or TX_STATUS.
    uint32_t read_status(stream_direction dir, unsigned stream);
    //! STOP an RX or a TX stream (stop_rx(), stop_tx()).
    void stop(stream_direction dir, unsigned stream);
    /*!
     * What to tell the user when another host owns \p dir stream \p stream: "device
     * at ...: TX stream 0 is owned by another host; wait for its lease (5 s) to lapse
     * or add take_over=1".
     */
    std::string owned_elsewhere(stream_direction dir, unsigned stream);

    void claim_rx(unsigned stream, uint64_t token, uint32_t lease_ms, bool take_over)
    {
        claim(stream_direction::rx, stream, token, lease_ms, take_over);
    }
    void release_rx(unsigned stream) { release(stream_direction::rx, stream); }
    stream_owner read_rx_owner(unsigned stream)
    {
        return read_owner(stream_direction::rx, stream);
    }
    void claim_tx(unsigned stream, uint64_t token, uint32_t lease_ms, bool take_over)
    {
        claim(stream_direction::tx, stream, token, lease_ms, take_over);
    }
    void release_tx(unsigned stream) { release(stream_direction::tx, stream); }
    stream_owner read_tx_owner(unsigned stream)
    {
        return read_owner(stream_direction::tx, stream);
    }
    /*!
     * Renew the lease of every stream this host owns on the device, by one 1-word read
     * (any request from this client renews); returns who owns \p stream: this_host as
     * long as the lease held. Call it at least once per lease while streaming.
     */
    stream_owner renew(unsigned stream);
    /*!
     * Renew as renew() does, without waiting: one datagram, no answer awaited, nothing
     * sent if another transaction is in progress (it renews too). For the sample path,
     * which must not wait on the network; a lost datagram only matters if every one
     * sent within a lease is lost.
     */
    bool renew_nowait(unsigned stream);
    rx_device_counters read_rx_counters(unsigned stream);

    // TX streams (device_controller_tx.cc; docs/transmit.md).
    //! Write the TX descriptor (TX_HOST_IPV4 .. TX_MAX_LEAD_NS), latched at START.
    void configure_tx(unsigned stream, const tx_setup& setup);
    //! The emulator's TX extension: EMU_TX_CHECK, EMU_TX_LOSS_PPM, EMU_TX_FAULT_SEED.
    void configure_tx_emulation(unsigned stream, const regs::tx_emulation& emulation);
    //! START; returns TX_START_TIME as the device latched it (0: START + lead). Throws
    //! std::runtime_error with the device's reason when it refuses.
    uint64_t start_tx(unsigned stream);
    void stop_tx(unsigned stream);
    tx_device_counters read_tx_counters(unsigned stream);
    /*!
     * TX bursts (CAP_TX_BURSTS; the stream started with TX_NUM_SAMPLES =
     * regs::tbq::queued_mode): push START(item \p first_item, device time \p time_ns;
     * 0: as soon as possible), END(item \p end_item) or CLEAR, each as one 7-word
     * AXIoE burst from TBQ_TIME_LO to TBQ_PUSH. A refused push throws
     * tx_burst_refused with the device's reason (TBQ_STATUS.ERROR; full is
     * regs::tbq::error::full: wait and push again), stream_owned_error if another host
     * owns the stream, std::runtime_error if the device takes bursts shorter than 7
     * words.
     */
    void push_tx_start(unsigned stream, uint64_t first_item, uint64_t time_ns);
    void push_tx_end(unsigned stream, uint64_t end_item);
    void clear_tx_bursts(unsigned stream);
    tx_burst_queue_status read_tx_burst_status(unsigned stream);
    uint64_t device_time_ns();
    //! Estimate the device clock against the host's from \p rounds time reads, keeping
    //! the one with the shortest round trip (its half round trip bounds the error).
    clock_estimate estimate_clock(int rounds = 8);

    const socket_address& address() const { return d_address; }
    axioe::client& client() { return d_client; }

private:
    // A claim burst at token_reg, then the lease (claim(), claim_share()).
    void claim_at(uint32_t token_reg,
                  uint32_t lease_reg,
                  const std::string& what,
                  uint64_t token,
                  uint32_t lease_ms,
                  bool take_over);

    // Registers [first, end) of instance \p index of block \p b, to or from words[(offset
    // - first) / 4], in bursts within the device's limit that keep every register whole
    // (regs::plan_bursts). write_registers() leaves read-only registers and holes out.
    void read_registers(
        regs::block b, unsigned index, uint32_t first, uint32_t end, uint32_t* words);
    void write_registers(regs::block b,
                         unsigned index,
                         uint32_t first,
                         uint32_t end,
                         const uint32_t* words);
    // One TX burst queue push: the staged entry and TBQ_PUSH = op, in one burst.
    void push_tx_entry(unsigned stream, uint32_t op, uint64_t item, uint64_t time_ns);

    socket_address d_address;
    axioe::client d_client;
    const size_t d_max_burst_words; // options.max_burst_words: the host's own limit
    uint32_t d_capabilities = 0;    // ID_CAPABILITIES, once identify() read it
};

} // namespace rdma
} // namespace gr

#endif
