/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "app_flags.h"
#include "tx_signal_source.h"
#include <fcntl.h>
#include <poll.h>
#include <system_error>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace gr {
namespace rdma {
namespace app {

tx_signal_source::tx_signal_source(const tx_options& o)
    : d_item(item_size(parse_sample_format(o.format))),
      d_repeat(o.repeat),
      d_pipe(o.from_file && o.file_items == 0)
{
    if (o.from_file) {
        d_file = file_descriptor(::open(o.signal.c_str(), O_RDONLY | O_CLOEXEC));
        if (!d_file)
            throw usage_error("--signal " + o.signal + ": " + std::strerror(errno) +
                              ": expected ramp, tone or a readable FILE");
        return;
    }
    test_signal_config c;
    c.kind = o.signal == "tone" ? test_signal_kind::tone : test_signal_kind::ramp;
    c.format = parse_sample_format(o.format);
    c.sample_rate = o.rate;
    c.freq_hz = o.wave_freq;
    c.amplitude = static_cast<float>(o.ampl);
    d_generator = std::make_unique<test_signal>(c);
}

size_t tx_signal_source::fill(uint8_t* out, uint64_t first, size_t items)
{
    if (items == 0 || d_ended)
        return 0;
    if (d_generator) {
        d_generator->generate(first, items, out);
        return items;
    }
    return read_file(out, items);
}

size_t tx_signal_source::read_file(uint8_t* out, size_t items)
{
    // A pipe may have nothing for a long time: wait boundedly, so that the run sees a
    // stop request (signals are blocked, no read() is interrupted).
    if (d_pipe) {
        pollfd p{ d_file.get(), POLLIN, 0 };
        if (::poll(&p, 1, 50) == 0)
            return 0;
    }
    const size_t want = items * d_item;
    size_t got = 0;
    while (got < want) {
        const ssize_t r = ::read(d_file.get(), out + got, want - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            throw std::system_error(errno, std::generic_category(), "reading --signal");
        }
        if (r == 0) {
            // A FILE of nothing more would rewind for ever: it ends instead.
            if (d_repeat && d_pass_bytes > 0 && got % d_item == 0) {
                if (::lseek(d_file.get(), 0, SEEK_SET) < 0)
                    throw std::system_error(
                        errno, std::generic_category(), "--repeat: rewinding --signal");
                d_rewinds++;
                d_pass_bytes = 0;
                continue;
            }
            d_ended = true;
            break;
        }
        got += static_cast<size_t>(r);
        d_pass_bytes += static_cast<size_t>(r);
        // Whole items are enough: a pipe with no more yet must not hold them back.
        if (got % d_item == 0)
            break;
    }
    const size_t tail = got % d_item;
    d_tail_dropped += tail; // only at the end: short reads go on to a whole item
    return got / d_item;
}

} // namespace app
} // namespace rdma
} // namespace gr
