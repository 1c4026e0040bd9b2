/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_ITEM_RANGE_SET_H
#define INCLUDED_RDMA_UTIL_ITEM_RANGE_SET_H

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace gr {
namespace rdma {

/*!
 * A set of items kept as disjoint ranges [first, end): ranges added in any order, nested
 * or overlapping, merge, so every item is counted once. Reports of lost samples arrive
 * out of order and overlap (a device overflow inside a gap later overwritten); the
 * checker asks how many items of a range any of them covers.
 */
class item_range_set
{
public:
    //! Add [first, end); an empty range adds nothing.
    void add(uint64_t first, uint64_t end)
    {
        if (end <= first)
            return;
        auto it = d_ranges.upper_bound(first);
        if (it != d_ranges.begin()) {
            auto before = std::prev(it);
            if (before->second >= first) { // overlaps or touches: absorb it
                first = before->first;
                end = std::max(end, before->second);
                d_ranges.erase(before);
            }
        }
        while (it != d_ranges.end() && it->first <= end) {
            end = std::max(end, it->second);
            it = d_ranges.erase(it);
        }
        d_ranges.emplace_hint(it, first, end);
    }

    //! Items of [a, b) in the set.
    uint64_t overlap(uint64_t a, uint64_t b) const
    {
        uint64_t total = 0;
        auto it = d_ranges.upper_bound(a);
        if (it != d_ranges.begin())
            --it; // the one range that may start before a and reach into [a, b)
        for (; it != d_ranges.end() && it->first < b; ++it) {
            const uint64_t lo = std::max(a, it->first), hi = std::min(b, it->second);
            if (hi > lo)
                total += hi - lo;
        }
        return total;
    }

    bool contains(uint64_t item) const { return overlap(item, item + 1) != 0; }
    //! Items in the set.
    uint64_t size() const { return overlap(0, UINT64_MAX); }
    bool empty() const { return d_ranges.empty(); }
    void clear() { d_ranges.clear(); }

    //! The disjoint ranges, first -> end, in order.
    const std::map<uint64_t, uint64_t>& ranges() const { return d_ranges; }

private:
    std::map<uint64_t, uint64_t> d_ranges;
};

} // namespace rdma
} // namespace gr

#endif
