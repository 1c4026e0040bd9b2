/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_LINK_WATCH_H
#define INCLUDED_RDMA_STREAM_LINK_WATCH_H

#include "../device/device_controller.h"
#include "../regs/link_schedule.h"
#include "../util/periodic_worker.h"
#include "epoch_snapshot.h"
#include "path_delay.h"
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

//! Whose destinations a link_watch watches: the stream's (from 0, declared down by
//! LINK_CONTROL) or one share's (from \p first, declared down by their own weights).
struct watched_destinations {
    unsigned first = 0;
    bool by_weight = false;
    std::array<uint16_t, regs::link_schedule::max_destinations> weights{};
};

/*!
 * The host's view of the schedule of one RX stream spread over several device links
 * (docs/links.md, "Failover"): a thread ("rdma-links", charged to the host) reads the
 * stream's epoch block over AXIoE every period, so the data path learns, without ever
 * waiting for the network, which epochs the device began and up to which local message
 * the schedule is fixed; it writes LINK_CONTROL for the data path (a link the host
 * declares down, a rejoin) and the emulator faults a test or demo asked for at their
 * times.
 *
 * Rejoin: a link the device took out is given back (LINK_CONTROL = 1) as soon as its
 * LINK_STATUS reads up again. The device took it out if an epoch says so (cause
 * link_down), or if its status read down or its LINK_DOWN_EVENTS moved without the
 * host declaring it: when every link of a stream falls at once the device has nowhere
 * to move the stream and begins no epoch, yet it latches each cut until the host asks
 * the link back, so the epochs alone would leave the stream without a link forever; a link the host
 * declared down is tried again after the retry time, doubled after each declaration
 * that follows a rejoin within that time (at most 64 times), if its status is up.
 *
 * The host of share h >= 1 (docs/links.md, "Several hosts") has destinations
 * first .. first + links - 1, destination first + n on link n: the snapshot names them
 * 0 .. links - 1, and the host declares its own destination down by its DST_WEIGHT
 * (0, and its weight again to rejoin), since LINK_CONTROL would take the link from
 * every share.
 */
class link_watch
{
public:
    static constexpr unsigned max_kept = epoch_snapshot::max_kept;
    static constexpr unsigned max_links = 16;

    using snapshot = epoch_snapshot;
    using destinations = watched_destinations;

    //! A register write at a time after start() (the emulator's faults).
    struct timed_write {
        int64_t after_ns = 0;
        uint32_t address = 0;
        uint32_t value = 0;
    };

    link_watch(device_controller& device,
               unsigned stream,
               unsigned links,
               std::chrono::microseconds period,
               std::chrono::milliseconds retry,
               const destinations& mine = destinations{});
    ~link_watch();
    link_watch(const link_watch&) = delete;
    link_watch& operator=(const link_watch&) = delete;

    /*!
     * Watch a run (after START) whose epochs begin at multiples of \p notify_interval
     * local messages (0: at any message), doing \p writes at their times from now, and
     * telling the device each destination's path as \p paths measures it (DST_PATH_NS,
     * when path_delay says it is due; null: never). \p paths must outlive the run.
     */
    void start(uint32_t notify_interval,
               std::vector<timed_write> writes = {},
               path_delay* paths = nullptr);
    //! Stop watching; returns once the thread is idle. Then one last look (refresh()).
    void stop();
    /*!
     * The stream goes on in a new run (after its START: a rate change, a re-arm): its
     * epochs count from 0 again. Snapshots read before are of the last run (their
     * `run` is not run()); the timed writes and the links' states go on.
     */
    void continue_run();
    //! The run snapshots are read in now: 0, then one more per continue_run().
    uint32_t run() const { return d_run.load(); }

    //! The newest snapshot, if one came since the last take. Never waits.
    bool take(snapshot& out);
    //! The host declares \p link down: LINK_CONTROL = 2 (a share's host: its
    //! destination's DST_WEIGHT = 0) at the next beat.
    void declare_down(unsigned link);

    //! Exchanges that failed (the snapshot then stays as it was).
    uint64_t failures() const { return d_failures.load(); }
    //! DST_PATH_NS writes that failed (then none more this run).
    uint64_t path_failures() const { return d_path_failures.load(); }

private:
    void beat();
    //! Read the epochs now, from the calling thread (stop(): the run's last look).
    void refresh();
    void read_epochs(snapshot& s);
    void read_links(snapshot& s);
    void control_links(const snapshot& s, int64_t now);
    void do_due_writes(int64_t now);
    void tell_paths(int64_t now);
    //! Declare \p link down (or give it back); false: the device refused a share's host.
    bool declare(unsigned link, bool down);
    bool write_refusable(uint32_t address, uint32_t value);

    device_controller& d_device;
    const unsigned d_stream;
    const unsigned d_links;
    const destinations d_mine;
    const int64_t d_retry_ns;

    // The thread's own (and refresh()'s, under d_exchange).
    std::mutex d_exchange;
    uint32_t d_notify_interval = 0;
    std::vector<timed_write> d_writes;
    size_t d_next_write = 0;
    path_delay* d_paths = nullptr;
    int64_t d_start_ns = 0;
    struct link_state {
        //! The device took it out (an epoch said so, its status was read down, or its
        //! LINK_DOWN_EVENTS moved while the host had not declared it): give it back
        //! once up.
        bool out_by_device = false;
        bool out_by_host = false;   //!< we wrote LINK_CONTROL = 2 (or DST_WEIGHT = 0)
        int64_t retry_at_ns = 0;
        int64_t rejoined_ns = INT64_MIN / 2;
        unsigned backoff = 1;
        bool down_events_known = false; //!< down_events_seen holds a reading
        uint32_t down_events_seen = 0;  //!< LINK_DOWN_EVENTS at the last read
    };
    std::array<link_state, max_links> d_link{};
    uint32_t d_seen_epochs = 0;
    uint64_t d_link_reads = 0;

    std::atomic<uint32_t> d_run{ 0 };      // written under d_exchange
    std::atomic<uint32_t> d_declared{ 0 }; // links the data path declared down
    std::atomic<uint64_t> d_failures{ 0 };
    std::atomic<uint64_t> d_path_failures{ 0 };

    mutable std::mutex d_mutex;
    snapshot d_snapshot;      // guarded by d_mutex
    bool d_fresh = false;     // guarded by d_mutex
    periodic_worker d_worker; // last: its beat uses everything above
};

} // namespace rdma
} // namespace gr

#endif
