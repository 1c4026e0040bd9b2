/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_REPORT_GATE_H
#define INCLUDED_RDMA_STREAM_TX_REPORT_GATE_H

#include "../device/device_controller.h"
#include <gnuradio/rdma/tx_stream.h>
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * The reports of a TX stream's records, held until the device's own counters cover
 * them (docs/security.md): a record is believed only as far as physics allows, and
 * records that fit physics may still be forged (any local process may send from the
 * device's metadata port). So an underflow, late, time_error or burst_ack report goes
 * out only once a counter reading (the watch reads them every beat) shows at least
 * every such report so far: TX_UNDERFLOW_SAMPLES, TX_LATE_ZERO_SAMPLES,
 * TX_DROPPED_SAMPLES and TX_TIME_ERRORS, TX_BURSTS_DONE. A genuine record waits at most
 * a beat; a forged one waits until the counters grow past it, or is dropped at the end
 * (excess()). The reports released never exceed the counters, so stop()'s
 * reconciliation (the counters beyond what was released) makes them add up exactly.
 * Order is kept within a kind. Other kinds (lead, seq_error) have no counter: they pass.
 * Bounded (`capacity`): when full, the oldest held report of the new one's kind is
 * dropped as excess (or the new one, if none of its kind is held).
 * Pure; no allocation.
 */
class tx_report_gate
{
public:
    static constexpr size_t capacity = 64;

    struct totals {
        uint64_t underflow = 0, late = 0, dropped = 0, time_errors = 0, acks = 0;
    };

    void reset() { *this = tx_report_gate{}; }
    //! A report to hold; true when it needs no counter (it goes at once, in \p e).
    bool hold(const tx_event& e);
    //! The next held report that \p c covers, into \p out; false: none.
    bool release(const tx_device_counters& c, tx_event& out);
    /*!
     * The end of the run, \p c the final counters (release() them first): every report
     * still held is dropped (its samples counted in excess(): the counters do not cover
     * it), then what \p c says beyond the released reports, one report per kind into
     * \p out (room for 4), marked unattributed, item and time 0: records lost on the way
     * or merged. The reports of the run then add up to \p c exactly; a second call says
     * nothing more. Returns how many.
     */
    size_t settle(const tx_device_counters& c, tx_event* out);
    //! The end of a run whose final counters are unknown (the device could not be
    //! stopped or read): every report still held is dropped, counted in excess().
    void abandon();

    //! What was released, per kind (samples; time_errors and acks: bursts).
    const totals& released() const { return d_released; }
    size_t held() const { return d_count; }
    //! Samples of reports dropped: held past the end, or pushed out when full.
    uint64_t excess() const { return d_excess; }

private:
    static bool gated(tx_event::kind k);
    void drop_held();
    bool covered(const tx_event& e, const tx_device_counters& c) const;
    void count(const tx_event& e, totals& t) const;
    void remove(size_t i);

    std::array<tx_event, capacity> d_held{}; // in arrival order
    size_t d_count = 0;
    totals d_released;
    uint64_t d_excess = 0;
};

} // namespace rdma
} // namespace gr

#endif
