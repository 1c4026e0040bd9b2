/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_CONSUMER_GATE_H
#define INCLUDED_RDMA_STREAM_CONSUMER_GATE_H

#include "../device/consumer_pacing.h"
#include "../util/device_args.h"
#include <array>
#include <memory>
#include <set>
#include <string>

namespace gr {
namespace rdma {

class shared_device;

/*!
 * The host's side of the test mode emu_pace=consumer (lib/device/consumer_pacing.h):
 * it lets the emulator in this process produce half a ring (less a message) past what
 * the consumer released, so that the device never laps the consumer and the stream
 * never skips nor holds back, however slowly the consumer runs. The device's timeline
 * then runs slower than the host's clock, so the host takes from the gate what the
 * clock would have told it: what the device may have written (exactly), and what is
 * final without a notification (what the device sent, once it has sent nothing for a
 * while: a lost last notification).
 */
class consumer_gate
{
public:
    //! emu_pace=consumer in \p args (clock, the default: false).
    static bool asked(const device_args& args);
    //! Null unless \p paced (emu_pace=consumer): RX stream \p stream's gate on
    //! \p dev. Throws std::invalid_argument naming the fix when \p dev cannot be
    //! paced (it does not run in this process).
    static std::unique_ptr<consumer_gate>
    make(bool paced, const shared_device& dev, unsigned stream);
    //! For TX stream \p stream of \p dev: null unless \p paced; else its pacing,
    //! which the stream turns on before each START (the device's converter then waits
    //! for the host's samples: nothing plays late or as underflow). Throws as make().
    static std::shared_ptr<consumer_pacing>
    make_tx(bool paced, const shared_device& dev, unsigned stream);
    static const arg_table& keys();

    explicit consumer_gate(std::shared_ptr<consumer_pacing> pacing);
    ~consumer_gate();
    consumer_gate(const consumer_gate&) = delete;
    consumer_gate& operator=(const consumer_gate&) = delete;

    //! Before a run's START: a ring of \p ring_items, messages of \p message_items,
    //! the run's sample 0 the stream's \p run_base.
    void arm(uint64_t ring_items, uint64_t message_items, uint64_t run_base);
    //! The consumer released the stream's samples below \p released.
    void release(uint64_t released);
    //! Stream samples the device may have written by now; never above \p clock_bound.
    uint64_t written_bound(uint64_t clock_bound) const;
    //! Stream samples final without a notification: what the device had sent
    //! \p quiet_ns ago, as far as this gate saw (its path had that long to deliver it).
    //! Call it often (each look of the stream): it learns what was sent when.
    uint64_t final_by(int64_t quiet_ns);

private:
    const std::shared_ptr<consumer_pacing> d_pacing;
    uint64_t d_ahead = 0; // the device may produce this far past the release
    uint64_t d_base = 0;
    // What the device had sent, and when: the newest sightings, oldest first.
    struct sighting {
        uint64_t sent = 0;
        int64_t at_ns = 0;
    };
    static constexpr size_t max_sightings = 64;
    std::array<sighting, max_sightings> d_seen{};
    size_t d_seen_count = 0;
    uint64_t d_final = 0;
};

} // namespace rdma
} // namespace gr

#endif
