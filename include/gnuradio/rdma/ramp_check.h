/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RAMP_CHECK_H
#define INCLUDED_RDMA_RAMP_CHECK_H

#include <gnuradio/rdma/api.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * \brief Check a stream against the emulator's ramp, and where it lives in memory.
 * \ingroup rdma
 *
 * \details
 * A sink for link tests: compares every item with the ramp (see gnuradio/rdma/ramp.h)
 * and counts mismatches. When given a memory range, it also checks on every call of
 * work() that its input lies inside it — with the range of an rx_source's ring this
 * proves that the samples are read where the NIC wrote them (zero copy).
 */
class RDMA_API ramp_check : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<ramp_check> sptr;

    /*!
     * \param format "fc32" or "sc16"
     * \param range_base start of the memory range the input must lie in (0: no check)
     * \param range_bytes length of that range
     */
    static sptr
    make(const std::string& format = "fc32", uint64_t range_base = 0, uint64_t range_bytes = 0);

    virtual uint64_t items_checked() const = 0;
    virtual uint64_t mismatches() const = 0;
    //! Item index of the first mismatch, or 2^64-1 if none.
    virtual uint64_t first_mismatch() const = 0;
    virtual uint64_t work_calls() const = 0;
    //! Calls of work() whose input was not entirely inside the range.
    virtual uint64_t out_of_range_calls() const = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RAMP_CHECK_H */
