/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_SIGMF_SINK_H
#define INCLUDED_RDMA_SIGMF_SINK_H

#include <gnuradio/rdma/api.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief Record a stream as SigMF 1.2 (PATH.sigmf-data + PATH.sigmf-meta), every loss
 * annotated.
 * \ingroup rdma
 *
 * \details
 * The items are written to PATH.sigmf-data as they come (no buffer of the block's
 * own); PATH.sigmf-meta says what they are: the datatype of the format, the sample
 * rate, the device time (core:datetime, from "rx_time"), the centre frequency
 * (core:frequency, from "rx_freq"), a new capture where the time leaps, the rate
 * ("rx_rate") or the frequency changes, and an annotation per gap and overrun that
 * rx_source reports on its "async_msgs" port, connected to this block's "events"
 * input. docs/recording.md has the layout and the keys.
 *
 * rotate_size (bytes of samples) and rotate_seconds (of samples) > 0 make the
 * recording a series PATH-0000, PATH-0001, ..., each a recording of its own that holds
 * exactly the limit but the last. At most max_annotations annotations (and as many
 * captures) wait in memory; beyond them they are counted, not kept
 * (rdma:annotations_dropped, rdma:captures_dropped).
 *
 * The meta is written when a file opens, when it is rotated away and when the
 * flowgraph stops (finish() writes it again), always whole or not at all. A write the
 * disk refuses (full, a file size limit) ends the recording: the error is logged and
 * kept (error()), a partial sample at the end is cut off, the meta is written for the
 * samples in the file with rdma:error, and later items are dropped.
 */
class RDMA_API sigmf_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<sigmf_sink> sptr;

    /*!
     * \param path the recording without extension (a trailing .sigmf-data or
     *        .sigmf-meta is taken off); its directory must exist
     * \param format "fc32", "sc16" or "sc8": the items' format (cf32_le, ci16_le, ci8)
     * \param sample_rate samples/s until an rx_rate tag says otherwise (> 0)
     * \param hw core:hw (left out when empty)
     * \param recorder core:recorder
     * \param description core:description (left out when empty)
     * \param rotate_size bytes of samples per file, >= 0 (0: no limit)
     * \param rotate_seconds seconds of samples per file, >= 0 (0: no limit)
     * \param max_annotations annotations (and captures) kept at most, >= 1
     * \throws std::invalid_argument for a bad parameter or a directory that does not
     *         exist; std::system_error when the data file cannot be created
     */
    static sptr make(const std::string& path,
                     const std::string& format = "fc32",
                     double sample_rate = 1e6,
                     const std::string& hw = "",
                     const std::string& recorder = "gr-rdma",
                     const std::string& description = "",
                     int64_t rotate_size = 0,
                     double rotate_seconds = 0.0,
                     int64_t max_annotations = 100000);

    //! Write the meta of the file being written from what it holds now (when the
    //! flowgraph stops, and again whenever called).
    virtual void finish() = 0;
    //! Why the recording ended early (a full disk, a meta file that could not be
    //! written); empty when it did not.
    virtual std::string error() const = 0;
    //! The paths (without extension) of the files written so far, in order.
    virtual std::vector<std::string> recordings() const = 0;
    //! core:datatype of the recording: ci16_le, cf32_le or ci8.
    virtual std::string datatype() const = 0;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_SIGMF_SINK_H */
