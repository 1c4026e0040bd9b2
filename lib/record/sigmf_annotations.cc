/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sigmf_annotations.h"
#include <algorithm>

namespace gr {
namespace rdma {

sigmf_annotation sigmf_annotation::of_report(kind type,
                                             const std::string& cause,
                                             uint64_t first_sample,
                                             uint64_t count)
{
    sigmf_annotation a;
    a.type = type;
    a.cause = cause;
    a.item = first_sample;
    a.lost = count;
    a.span = a.skipped() ? 1 : std::max<uint64_t>(1, count);
    return a;
}

std::string sigmf_annotation::comment() const
{
    const std::string n = std::to_string(lost);
    if (type == kind::gap)
        return n + " samples lost (" + cause + "): zeros in the recording";
    if (skipped())
        return n + " samples skipped before this one (overrun: the reader fell a ring "
                   "behind); they are not in the recording";
    return n + " samples overwritten while unread (overrun, " + cause + ")";
}

sigmf_annotations::sigmf_annotations(size_t max) : d_max(std::max<size_t>(1, max)) {}

bool sigmf_annotations::add(const sigmf_annotation& a)
{
    if (d_sorted.size() >= d_max)
        return false;
    // Reports come roughly in order (an overwrite is reported after later gaps): after
    // those on the same item, so that they keep the order they came in.
    const auto at = std::upper_bound(
        d_sorted.begin(),
        d_sorted.end(),
        a.item,
        [](uint64_t item, const sigmf_annotation& b) { return item < b.item; });
    d_sorted.insert(at, a);
    return true;
}

void sigmf_annotations::forget_before(uint64_t item)
{
    d_sorted.erase(std::remove_if(d_sorted.begin(),
                                  d_sorted.end(),
                                  [item](const sigmf_annotation& a) {
                                      return a.item + a.span <= item;
                                  }),
                   d_sorted.end());
}

} // namespace rdma
} // namespace gr
