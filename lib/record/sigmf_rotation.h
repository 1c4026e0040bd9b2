/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RECORD_SIGMF_ROTATION_H
#define INCLUDED_RDMA_RECORD_SIGMF_ROTATION_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * \brief When a recording moves on to its next file, and what the files are called
 * (docs/recording.md, "Rotation").
 *
 * Without a limit the recording is one pair, PATH.sigmf-data and PATH.sigmf-meta.
 * With a size (bytes of samples) or a duration (seconds of samples), or both (the
 * first reached wins), it is PATH-0000, PATH-0001, ..., each holding exactly the
 * limit but the last: the size rounded up to whole items, the duration at the rate of
 * the file's first sample.
 */
class RDMA_TRANSPORT_API sigmf_rotation
{
public:
    static constexpr uint64_t unlimited = UINT64_MAX;

    //! \p path without extension; 0 bytes and 0 seconds: no rotation.
    sigmf_rotation(const std::string& path,
                   uint64_t rotate_bytes,
                   double rotate_seconds,
                   size_t item_size);

    bool rotating() const { return d_items != 0 || d_seconds > 0; }
    //! The path, without extension, of file \p index.
    std::string base(unsigned index) const;
    //! Items a file may hold when its first sample is at \p rate samples/s.
    uint64_t limit(double rate) const;

private:
    const std::string d_path;
    const uint64_t d_items;
    const double d_seconds;
};

} // namespace rdma
} // namespace gr

#endif
