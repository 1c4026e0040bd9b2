/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_TX_REPORTS_H
#define INCLUDED_RDMA_EMU_TX_REPORTS_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

//! A TX record as the engine makes it (docs/metadata.md, "TX records").
struct tx_report {
    uint32_t code = 0; //!< meta::event_code::tx_*
    uint64_t sample = 0;
    uint64_t time_ns = 0;
    uint64_t value = 0;
};

/*!
 * The rate bound of the TX records: at most one record per code per millisecond; what
 * comes sooner is merged into the record waiting to go, which keeps its first sample
 * and time and adds the values (tx_lead: the latest lead; tx_time_error: the first
 * burst's take-up time), so that the values of a run still add up to the counters and
 * a pathological stream cannot flood the host. Pure: times are the caller's (any
 * monotonic ns); no allocation.
 */
class tx_report_limiter
{
public:
    static constexpr uint32_t first_code = 16; //!< tx_underflow
    static constexpr uint32_t codes = 6;       //!< tx_underflow .. tx_seq_error
    static constexpr int64_t interval_ns = 1000000;

    //! Start afresh (a run begins): nothing waits, every code may go at once.
    void reset();
    //! Record \p r (a code outside 16..21 is ignored); take() lets it go.
    void add(const tx_report& r);
    //! The records that may go at \p now_ns, up to \p max into \p out (each leaves the
    //! limiter); \p all: every one waiting, whatever the rate (the end of a run).
    size_t take(int64_t now_ns, tx_report* out, size_t max, bool all = false);
    //! When take() has something next (INT64_MAX: nothing waits).
    int64_t next_due() const;

private:
    struct slot {
        bool waiting = false;
        bool sent = false; // one went before: the next waits for the interval
        int64_t last_ns = 0;
        tx_report r;
    };
    std::array<slot, codes> d_slots{};
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
