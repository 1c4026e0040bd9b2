/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the host's copy of a device's schedule (lib/stream/epoch_follower.cc)
// and the finality it feeds (destination_progress.cc): what a device (or a forger on
// the AXIoE path) says in its epoch block, interleaved with immediates. The input is a
// run of records: tag 0 a snapshot (EPOCH_SCHEDULED-derived known u64, EPOCH_COUNT
// u32, entries u8, then per entry 8 big-endian words as the device's block holds them,
// then what the device can have scheduled u64); tag 1 an immediate (destination u8,
// imm u32, byte_len u32, produced bound u64); tag 2 the clock's finality (u64).
// Whatever they say: the known schedule only grows, nothing lands beyond it, epochs
// only move forward, a failure is final. abort() marks a broken invariant.

#include "stream/destination_progress.h"
#include "stream/epoch_follower.h"
#include <cstdlib>

using namespace gr::rdma;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

struct reader {
    const uint8_t* p;
    size_t left;
    bool take(uint64_t& v, size_t n)
    {
        if (left < n)
            return false;
        v = 0;
        for (size_t i = 0; i < n; i++)
            v = (v << 8) | p[i];
        p += n;
        left -= n;
        return true;
    }
};

constexpr uint64_t ipm = 256;
constexpr uint32_t item_bytes = 4;
constexpr uint32_t notify = 4;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    regs::link_schedule schedule;
    epoch_follower::weights_t programmed{};
    programmed[0] = 1;
    programmed[1] = 1;
    schedule.begin_epoch(0, programmed, notify);
    destination_progress progress;
    progress.reset(schedule, ipm, 0, notify, item_bytes);
    epoch_follower follower;
    follower.reset(schedule, progress, 2, programmed, notify);

    reader in{ data, size };
    uint64_t known = 0;
    uint64_t first = 0;
    bool failed = false;
    uint64_t tag;
    while (in.take(tag, 1)) {
        uint64_t a, b, c, d;
        switch (tag % 3) {
        case 0: {
            epoch_snapshot s;
            uint64_t kept;
            if (!in.take(a, 8) || !in.take(b, 4) || !in.take(kept, 1))
                return 0;
            s.known_messages = a;
            s.epoch_count = static_cast<uint32_t>(b);
            s.kept = static_cast<unsigned>(kept % (epoch_snapshot::max_kept + 2));
            for (unsigned j = 0; j < s.kept && j < epoch_snapshot::max_kept; j++) {
                uint32_t w[regs::epoch::entry_words];
                for (uint32_t& x : w) {
                    if (!in.take(c, 4))
                        return 0;
                    x = static_cast<uint32_t>(c);
                }
                s.epochs[j] = regs::epoch_values::from_words(w);
            }
            if (!in.take(d, 8))
                return 0;
            const bool ok = follower.follow(s, d);
            require(!(failed && ok)); // a failure is final
            failed = failed || !ok;
            require(ok == !follower.failed());
            require(follower.change_count() <= epoch_follower::max_changes);
            break;
        }
        case 1:
            if (!in.take(a, 1) || !in.take(b, 4) || !in.take(c, 4) || !in.take(d, 8))
                return 0;
            progress.on_immediate(static_cast<unsigned>(a % 9),
                                  static_cast<uint32_t>(b),
                                  static_cast<uint32_t>(c),
                                  d);
            break;
        default:
            if (!in.take(a, 8))
                return 0;
            progress.pass_final(a);
            break;
        }
        require(progress.known() >= known); // the known schedule only grows
        known = progress.known();
        require(progress.landed_messages() <= known);
        for (unsigned dst = 0; dst < 2; dst++) // only immediates below it were judged
            require(progress.frontier(dst) <= known);
        require(schedule.epoch_first() >= first); // epochs only move forward
        first = schedule.epoch_first();
    }
    return 0;
}
