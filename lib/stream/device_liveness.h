/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_DEVICE_LIVENESS_H
#define INCLUDED_RDMA_STREAM_DEVICE_LIVENESS_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace gr {
namespace rdma {

/*!
 * Whether a device still answers a stream's watch (device_watch for RX, tx_watch for
 * TX), on evidence: when it last answered, and whether the exchange since failed (the
 * AXIoE client asked, waited through its retries and gave up).
 *
 * Lost: no answer for lost_after, *and* the last exchange failed. A watch that did not
 * run meanwhile (a busy machine starved its thread, the process was stopped) asked
 * nothing, and blames nobody for its own silence. One watch thread writes; the data
 * path reads with a few atomic loads.
 */
class device_liveness
{
public:
    explicit device_liveness(std::chrono::nanoseconds lost_after);

    //! A new run: the device counts as answering now.
    void reset(int64_t now_ns);
    //! The device answered an exchange made at about now_ns.
    void answered(int64_t now_ns);
    //! An exchange failed, for \p why (the AXIoE client's error).
    void failed(const std::string& why);

    //! Lost as of \p now_ns (steady clock): cheap, for the data path.
    bool lost(int64_t now_ns) const;
    int64_t last_answer_ns() const { return d_last_answer_ns.load(); }
    std::chrono::nanoseconds lost_after() const
    {
        return std::chrono::nanoseconds(d_lost_after_ns);
    }
    //! Why the last exchange failed (empty after an answer). Not for the data path.
    std::string last_failure() const;

    //! The steady clock the times above are on, in ns.
    static int64_t now_ns();

private:
    const int64_t d_lost_after_ns;
    std::atomic<int64_t> d_last_answer_ns{ 0 };
    std::atomic<bool> d_failing{ false };
    mutable std::mutex d_mutex;
    std::string d_failure; // guarded by d_mutex
};

} // namespace rdma
} // namespace gr

#endif
