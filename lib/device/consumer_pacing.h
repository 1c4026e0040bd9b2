/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_CONSUMER_PACING_H
#define INCLUDED_RDMA_DEVICE_CONSUMER_PACING_H

#include "../util/socket_address.h"
#include <gnuradio/rdma/transport_api.h>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>

namespace gr {
namespace rdma {

/*!
 * The test mode emu_pace=consumer (docs/device-args.md, "Tests that no load can
 * break"): an RX stream of the emulator in this process that cannot outrun its
 * consumer. The host says how far the device may produce (the gate: half a ring ahead
 * of what the consumer released); the device produces no further, and its stream's
 * timeline stands still meanwhile, as it does when the device's own thread stalls: a
 * device whose time runs slower, never a late one. The samples keep their nominal
 * times (RX_START_TIME + k / rate), so tags, timed commands and retunes still fall on
 * their exact samples. A functional test then gives one answer on a busy machine and
 * an idle one.
 *
 * Not a device's behaviour: a device on the network keeps its own time, and type=remote
 * refuses the mode. One per RX stream of the emulator, shared by the engine and the
 * stream of this process; counts are samples of the device's current run.
 */
struct consumer_pacing {
    //! Host: the next run is paced (set before START, read by the engine at START).
    std::atomic<bool> on{ false };
    //! Host: samples of the run the device may produce.
    std::atomic<uint64_t> gate{ 0 };
    //! Device: samples of the run it produced (published before any leaves): the
    //! host's exact bound of what it may have written.
    std::atomic<uint64_t> produced{ 0 };
    //! Device: samples of the run it has sent, and when (now_ns()) that last moved.
    std::atomic<uint64_t> sent{ 0 };
    std::atomic<int64_t> sent_at_ns{ 0 };

    //! The clock of sent_at_ns: CLOCK_MONOTONIC, ns.
    static int64_t now_ns()
    {
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return static_cast<int64_t>(ts.tv_sec) * 1000000000ll + ts.tv_nsec;
    }
};

/*!
 * Where a stream finds the pacing of an emulator that runs in this process: by the
 * emulator's control address, whatever the device args call it (type=emu, or
 * type=remote naming it, as tests that share the emulator object do). An emulator
 * publishes itself while it lives; a device elsewhere is never found, so the test mode
 * is refused for it.
 */
class RDMA_TRANSPORT_API pacing_registry
{
public:
    //! The pacing of stream \p stream, TX when \p tx; null when there is none.
    using lookup =
        std::function<std::shared_ptr<consumer_pacing>(bool tx, unsigned stream)>;
    static void publish(const socket_address& control, lookup streams);
    static void withdraw(const socket_address& control);
    static std::shared_ptr<consumer_pacing>
    find(const socket_address& control, bool tx, unsigned stream);
};

} // namespace rdma
} // namespace gr

#endif
