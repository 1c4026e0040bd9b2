/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A downstream program without GNU Radio: receives a burst of the built-in emulator's
// ramp through gr::rdma::rx_stream and checks every sample. Exit status 0 only if the
// whole burst arrived bit-exact.

#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv)
{
    using namespace std::chrono_literals;
    const uint64_t items = argc > 1 ? std::stoull(argv[1]) : 1000000;
    const char* format_name = argc > 2 ? argv[2] : "sc16";
    try {
        const auto format = gr::rdma::parse_sample_format(format_name);
        gr::rdma::rx_stream stream("type=emu,signal=ramp", format_name, 2e6, items);
        stream.start();
        gr::rdma::ramp_errors errors;
        uint64_t received = 0;
        const auto give_up = std::chrono::steady_clock::now() + 30s;
        bool end = false;
        while (!end && std::chrono::steady_clock::now() < give_up) {
            const gr::rdma::rx_stream::chunk c = stream.recv(1u << 16, 100ms);
            gr::rdma::check_ramp(format, c.first_item, c.data, c.items, errors);
            received += c.items;
            stream.release(c.items);
            end = c.end_of_stream;
        }
        stream.stop();
        const auto lost = stream.counts().lost();
        std::printf("rx_ramp: %llu of %llu %s items, %llu mismatches, %llu lost%s%s\n",
                    (unsigned long long)received,
                    (unsigned long long)items,
                    format_name,
                    (unsigned long long)errors.mismatches,
                    (unsigned long long)lost,
                    stream.error().empty() ? "" : ", error: ",
                    stream.error().c_str());
        return end && received == items && errors.mismatches == 0 && lost == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rx_ramp: %s\n", e.what());
        return 1;
    }
}
