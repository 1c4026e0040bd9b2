/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TX_BURST_TAGS_H
#define INCLUDED_RDMA_TX_BURST_TAGS_H

#include <gnuradio/logger.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <cstdint>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * tx_sink's reading of gr-uhd's burst tags (docs/transmit.md, "Bursts and time"), as
 * gr-uhd's usrp_sink interprets them:
 *  - tx_time (a tuple of uint64 full and double fractional seconds) on item k: item k
 *    plays at that device time. Inside a burst that is an END at k and a START at k
 *    with the time; outside one, a START.
 *  - tx_eob (PMT_T) on item k: the burst ends after item k (an END at k + 1). Items
 *    after it without a tx_time begin a burst as soon as possible.
 *  - tx_sob: marks where a burst begins, which the items after an END (or the first
 *    item) do anyway; without a tx_time on the same item it starts as soon as
 *    possible, as gr-uhd's does. Inside an open burst it changes nothing (gr-uhd sends
 *    no burst boundary for it either).
 *  - tx_sob / tx_eob with value PMT_F: no effect, as gr-uhd's.
 * A tag of these keys whose value is malformed is ignored, with a warning once per key.
 *
 * The actions happen at commit positions: position p is before item p is committed.
 * Stateless about the tags themselves (GNU Radio keeps them until their items are
 * consumed), so a call that could not commit everything (the ring full) finds them
 * again; it remembers which positions it applied.
 */
class tx_burst_tags
{
public:
    //! What happens at a commit position.
    struct action {
        bool end = false;   //!< end the open burst (a tx_eob on the item before)
        bool begin = false; //!< begin a burst (a tx_time on this item)
        uint64_t time_ns = 0;
        bool any() const { return end || begin; }
    };

    explicit tx_burst_tags(gr::logger_ptr logger);

    //! A new run; \p skip_time_at_0: a tx_time on item 0 started the device at its
    //! time already (not a burst boundary).
    void reset(bool skip_time_at_0);
    //! Take \p tags, the input's tags of the items to commit (from the first item not
    //! committed, or the one before it): the burst keys are kept, in offset order.
    void scan(const std::vector<gr::tag_t>& tags);
    /*!
     * The first commit position at or after \p at and at most \p to with something to
     * do that was not done yet, and what (\p a); \p to with nothing when none.
     */
    uint64_t next(uint64_t at, uint64_t to, action& a) const;
    /*!
     * The actions \p a at position \p p are done. An END and a START at one position
     * may come from different calls (the tx_eob before it seen first, the tx_time on it
     * once its item is written): each is remembered apart.
     */
    void applied(uint64_t p, const action& a);

    //! gr-uhd's time: (uint64 full seconds, double fraction); 0 if malformed.
    static uint64_t time_of(const pmt::pmt_t& t);
    //! The time of a tx_time on item 0 among \p tags (0: none or malformed).
    uint64_t time_at_0(const std::vector<gr::tag_t>& tags) const;

private:
    bool wanted_end(uint64_t p) const { return !d_any_end || p > d_end_at; }
    bool wanted_begin(uint64_t p) const { return !d_any_begin || p > d_begin_at; }
    void warn_once(int which, const char* text) const;

    gr::logger_ptr d_logger;
    std::vector<gr::tag_t> d_tags; // of the last scan(), the burst keys only
    bool d_skip_time_at_0 = false;
    bool d_any_end = false, d_any_begin = false;
    uint64_t d_end_at = 0, d_begin_at = 0; // the last positions applied
    mutable bool d_warned[3] = {};
};

} // namespace rdma
} // namespace gr

#endif
