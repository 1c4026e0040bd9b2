/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RECORD_SIGMF_META_H
#define INCLUDED_RDMA_RECORD_SIGMF_META_H

#include "sigmf_annotations.h"
#include "sigmf_timeline.h"
#include <gnuradio/rdma/transport_api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

//! What every file of a recording says the same.
struct sigmf_global {
    std::string datatype; //!< ci16_le, cf32_le or ci8
    std::string recorder;
    std::string hw;          //!< left out when empty
    std::string description; //!< left out when empty
};

//! One PATH.sigmf-data / PATH.sigmf-meta pair.
struct sigmf_file {
    uint64_t first_item = 0; //!< its first item's index in the run
    bool final = false;      //!< its item count is known (items)
    uint64_t items = 0;      //!< when final
    int part = -1;           //!< its number in a rotated series; -1: not rotated
    uint64_t annotations_dropped = 0;
    uint64_t captures_dropped = 0;
    std::string error; //!< why the recording ended early; empty: it did not
};

/*!
 * \brief The SigMF 1.2 meta file of one file of a recording (docs/recording.md, "The
 * meta file"), as JSON text.
 *
 * Captures: the segment in effect at the file's first item, at sample 0 (with the
 * time and global index of that item), and every segment that starts inside the file.
 * Annotations: those that overlap the file, cut to it (rdma:split when cut). Before
 * the file is final its end is not known: nothing is cut at the end then.
 */
RDMA_TRANSPORT_API std::string sigmf_meta_text(const sigmf_global& global,
                                               const sigmf_file& file,
                                               const sigmf_timeline& timeline,
                                               const sigmf_annotations& annotations);

//! ISO-8601 UTC with nanoseconds, as core:datetime takes it:
//! 2023-11-14T22:13:20.123456789Z for 1700000000123456789.
RDMA_TRANSPORT_API std::string sigmf_datetime(uint64_t time_ns);

/*!
 * \brief Write \p text to \p path whole or not at all: into path.tmp, then renamed over
 * it, so that a disk that refuses the write leaves the previous file as it was.
 * \return empty, or why it failed (strerror).
 */
RDMA_TRANSPORT_API std::string write_file_whole(const std::string& path,
                                                const std::string& text);

} // namespace rdma
} // namespace gr

#endif
