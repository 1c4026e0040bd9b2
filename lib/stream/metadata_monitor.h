/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_METADATA_MONITOR_H
#define INCLUDED_RDMA_STREAM_METADATA_MONITOR_H

#include "../axioe/axioe_client.h"
#include "../device/device_controller.h"
#include "../device/metadata_intake.h"
#include "../util/device_args.h"
#include "event_queue.h"
#include "loss_tracker.h"
#include "stream_clock.h"
#include <gnuradio/rdma/rx_event.h>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace gr {
namespace rdma {

//! What the device args ask of the metadata channel (docs/device-args.md).
struct metadata_settings {
    bool enabled = false;
    uint32_t interval_us = 100000; //!< periodic timestamps; 0: none
};
/*!
 * metadata= (1: use the channel, the default when the device has regs::cap::metadata;
 * 0: leave it alone) and metadata_interval= (seconds between timestamps, default 0.1,
 * 0: none) as given; settle() decides against the device. Throws
 * std::invalid_argument naming the key when a value is bad, or when metadata=1 is
 * asked of a device without the capability.
 */
struct metadata_request {
    std::optional<bool> wanted; //!< metadata=; absent: as the device can
    uint32_t interval_us = 100000;

    static metadata_request from_args(const device_args& args);
    metadata_settings settle(const device_info& device) const;
};
//! The keys parse_metadata_args() reads.
const arg_table& metadata_arg_keys();

/*!
 * Refines the host's estimate of the device clock (device = host + offset) with the
 * device's timestamps. A timestamp names the device time T of a sample the device had
 * produced before it sent the record; the record arrived at host time H, so
 * offset >= T - H. The largest such bound over the last `window` timestamps (a
 * minimum-one-way-delay filter) raises the lower end of the interval the AXIoE round
 * trips gave at start; the upper end stays. Should a timestamp prove the device ahead
 * of the upper end (drift), the interval moves up by as much, keeping its width.
 *
 * Nothing a record says may move the clock further than physics allows: the interval's
 * total shift since start is bounded by what a clock can drift in the time elapsed
 * (max_drift, 100 ppm: a crystal oscillator keeps within 50), however the claims are
 * split into records; a timestamp beyond that is implausible and rejected. So forged
 * records can at most narrow the start interval and move it by the drift allowance.
 *
 * Monotonic where it matters: the upper end never comes down (what the device may have
 * written only grows), and the lower end never drops below the shifted start interval.
 */
class clock_refiner
{
public:
    static constexpr size_t window = 16; // 1.6 s of timestamps at the default interval
    static constexpr double max_drift = 100e-6;

    //! Start from the AXIoE estimate \p start, taken at host time \p host_ns.
    void reset(const clock_estimate& start, int64_t host_ns);
    //! A timestamp: device time \p device_ns reached before host time \p arrival_ns.
    //! Returns false when rejected.
    bool add(uint64_t device_ns, int64_t arrival_ns);
    clock_estimate estimate() const;
    //! How much a clock may have drifted by host time \p host_ns (max_drift since start).
    int64_t drift_allowance(int64_t host_ns) const;
    //! How far the interval moved up since start (drift proven by timestamps).
    int64_t shift_ns() const { return d_hi - d_hi_start; }

private:
    int64_t d_lo = 0; // the start interval [lo, hi], shifted up by drift
    int64_t d_hi = 0;
    int64_t d_hi_start = 0;
    int64_t d_start_host_ns = 0;
    std::array<int64_t, window> d_bounds{};
    size_t d_count = 0;
    size_t d_next = 0;
};

/*!
 * What an rx_stream does with the metadata channel (docs/metadata.md): programs the
 * device's metadata block to send to its receiver, then takes in the records of its
 * stream while waiting for samples:
 *  - stream_start: t0 must equal what START read back (a mismatch is counted);
 *  - timestamps refine the device clock estimate (clock_refiner), which decides when
 *    packets are final in clock mode;
 *  - events: zero_substituted marks samples lost in the loss tracker (RC only: a UC
 *    device never substitutes, so on UC such a record is counted and ignored); the
 *    others are queued as rx_event reports (kind::device).
 * A record must fit this run: its time must be t0 + sample / rate (within 1 us) and its
 * samples must be ones the device can have produced by the time it arrived; records of
 * an earlier run, or made up, are counted as rejected and change nothing.
 */
class metadata_monitor
{
public:
    //! \p intake: the device's metadata channel (device::metadata_intake_for());
    //! \p stream: the RX stream whose records count; \p rc: whether it streams on RC
    //! (only then may the device substitute zeros).
    metadata_monitor(std::shared_ptr<metadata_intake> intake,
                     unsigned stream,
                     bool rc = false);

