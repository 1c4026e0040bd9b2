/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_RATE_HOLD_H
#define INCLUDED_RDMA_STREAM_RATE_HOLD_H

#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Whether the device's controller holds an RX stream below what its samples need
 * (CTRL_RATE, docs/register-map.md "Controller"): held there the stream loses the
 * rest at the device, its FIFO overflowing, and the host must say why rather than
 * leave it to the gaps (a stream water filling kept at 1 KiB/s lost 80 % of its samples
 * with no word, issue 31). Fed each CTRL_RATE reading of the device watch; a hold
 * begins once `readings` readings in a row were held (a NAK backoff's dip regains
 * within a few controller runs, milliseconds, and is no hold), and ends at the first
 * reading that is not. Pure: no I/O, no allocation.
 */
class rate_hold
{
public:
    enum class change { none, began, ended };
    static constexpr unsigned readings = 2;

    //! \p need_bytes_per_s: sample bytes per second the stream needs (its rate times
    //! its item size, no more than the host's own RX_RATE_LIMIT when it set one: that
    //! is the host's choice, not a hold); 0: nothing is a hold.
    explicit rate_hold(uint64_t need_bytes_per_s = 0) : d_need(need_bytes_per_s) {}

    //! One reading of CTRL_RATE (KiB/s of sample bytes, rounded up; 0: not held).
    change feed(uint32_t ctrl_rate_kib);
    bool held() const { return d_reported; }
    //! The rate of the last reading that was held, bytes/s.
    uint64_t held_bytes_per_s() const { return d_held; }
    uint64_t need_bytes_per_s() const { return d_need; }

private:
    uint64_t d_need;
    uint64_t d_held = 0;
    unsigned d_in_a_row = 0;
    bool d_reported = false;
};

} // namespace rdma
} // namespace gr

#endif
