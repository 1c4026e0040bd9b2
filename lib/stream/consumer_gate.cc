/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../device/shared_device.h"
#include "consumer_gate.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

// emu_pace=consumer: \p pacing, which the device must have; null for emu_pace=clock.
std::shared_ptr<consumer_pacing> paced(bool asked,
                                       std::shared_ptr<consumer_pacing> pacing)
{
    if (!asked)
        return nullptr;
    if (!pacing)
        throw std::invalid_argument(
            "device args: emu_pace=consumer is a test mode of an emulator in this "
            "process (type=emu): a device of its own keeps its own time; remove "
            "emu_pace=");
    return pacing;
}

} // namespace

bool consumer_gate::asked(const device_args& args)
{
    return args.get_choice(keys()["emu_pace"]) == "consumer";
}

std::unique_ptr<consumer_gate>
consumer_gate::make(bool asked, const shared_device& dev, unsigned stream)
{
    std::shared_ptr<consumer_pacing> pacing = paced(asked, dev.pacing(false, stream));
    return pacing ? std::make_unique<consumer_gate>(std::move(pacing)) : nullptr;
}

std::shared_ptr<consumer_pacing>
consumer_gate::make_tx(bool asked, const shared_device& dev, unsigned stream)
{
    return paced(asked, dev.pacing(true, stream));
}

const arg_table& consumer_gate::keys()
{
    // clang-format off
    static const arg_table t("consumer gate", {
        arg_key::choice("emu_pace", { "clock", "consumer" }, "clock", "consumer: an emulator in this process sends no faster than the consumer takes (tests that no load can break)"),
    });
    // clang-format on
    return t;
}

consumer_gate::consumer_gate(std::shared_ptr<consumer_pacing> pacing)
    : d_pacing(std::move(pacing))
{
}

consumer_gate::~consumer_gate()
{
    // Later runs of the stream by another object of this process keep their own time
    // unless they ask again.
    d_pacing->on.store(false, std::memory_order_release);
}

void consumer_gate::arm(uint64_t ring_items, uint64_t message_items, uint64_t run_base)
{
    // Half a ring less a message: the stream never finds the device half a ring ahead
    // of its consumer (loss_tracker: hold back, skip) nor lapping what it holds.
    d_ahead = ring_items / 2 > message_items ? ring_items / 2 - message_items : 0;
    d_base = run_base;
    d_seen_count = 0;
    d_final = 0;
    d_pacing->gate.store(d_ahead, std::memory_order_release);
    d_pacing->on.store(true, std::memory_order_release);
}

void consumer_gate::release(uint64_t released)
{
    const uint64_t gate = released + d_ahead > d_base ? released + d_ahead - d_base : 0;
    if (gate > d_pacing->gate.load(std::memory_order_relaxed))
        d_pacing->gate.store(gate, std::memory_order_release);
}

uint64_t consumer_gate::written_bound(uint64_t clock_bound) const
{
    return std::min(clock_bound,
                    d_base + d_pacing->produced.load(std::memory_order_acquire));
}

uint64_t consumer_gate::final_by(int64_t quiet_ns)
{
    // The count first (the device stores its time before it): a count is never paired
    // with an older time.
    const uint64_t sent = d_pacing->sent.load(std::memory_order_acquire);
    const int64_t at = d_pacing->sent_at_ns.load(std::memory_order_acquire);
    if (d_seen_count == 0 || d_seen[d_seen_count - 1].sent != sent) {
        if (d_seen_count == max_sightings) { // the oldest goes; its count is below
            std::move(d_seen.begin() + 1, d_seen.end(), d_seen.begin());
            d_seen_count--;
        }
        d_seen[d_seen_count++] = { sent, at };
    }
    const int64_t before = consumer_pacing::now_ns() - quiet_ns;
    size_t old = 0; // sightings old enough
    while (old < d_seen_count && d_seen[old].at_ns <= before)
        old++;
    if (old > 0) {
        d_final = std::max(d_final, d_base + d_seen[old - 1].sent);
        // Only the newest of those matters from now on.
        std::move(
            d_seen.begin() + old - 1, d_seen.begin() + d_seen_count, d_seen.begin());
        d_seen_count -= old - 1;
    }
    return d_final;
}

} // namespace rdma
} // namespace gr