    socket_address local_address() const { return d_intake->local_address(); }

    //! Before START: drop stale records, point the device's metadata block at the
    //! intake (metadata_intake::configure()).
    void configure(axioe::client& device, uint32_t interval_us);
    /*!
     * After START: the run's clock parameters and the AXIoE clock estimate, taken at
     * host time \p host_ns. \p sample_base: this stream's sample of the device run's
     * sample 0 (a run that continues the stream after the device restarted;
     * loss_tracker::jump), \p t0_ns the time of the stream's sample 0 and
     * \p run_t0_ns the device run's own START time (0: \p t0_ns), which its
     * stream_start record must carry.
     */
    void start(rational rate,
               uint64_t t0_ns,
               uint64_t grace_ns,
               const clock_estimate& start,
               int64_t host_ns,
               uint64_t sample_base = 0,
               uint64_t run_t0_ns = 0);
    /*!
     * Take in what arrived, at most every poll_period_ns (one non-blocking recvmmsg).
     * Marks substituted samples in \p tracker; when the clock estimate changed, sets
     * \p clock to the refined one and returns true.
     */
    bool poll(int64_t host_ns, loss_tracker& tracker, stream_clock& clock);
    /*!
     * The stream continues with a new run of the device at another rate
     * (stream_clock::continue_at): the run's records count samples from its sample 0,
     * which is this stream's sample \p first, taken at \p t0_ns.
     */
    void continue_at(uint64_t first, uint64_t t0_ns, rational rate);
    bool poll_event(rx_event& out);

    clock_estimate estimate() const { return d_refiner.estimate(); }
    //! Samples the records of this run said the device sent as zeros (RC).
    uint64_t zero_substituted() const { return d_zero_substituted; }
    //! Adds the "metadata.*" counters (docs/metadata.md).
    void read_counters(std::map<std::string, uint64_t>& out,
                       const loss_tracker& tracker) const;

    static constexpr int64_t poll_period_ns = 1000000;
    static constexpr uint64_t time_tolerance_ns = 1000;

private:
    bool fits_run(const received_record& r, uint64_t end_sample) const;
    void on_event(const received_record& r, loss_tracker& tracker);
    void queue(const rx_event& e);

    std::shared_ptr<metadata_intake> d_intake;
    std::array<received_record, metadata_receiver::max_records> d_records{};
    const unsigned d_stream;
    const bool d_rc;
    uint64_t d_base = 0;   // added to every record's sample (see start())
    uint64_t d_run_t0 = 0; // the device run's sample 0, in its time
    bool d_started = false;
    stream_clock d_timeline; // t0 and rate (the offset does not matter for time_of)
    stream_clock d_clock;    // the current estimate, for what the device can have written
    clock_refiner d_refiner;
    int64_t d_last_poll = 0;

    uint64_t d_rejected = 0;
    uint64_t d_t0_mismatch = 0;
    uint64_t d_timestamps = 0;
    uint64_t d_events = 0;
    uint64_t d_zero_substituted = 0;
    uint64_t d_zero_substituted_ignored = 0; // UC: no device substitutes there

    event_queue<256> d_queue;
};

} // namespace rdma
} // namespace gr

#endif
