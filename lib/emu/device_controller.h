/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_DEVICE_CONTROLLER_H
#define INCLUDED_RDMA_EMU_DEVICE_CONTROLLER_H

#include "ctrl_sink.h"
#include "destination_table.h"
#include "rate_controller.h"
#include <condition_variable>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

namespace gr {
namespace rdma {
namespace emu {

class rx_engine;
class tx_engine;

//! What START tells the controller of a run of one RX stream.
struct ctrl_run {
    const rx_engine* engine = nullptr;
    std::shared_ptr<destination_table> routes;
    double demand = 0;        //!< the converter's sample bytes per second
    double wire_per_byte = 1; //!< IPv4 bytes on a link per sample byte (headers)
    //! Destination d's link; no_link: not used.
    std::array<uint8_t, destination_table::max_destinations> link{};
    //! Destination d's DST_PATH_NS at START (0: none measured).
    std::array<uint32_t, destination_table::max_destinations> path_ns{};
    static constexpr uint8_t no_link = 0xFF;
};

//! What START tells the controller of a run of one TX stream.
struct ctrl_tx_run {
    const tx_engine* engine = nullptr;
    double demand = 0;        //!< the converter's sample bytes per second
    double wire_per_byte = 1; //!< IPv4 bytes of READ RESPONSE per sample byte
    uint8_t link = 0;         //!< where its READs go (TX_LINK_MASK)
};

/*!
 * The emulator's controller (docs/register-map.md, "Controller"; seed 001, SCR): the
 * registers of the controller block, the events the device posts (link down and up,
 * host writes, starts and stops), and the loop that runs rate_controller on a thread
 * of its own, "emu-ctrl", at most once per CTRL_PERIOD_US and only when something
 * waits, never on a stream's thread. A run's outputs become each stream's dequeue rate
 * (an atomic its engine reads once per batch; a TX stream's: the rate of its sample
 * READs, whose RESPONSEs share the links' other direction) and, for a stream over several
 * destinations, its DST_WEIGHTs, written as a host's write is (an epoch at the next
 * window boundary), and only when they change.
 *
 * The loop works in IPv4 bytes per second on the links (LINK_CAPACITY's unit) and
 * leaves capacity_share of every link unallocated: the weights are rounded to 1/1024 and
 * the dequeue may catch up briefly, neither of which must overrun a full link.
 * Thread-safe: every call takes the controller's mutex (the register file calls it
 * with its own held; the loop never takes the register file's).
 */
class device_controller : public ctrl_sink
{
public:
    static constexpr double capacity_share = 0.99;

    device_controller(unsigned streams, unsigned links, unsigned tx_streams = 0);
    ~device_controller() override;
    device_controller(const device_controller&) = delete;
    device_controller& operator=(const device_controller&) = delete;

    // The controller block as the host writes it; false: SLVERR.
    bool set_policy(uint32_t policy);
    bool set_period_us(uint32_t us);
    bool set_rate_limit(unsigned s, uint32_t kib_per_s); //!< RX_RATE_LIMIT
    uint32_t policy() const;
    uint32_t period_us() const;
    uint32_t rate_limit(unsigned s) const;
    //! CTRL_RATE: the dequeue rate stream s is held to, KiB/s rounded up; 0 none.
    uint32_t rate(unsigned s) const;
    //! TX_RATE_LIMIT and CTRL_TX_RATE of TX stream t (as the RX ones, for its READs).
    bool set_tx_rate_limit(unsigned t, uint32_t kib_per_s);
    uint32_t tx_rate_limit(unsigned t) const;
    uint32_t tx_rate(unsigned t) const;
    struct counts {
        uint64_t events = 0, coalesced = 0, runs = 0, nak_cuts = 0, tx_nak_cuts = 0;
    };
    counts counters() const;

    //! The device's events. LINK_CAPACITY of \p link (0: unknown, no bound).
    void set_capacity(unsigned link, uint64_t bytes_per_s);
    //! Link \p n may carry streams (\p up) or not: an event for each stream on it.
    void link_changed(unsigned n, bool up);
    //! The host wrote DST_WEIGHT \p w of destination \p d of stream \p s.
    void weight_written(unsigned s, unsigned d, uint32_t w);
    //! The host wrote DST_PATH_NS \p ns of destination \p d of stream \p s: the RTT
    //! of the destination's link for the loop (0: none measured).
    void path_written(unsigned s, unsigned d, uint32_t ns);
    //! RC: stream \p s's NAKs + retransmits so far (from its engine's thread).
    void naks(unsigned s, unsigned link, uint64_t count) override;
    //! RC: the RTT destination \p d of stream \p s measured over \p link (from its
    //! engine's thread): policy 2 takes it instead of the host's DST_PATH_NS.
    void rtt(unsigned s, unsigned d, unsigned link, uint32_t ns) override;
    //! TX stream \p t's re-reads so far (from its engine's thread).
    void rereads(unsigned t, uint64_t count) override;
    void stream_started(unsigned s, const ctrl_run& run);
    void stream_stopped(unsigned s);
    void tx_stream_started(unsigned t, const ctrl_tx_run& run);
    void tx_stream_stopped(unsigned t);

    //! What the engine of stream \p s dequeues at (sample bytes/s; 0: no limit).
    const std::atomic<uint64_t>* dequeue_rate(unsigned s) const { return &d_rate[s]; }
    //! What the engine of TX stream \p t READs at most (sample bytes/s; 0: no limit).
    const std::atomic<uint64_t>* tx_read_rate(unsigned t) const { return &d_tx_rate[t]; }

private:
    void loop();
    void notice_ended_runs();
    void forget_run(unsigned s);
    void forget_tx_run(unsigned t);
    void post_tx(unsigned t);
    static uint32_t kib_rounded_up(uint64_t bytes_per_s);
    void apply();
    void apply_weights(unsigned s, const ctrl_output& o);
    void post(const ctrl_event& e);

    const unsigned d_streams;
    const unsigned d_links;
    const unsigned d_tx_streams;
    mutable std::mutex d_mutex;
    std::condition_variable d_wake;
    bool d_stop = false;
    rate_controller d_ctrl;
    std::array<ctrl_run, ctrl_max_streams> d_runs{};
    // Bit d: destination d of the stream's run has an RTT of the device's (RC).
    std::array<uint32_t, ctrl_max_streams> d_device_rtt{};
    std::array<uint32_t, ctrl_max_streams> d_limit_kib{};
    std::array<std::atomic<uint64_t>, ctrl_max_streams> d_rate{};
    std::array<ctrl_tx_run, ctrl_max_tx_streams> d_tx_runs{};
    std::array<uint32_t, ctrl_max_tx_streams> d_tx_limit_kib{};
    std::array<std::atomic<uint64_t>, ctrl_max_tx_streams> d_tx_rate{};
    std::thread d_thread; // last: it uses everything above
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
