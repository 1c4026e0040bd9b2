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
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief Check an RDMA source's test signal against its own reports, sample by sample.
 * \ingroup rdma
 *
 * \details
 * A sink for link tests. It follows the source's tags: "rx_time" (with "rx_rate")
 * tells which device sample each item is, so the expected value is known after
 * overruns too; "rx_gap" announces items delivered as zeros, which must be zeros.
 * Connect the source's "async_msgs" port to the "events" port so that samples reported
 * lost after delivery (overwritten while unread, or replaced by zeros on the device) are
 * excused. Everything else must match the emulator's test signal exactly: the ramp
 * (gnuradio/rdma/ramp.h) by default, or any signal of gnuradio/rdma/test_signal.h,
 * recomputed from the same device args the source was given. With the ramp, whose
 * items encode their own index, every rx_time is also checked against the sample the
 * data carries.
 *
 * When given a memory range (e.g. the source's ring_base() and 2 * ring_bytes()) it
 * also counts work() calls whose input lies outside it: the zero-copy check.
 */
class RDMA_API ramp_check : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<ramp_check> sptr;

    /*!
     * \param format "fc32", "sc16" or "sc8": the items' format, which must be the
     *        wire format (the ramp is defined per wire format)
     * \param range_base start of the memory range the input must lie in (0: no check)
     * \param range_bytes length of that range
     * \param signal the source's device args, or just their signal keys (signal=,
     *        freq=, amplitude=, seed=; other keys are ignored): the signal to expect.
     *        Empty: the ramp.
     */
    static sptr make(const std::string& format = "fc32",
                     uint64_t range_base = 0,
                     uint64_t range_bytes = 0,
                     const std::string& signal = "");

    virtual uint64_t items_checked() const = 0;
    //! Items that matched neither the ramp nor a reported gap's zeros.
    virtual uint64_t mismatches() const = 0;
    //! Mismatches not covered by a report of loss after delivery (should be 0).
    virtual uint64_t unexplained_mismatches() const = 0;
    //! The first \p max unexplained mismatches as [first item, count] runs, to see
    //! where they are.
    virtual std::vector<std::vector<uint64_t>>
    unexplained_ranges(size_t max = 16) const = 0;
    //! Item index of the first mismatch, or 2^64-1 if none.
    virtual uint64_t first_mismatch() const = 0;
    //! Items inside reported gaps (all were zeros unless counted as mismatches).
    virtual uint64_t gap_items() const = 0;
    //! Items reported lost after delivery by the source (async_msgs): overwritten or
    //! zero-substituted.
    virtual uint64_t overwritten_items() const = 0;
    virtual uint64_t time_tags() const = 0;
    //! rx_time tags whose sample differs from the one the data carries (tags on
    //! samples reported overwritten excepted).
    virtual uint64_t time_errors() const = 0;
    virtual uint64_t work_calls() const = 0;
    //! Calls of work() whose input was not entirely inside the range.
    virtual uint64_t out_of_range_calls() const = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RAMP_CHECK_H */
