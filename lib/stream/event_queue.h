/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_EVENT_QUEUE_H
#define INCLUDED_RDMA_STREAM_EVENT_QUEUE_H

#include <gnuradio/rdma/rx_event.h>
#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * A bounded FIFO of reports, filled on the data path: fixed storage, no allocation.
 * When full, new reports are counted as discarded rather than stored.
 */
template <size_t capacity>
class event_queue
{
public:
    void push(const rx_event& e)
    {
        if (d_count == capacity) {
            d_discarded++;
            return;
        }
        d_events[(d_head + d_count) % capacity] = e;
        d_count++;
    }
    bool pop(rx_event& out)
    {
        if (d_count == 0)
            return false;
        out = d_events[d_head];
        d_head = (d_head + 1) % capacity;
        d_count--;
        return true;
    }
    //! The \p age-th newest report still queued (0: the newest; nullptr: none), to
    //! amend it in place.
    rx_event* newest(size_t age = 0)
    {
        return age < d_count ? &d_events[(d_head + d_count - 1 - age) % capacity]
                             : nullptr;
    }
    void clear()
    {
        d_head = d_count = 0;
        d_discarded = 0;
    }
    size_t size() const { return d_count; }
    uint64_t discarded() const { return d_discarded; }

private:
    std::array<rx_event, capacity> d_events{};
    size_t d_head = 0;
    size_t d_count = 0;
    uint64_t d_discarded = 0;
};

} // namespace rdma
} // namespace gr

#endif
