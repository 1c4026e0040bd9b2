/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sample_source.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace rdma {
namespace emu {

scene_source::scene_source(const rf_scene::config& c, const rf_channel* channel)
    : d_scene(c),
      d_channel(channel),
      d_fixed(rf_scene::start(rf_limits{}.freq_reset_mhz,
                              rf_limits{}.gain_reset_mdb,
                              c.t0_ns,
                              c.rate_num,
                              c.rate_den))
{
}

void scene_source::generate(uint64_t first, size_t count, uint8_t* out) const
{
    const size_t size = item_size(d_scene.configuration().format);
    if (!d_channel) {
        d_scene.generate(d_fixed, first, count, out);
        return;
    }
    // One stretch per tuning: a retune inside the range takes effect at its sample.
    for (size_t done = 0; done < count;) {
        const uint64_t k = first + done;
        rf_scene::segment s;
        uint64_t next = 0;
        size_t n = count - done;
        if (!d_channel->tuning_at(k, s, next)) {
            std::memset(out + done * size, 0, n * size);
            return;
        }
        n = static_cast<size_t>(std::min<uint64_t>(n, next - k));
        d_scene.generate(s, k, n, out + done * size);
        done += n;
    }
}

std::unique_ptr<sample_source>
make_sample_source(const rx_descriptor& d, uint64_t t0_ns, const rf_channel* channel)
{
    if (d.signal.kind != test_signal_kind::scene)
        return std::make_unique<test_signal_source>(
            d.signal, d.first_message * (d.payload_bytes / item_size(d.signal.format)));
    rf_scene::config c;
    c.tone_count = std::min<unsigned>(d.scene.tones, rf_scene::max_tones);
    for (unsigned i = 0; i < c.tone_count; i++)
        c.tones[i] = { d.scene.freq_mhz[i], d.scene.amplitude[i] };
    c.noise = d.scene.noise;
    c.format = d.format;
    c.rate_num = d.rate_num;
    c.rate_den = d.rate_den;
    c.t0_ns = t0_ns;
    return std::make_unique<scene_source>(c, channel);
}

} // namespace emu
} // namespace rdma
} // namespace gr
