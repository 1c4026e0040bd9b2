/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RECORD_SIGMF_ANNOTATIONS_H
#define INCLUDED_RDMA_RECORD_SIGMF_ANNOTATIONS_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

//! A loss the source reported (a gap or an overrun), as a recording annotates it.
struct RDMA_TRANSPORT_API sigmf_annotation {
    enum class kind { gap, overrun };

    //! From a report's type, cause, first_sample and count: a skip (an overrun whose
    //! samples never reached the host, so are not in the file) covers the one item
    //! after the leap; the others the items they name (at least one).
    static sigmf_annotation
    of_report(kind type, const std::string& cause, uint64_t first_sample, uint64_t count);

    bool skipped() const { return type == kind::overrun && cause == "skipped"; }
    const char* label() const { return type == kind::gap ? "gap" : "overrun"; }
    //! A sentence: how many samples, the cause, and what is in the file there.
    std::string comment() const;

    uint64_t item = 0; //!< first item of the run it covers
    uint64_t span = 1; //!< items it covers
    kind type = kind::gap;
    std::string cause;
    uint64_t lost = 0; //!< the report's count
    bool has_device_sample = false;
    uint64_t device_sample = 0;
    //! A gap of a stream over several links: the links that carried it (bit n: link
    //! n; bit 31: not known). 0: one link.
    uint32_t links = 0;
};

/*!
 * \brief The annotations that wait for their file to be closed, in item order (those
 * on one item in the order they came), at most max of them.
 */
class RDMA_TRANSPORT_API sigmf_annotations
{
public:
    explicit sigmf_annotations(size_t max);

    //! False when max wait already (the caller counts it): nothing is kept then.
    bool add(const sigmf_annotation& a);
    //! Forget those that end at or before \p item: a file that starts there needs only
    //! those that reach past it.
    void forget_before(uint64_t item);
    const std::vector<sigmf_annotation>& sorted() const { return d_sorted; }

private:
    const size_t d_max;
    std::vector<sigmf_annotation> d_sorted;
};

} // namespace rdma
} // namespace gr

#endif
