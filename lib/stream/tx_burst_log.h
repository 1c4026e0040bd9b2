/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_BURST_LOG_H
#define INCLUDED_RDMA_STREAM_TX_BURST_LOG_H

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace gr {
namespace rdma {

//! A burst as the host gave it to the device (tx_burst_log).
struct tx_logged_burst {
    static constexpr uint64_t open = UINT64_MAX; //!< end of a burst not ended yet
    uint64_t first = 0;                          //!< its START's item
    uint64_t end = open;                         //!< its END's item
    uint64_t requested_ns = 0; //!< the time asked (begin_burst()); 0: at once
    uint64_t pushed_ns = 0;    //!< the time its START carried (TBQ_TIME)
};

/*!
 * What a queued TX stream told its device, for the one that checks the device's TX
 * records (tx_record_reports): the bursts whose entries were pushed, and how many
 * items the device may have seen (the control page's `committed`). A record about a
 * burst or an item the host never gave the device is not the device's (docs/
 * security.md). Written by the stream's producer thread, read by its watch thread:
 * under a lock, which is taken once per push (an AXIoE exchange each) and per record.
 * Keeps the last `capacity` bursts: records come within milliseconds of their burst.
 */
class tx_burst_log
{
public:
    static constexpr size_t capacity = 1024;

    class pending;

    //! A new run: no burst, nothing published.
    void reset();
    //! START(\p first, TBQ_TIME \p pushed_ns), asked at \p requested_ns, is about to be
    //! pushed: logged now, withdrawn unless the caller keeps it (the push succeeded).
    //! Before the push, not after: the device may take the entry and send its record
    //! (a time error at once, for a START whose time passed) before the push returns,
    //! and the watch thread checks that record against this log.
    pending will_start(uint64_t first, uint64_t requested_ns, uint64_t pushed_ns);
    //! END(\p end) is about to be pushed: as will_start().
    pending will_end(uint64_t end);
    //! START(item \p first, TBQ_TIME \p pushed_ns) was pushed, for a burst asked at
    //! \p requested_ns.
    void started(uint64_t first, uint64_t requested_ns, uint64_t pushed_ns);
    //! END(item \p end) was pushed (it ends the newest burst).
    void ended(uint64_t end);
    //! The burst whose START was at item \p first, if the log still has it.
    bool find(uint64_t first, tx_logged_burst& out) const;
    //! Some burst ended at item \p end.
    bool ends_at(uint64_t end) const;

    //! The device may see \p items (control page `committed`).
    void published(uint64_t items)
    {
        d_published.store(items, std::memory_order_relaxed);
    }
    uint64_t published() const { return d_published.load(std::memory_order_relaxed); }

private:
    // Undo the newest started() (\p start) or ended() of a push that failed.
    void withdraw(bool start);
    // Index (from the oldest) of the newest burst with first <= item, or capacity.
    size_t search(uint64_t item) const;
    const tx_logged_burst& at(size_t i) const
    {
        return d_bursts[(d_head + i) % capacity];
    }

    mutable std::mutex d_mutex;
    std::array<tx_logged_burst, capacity> d_bursts{}; // guarded, ordered by first
    size_t d_head = 0;                                // guarded
    size_t d_count = 0;                               // guarded
    std::atomic<uint64_t> d_published{ 0 };
};

/*!
 * An entry logged for a push under way (tx_burst_log::will_start/will_end): withdrawn
 * when it goes out of scope unless kept, so that a push that throws or is refused
 * leaves no trace a forged record could match.
 */
class tx_burst_log::pending
{
public:
    pending(tx_burst_log& log, bool start) : d_log(&log), d_start(start) {}
    pending(pending&& o) noexcept : d_log(o.d_log), d_start(o.d_start)
    {
        o.d_log = nullptr;
    }
    pending(const pending&) = delete;
    pending& operator=(const pending&) = delete;
    pending& operator=(pending&&) = delete;
    ~pending()
    {
        if (d_log)
            d_log->withdraw(d_start);
    }
    //! The device took the entry: it stays logged.
    void keep() { d_log = nullptr; }

private:
    tx_burst_log* d_log;
    bool d_start;
};

} // namespace rdma
} // namespace gr

#endif
