/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_QA_LOSS_TRACKER_BENCH_H
#define INCLUDED_RDMA_STREAM_QA_LOSS_TRACKER_BENCH_H

// The loss tracker's suites (qa_loss_tracker, qa_loss_tracker_laps,
// qa_loss_tracker_mark) run it on a plain double-size buffer standing in for the ring:
// a fake device writes ramp messages into slots (or loses them), a fake consumer takes
// what the tracker hands out, and every sample must be accounted for exactly once.

#include "loss_tracker.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>
#include <set>
#include <vector>

namespace qa_loss_tracker_bench {

using namespace gr::rdma;

constexpr size_t N = 64; // ring items
constexpr size_t P = 8;  // message items: 8 slots

struct bench {
    std::vector<uint8_t> memory = std::vector<uint8_t>(2 * N * 4, 0xEE);
    uint64_t burst;
    loss_tracker tracker;
    uint64_t next = 0; // consumer: next item to take
    std::vector<rx_event> events;
    ramp_errors errors;         // mismatches in delivered (non-lost) items
    uint64_t zeros_checked = 0; // lost items seen as zeros

    explicit bench(uint64_t burst_items = 0, size_t packet_items = 0)
        : burst(burst_items),
          tracker({ memory.data(), N, P, burst_items, packet_items }, sample_format::sc16)
    {
    }

    uint8_t* slot(uint64_t message)
    {
        return memory.data() + (message % (N / P)) * P * 4;
    }
    uint64_t items(uint64_t message) const
    {
        return burst ? std::min<uint64_t>(P, burst - message * P) : P;
    }

    void device_writes(uint64_t message, uint64_t only_first = UINT64_MAX)
    {
        for (uint64_t i = 0; i < std::min(only_first, items(message)); i++)
            ramp_item(sample_format::sc16, message * P + i, slot(message) + 4 * i);
    }

    // The consumer takes everything deliverable and checks it; returns items taken.
    uint64_t consume(uint64_t written_bound, bool release = true)
    {
        const uint64_t n = tracker.deliverable(next, written_bound);
        const uint64_t device = tracker.device_item(next);
        if (n)
            tracker.commit(next, n);
        rx_event e;
        std::set<uint64_t> lost;
        while (tracker.poll_event(e)) {
            events.push_back(e);
            if (e.type == rx_event::kind::gap)
                for (uint64_t i = 0; i < e.count; i++)
                    lost.insert(e.item + i);
        }
        const uint8_t* data = memory.data() + (device % N) * 4;
        for (uint64_t i = 0; i < n; i++) {
            if (lost.count(next + i)) {
                uint32_t w;
                std::memcpy(&w, data + 4 * i, 4);
                CPPUNIT_ASSERT_EQUAL(0u, w);
                zeros_checked++;
            } else {
                check_ramp(sample_format::sc16, device + i, data + 4 * i, 1, errors);
            }
        }
        next += n;
        if (release)
            tracker.on_release(next, written_bound);
        return n;
    }

    // The device writes message \p message as the ramp, but the first two items of its
    // (only) packet are \p first, \p second: a signal that happens to hold those values.
    void device_writes_words(uint64_t message, uint32_t first, uint32_t second)
    {
        device_writes(message);
        std::memcpy(slot(message), &first, 4);
        std::memcpy(slot(message) + 4, &second, 4);
    }

    uint64_t count_events(rx_event::kind k,
                          rx_event::reason r = rx_event::reason::none) const
    {
        uint64_t c = 0;
        for (const auto& e : events)
            c += e.type == k && (r == rx_event::reason::none || e.cause == r);
        return c;
    }
};

} // namespace qa_loss_tracker_bench

#endif
