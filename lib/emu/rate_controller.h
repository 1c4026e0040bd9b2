/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_RATE_CONTROLLER_H
#define INCLUDED_RDMA_EMU_RATE_CONTROLLER_H

#include "ctrl_event_queue.h"
#include "ctrl_model.h"
#include "ctrl_weights.h"
#include "nak_backoff.h"
#include "water_filling.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! CTRL_POLICY (docs/links.md).
enum class ctrl_policy : uint32_t {
    none = 0,          //!< weights and rates as the host wrote them
    water_filling = 1, //!< max-min fair rates and their split over links
    shortest_rtt = 2,  //!< weights proportional to 1 / RTT, no rate limit
};

//! What the controller decided for one stream at its last run.
struct ctrl_output {
    //! bytes/s the stream may dequeue: its fair share (water filling), else its demand
    double rate = 0;
    //! rate < demand: the device must hold the stream to rate (RX_RATE_LIMIT)
    bool limited = false;
    //! per link, adding up to ctrl_weights::total (all 0: no usable link)
    ctrl_link_weights weight{};
};

/*!
 * The device's control loop (seed 001, SCR: the event processor): events land in
 * ctrl_event_queue, coalesced per queue; tick() runs the loop at most once per
 * CTRL_PERIOD_US, and only when an event or a configuration change waits. A run takes
 * every pending record (at most one per queue), applies it to the model and computes
 * the policy once. So the loop's work per second is at most 10^6 / period runs of
 * (queues + one policy computation), whatever the event rate; what grows with the
 * event rate is post(), O(1) per event (the collector's cost).
 *
 * Time is the caller's (any monotonic ns). No allocation; not thread-safe (the
 * emulator serializes post() and tick()).
 */
class rate_controller
{
public:
    static constexpr uint32_t default_period_us = 1000;
    static constexpr uint32_t max_period_us = 1000000;

    void post(const ctrl_event& e) { d_queue.post(e); }

    //! CTRL_PERIOD_US: 1 .. max_period_us; false (and unchanged) outside.
    bool set_period_us(uint32_t us);
    uint32_t period_us() const { return d_period_us; }
    //! CTRL_POLICY; takes effect at the next run. False (unchanged) for an unknown one.
    bool set_policy(uint32_t policy);
    ctrl_policy policy() const { return d_policy; }
    //! Configuration (register writes); each takes effect at the next run.
    void set_links(unsigned stream, uint32_t mask);
    void set_capacity(unsigned link, double bytes_per_s);
    //! TX stream \p t's READs started, stopped (link no_tx_link) or their host limit
    //! changed: a configuration change, as a stream's links are.
    void set_tx(unsigned t, const ctrl_tx_state& state);

    /*!
     * Run the loop if it is due at \p now_ns: something waits (an event or a change
     * of configuration) and a period has passed since the last run (the first run
     * may come at once). True if it ran.
     */
    bool tick(int64_t now_ns);
    //! Whether tick(\p now_ns) would run (a thread may sleep until it is).
    bool due(int64_t now_ns) const { return next_run_ns() <= now_ns; }
    //! When the next run is due: INT64_MAX while nothing waits, INT64_MIN before the
    //! first run.
    int64_t next_run_ns() const;

    const ctrl_output& output(unsigned stream) const { return d_out[stream]; }
    //! TX stream t's READ rate (water filling of the links' other direction; weights
    //! unused: its READs have one link).
    const ctrl_output& tx_output(unsigned t) const { return d_tx_out[t]; }
    //! Whether the device applies the outputs (CTRL_POLICY not 0).
    bool writes() const { return d_policy != ctrl_policy::none; }
    const ctrl_model& model() const { return d_model; }
    //! CTRL_EVENTS, CTRL_COALESCED and the records processed.
    const ctrl_event_queue& queue() const { return d_queue; }
    uint64_t runs() const { return d_runs; } //!< CTRL_RUNS
    //! Policy computations: one per run.
    uint64_t computations() const { return d_computations; }
    //! Water filling's NAK backoff: the links' estimates and its cuts (CTRL_NAK_CUTS).
    const nak_backoff& backoff() const { return d_backoff; }
    //! The same for the links' other direction, from the TX streams' re-reads
    //! (CTRL_TX_NAK_CUTS).
    const nak_backoff& tx_backoff() const { return d_tx_backoff; }

private:
    template <class Input>
    void fill(const ctrl_loss_counts& losses,
              Input input,
              nak_backoff& backoff,
              water_filling_result& filled,
              bool& have_filling);
    void compute();
    void compute_tx();

    ctrl_event_queue d_queue;
    ctrl_model d_model;
    std::array<ctrl_output, ctrl_max_streams> d_out{};
    std::array<ctrl_output, ctrl_max_tx_streams> d_tx_out{};
    water_filling_result d_tx_filled;
    bool d_have_tx_filling = false;
    std::array<ctrl_record, ctrl_max_queues> d_records{}; // take()'s room
    water_filling_result d_filled;
    bool d_have_filling = false; // d_filled is the last run's (water filling ran)
    nak_backoff d_backoff;
    nak_backoff d_tx_backoff;
    ctrl_policy d_policy = ctrl_policy::none;
    uint32_t d_period_us = default_period_us;
    bool d_dirty = false;
    bool d_ran = false;
    int64_t d_last_run_ns = 0;
    uint64_t d_runs = 0;
    uint64_t d_computations = 0;
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
