/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_TX_SIGNAL_SOURCE_H
#define INCLUDED_RDMA_APPS_TX_SIGNAL_SOURCE_H

#include "tx_options.h"
#include "util/file_descriptor.h"
#include <gnuradio/rdma/test_signal.h>
#include <cstddef>
#include <cstdint>
#include <memory>

/*
 * What gr-rdma-tx transmits, written where it is told: into the TX ring's free space,
 * in place. The ramp and the tone are computed into it (test_signal, the emulator's
 * own generator, so the device's ramp check recomputes the same items); a FILE is
 * read() into it. No intermediate buffer either way.
 */

namespace gr {
namespace rdma {
namespace app {

class tx_signal_source
{
public:
    explicit tx_signal_source(const tx_options& o);

    /*!
     * Write up to \p items items, item \p first of the run first, at \p out; returns
     * how many it wrote (fewer from a pipe that has no more yet, 0 at the end of a
     * FILE played once). Throws std::system_error when a read fails.
     */
    size_t fill(uint8_t* out, uint64_t first, size_t items);

    //! A FILE played to its end (and not --repeat): nothing more will come.
    bool ended() const { return d_ended; }
    //! Times a FILE was started from its beginning again (--repeat).
    uint64_t rewinds() const { return d_rewinds; }
    //! Bytes of an incomplete last item of a FILE that was no regular file, dropped.
    uint64_t tail_bytes_dropped() const { return d_tail_dropped; }

private:
    size_t read_file(uint8_t* out, size_t items);

    std::unique_ptr<test_signal> d_generator; // ramp, tone
    file_descriptor d_file;                   // FILE
    size_t d_item;
    bool d_repeat;
    bool d_pipe; // a FILE that is no regular file: its data comes when it comes
    bool d_ended = false;
    uint64_t d_rewinds = 0;
    uint64_t d_tail_dropped = 0;
    uint64_t d_pass_bytes = 0; // read since the FILE's start (a rewind of nothing ends)
};

} // namespace app
} // namespace rdma
} // namespace gr

#endif
