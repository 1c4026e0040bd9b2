/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_RECORD_REPORTS_H
#define INCLUDED_RDMA_STREAM_TX_RECORD_REPORTS_H

#include "../device/device_controller.h"
#include "../meta/metadata_packet.h"
#include "tx_burst_log.h"
#include <gnuradio/rdma/tx_stream.h>
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * A TX stream's reports from the device's TX records (docs/metadata.md, "TX records"):
 * each record one tx_event with the device's item and time. Nothing a record says is
 * believed beyond what the device can have done (docs/security.md): its times must lie
 * in the run (not before its start, not after the device's time now), its items among
 * those the host let the device see, its zeros no more than the converter's ticks
 * since the start, a burst_ack at an END the host pushed, a time_error at a START the
 * host pushed with that very time, a lead within the bounds the host programmed. A
 * record that does not fit is counted (rejected()) and ignored.
 *
 * A time_error report counts the items its burst drops, which the host knows once the
 * burst's END is pushed: until then it is held (at most `held_capacity`).
 *
 * Records are UDP and may be lost (and the device merges records of one code that come
 * within a millisecond), and a record within physics may still be forged: the counters
 * are the truth. The reports made here go through a tx_report_gate, which lets each
 * out once the counters cover it and makes them add up to the counters at the end.
 *
 * Pure: the caller supplies the records, the time bound and the host's burst log.
 */
class tx_record_reports
{
public:
    static constexpr size_t held_capacity = 16;
    static constexpr uint64_t time_tolerance_ns = 1000;

    struct run {
        uint64_t t0_ns = 0; //!< TX_START_TIME as read back
        //! The device's time when START was sent, at the earliest (0: t0_ns minus
        //! the longest lead): what the device does "now" comes after it.
        uint64_t command_ns = 0;
        rational rate{ 1, 1 };
        uint32_t min_lead_ns = 0;
        uint32_t max_lead_ns = UINT32_MAX;
    };

    void start(const run& r);
    /*!
     * Record \p r of this stream, \p now_ns an upper bound of the device's time now.
     * True with a report in \p out; false when it is rejected or held.
     */
    bool
    take(const meta::record& r, uint64_t now_ns, const tx_burst_log& log, tx_event& out);
    /*!
     * A held time_error whose burst's END is known now (\p all: every one held, counting
     * the items published of a burst without END, as the device does at STOP). True with
     * the report in \p out.
     */
    bool release(const tx_burst_log& log, bool all, tx_event& out);
    //! The accepted records add up to the samples of \p c (underflow, late, dropped):
    //! nothing of them is still on its way.
    bool complete(const tx_device_counters& c) const;

    uint64_t accepted() const { return d_accepted; }
    uint64_t rejected() const { return d_rejected; }

private:
    struct held {
        uint64_t first = 0;
        uint64_t requested_ns = 0;
        uint64_t found_ns = 0;
    };
    bool in_run(uint64_t time_ns, uint64_t now_ns) const;
    uint64_t ticks_by(uint64_t time_ns) const; // converter ticks before that time
    uint64_t duration_ns(uint64_t ticks) const;
    bool check(const meta::record& r, uint64_t now_ns, const tx_burst_log& log) const;
    void report(const held& h, uint64_t end, tx_event& out);

    run d_run;
    uint64_t d_underflow = 0; // values of the accepted records, per kind
    uint64_t d_late = 0;
    uint64_t d_dropped = 0;
    uint64_t d_time_errors = 0; // records
    uint64_t d_next_droppable = 0; // a time_error's burst starts here or later
    uint64_t d_acks = 0;        // records
    uint64_t d_acked = 0;       // their samples
    uint64_t d_accepted = 0;
    uint64_t d_rejected = 0;
    std::array<held, held_capacity> d_held{};
    size_t d_held_count = 0;
};

} // namespace rdma
} // namespace gr

#endif
