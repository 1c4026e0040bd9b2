/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A downstream flowgraph: RDMA RX Source (a burst from the built-in emulator) into a
// Null Sink. Exit status 0 only if the burst ended the flowgraph with every sample the
// device emitted delivered.

#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/rdma/rx_source.h>
#include <gnuradio/top_block.h>
#include <cstdint>
#include <cstdio>
#include <exception>

int main()
{
    const uint64_t items = 1000000;
    try {
        auto tb = gr::make_top_block("downstream");
        auto src = gr::rdma::rx_source::make("type=emu,signal=ramp", "fc32", 2e6, items);
        auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
        tb->connect(src, 0, sink, 0);
        tb->run(); // the source ends the flowgraph after the burst
        const auto counters = src->read_counters();
        const uint64_t emitted = counters.at("device.samples_emitted");
        std::printf("flowgraph: device emitted %llu of %llu items%s%s\n",
                    (unsigned long long)emitted,
                    (unsigned long long)items,
                    src->error().empty() ? "" : ", error: ",
                    src->error().c_str());
        return emitted == items && src->error().empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "flowgraph: %s\n", e.what());
        return 1;
    }
}
