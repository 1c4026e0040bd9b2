/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TX_STREAM_H
#define INCLUDED_RDMA_TX_STREAM_H

#include <gnuradio/rdma/transport_api.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace gr {
namespace rdma {

//! A report of a TX stream (tx_stream::poll_event()).
struct tx_event {
    enum class kind : uint8_t {
        underflow,  //!< the device played count zeros: the host had not committed in time
        late,       //!< the device played count zeros in place of committed samples that
                    //!< did not arrive in time (READs lost or late)
        time_error, //!< START refused: its start time had passed (value: the error code)
        burst_ack,  //!< a finite burst was played to its end
        stream_failed,  //!< the device reports the stream in error (value: TX_STATUS)
        nic_error,      //!< the host's NIC failed the stream's queue pair (value: status)
        stream_stopped, //!< the device no longer runs the stream: another host took it
                        //!< over, this host was silent for its lease, or it restarted
    };
    kind type = kind::underflow;
    uint64_t count = 0;   //!< samples (underflow, late)
    uint64_t time_ns = 0; //!< device time when the host learned of it (ns since epoch)
    uint64_t value = 0;
};

RDMA_TRANSPORT_API const char* to_string(tx_event::kind k);

/*!
 * \brief A zero-copy TX stream to an RDMA SDR, usable without GNU Radio.
 *
 * The SDR fetches the samples by RDMA READ from a ring in host memory (docs/transmit.md),
 * a lead time ahead of playing them; the host never sends a sample packet and never
 * paces. The host writes samples in place into the ring (wait_space()), then makes them
 * available (commit()): one release store into a control page the device reads. The
 * device reports what it fetched by SEND WITH IMMEDIATE; only fetched slots are handed
 * out again, so nothing unfetched is ever overwritten.
 *
 * Owns the ring (double-mapped, locked, hugepages when possible, registered for remote
 * READ only), the control page (its own 4 KiB MR, remote READ only), an RC queue pair and
 * the device's TX stream block. Device args as rx_stream's (docs/device-args.md), with
 * the TX keys: stream=, latency=, payload=, mtu=, notify=, hugepages=, numa=, min_lead=,
 * max_lead= (seconds), and for the emulator tx_check=1 (compare played samples with the
 * ramp), tx_loss_ppm=, tx_fault_seed=.
 *
 * With a device that has stream ownership, start() claims the TX stream for this host
 * (lease=, take_over=, as rx_stream) and stop() releases it: another host's start()
 * is refused with an error naming the owner's lease and take_over=1.
 *
 * Item k of a run (counted from start()) lives at ring slot k mod ring_items(); the ring
 * is mapped twice back to back, so any run of free items is contiguous.
 *
 * Not thread-safe: use it from one thread.
 */
class RDMA_TRANSPORT_API tx_stream
{
public:
    //! Free ring space at the write position: items [first_item, first_item + items).
    struct space {
        void* data = nullptr;
        size_t items = 0;
        uint64_t first_item = 0; //!< index of data[0] since start()
    };

    /*!
     * \param args        device args, e.g. "type=emu"
     * \param format      "sc16" (4-byte complex int16), "fc32" (8-byte complex float)
     *                    or "sc8" (2-byte complex int8): the ring's and the wire's
     * \param sample_rate samples per second the device plays
     * \param num_samples 0 to stream continuously, else a burst of that many
     */
    tx_stream(const std::string& args,
              const std::string& format,
              double sample_rate,
              uint64_t num_samples = 0);
    ~tx_stream();
    tx_stream(const tx_stream&) = delete;
    tx_stream& operator=(const tx_stream&) = delete;

    /*!
     * Arm the device and start: it plays sample 0 a lead time after START (start()) or
     * at device time \p device_time_ns (start_at()). Commit samples before that, or the
     * device underflows. A start time already past is refused: std::runtime_error (and a
     * time_error event) says so.
     */
    void start();
    void start_at(uint64_t device_time_ns);
    //! The device's time now (ns since the epoch), read over AXIoE.
    uint64_t device_time_now();
    //! Stop the device; its counters are final afterwards (counts()).
    void stop();
    bool running() const;

    /*!
     * Wait up to \p timeout until at least \p min_items (at most ring_items()) free items
     * follow the write position; returns them all, in place in the ring (empty on
     * timeout, or when the run ended: error()). Before start(), the space of the next
     * run: items committed then (a primed ring) are there when the device starts.
     */
    space wait_space(size_t min_items, std::chrono::microseconds timeout);
    //! The first \p items of the space are written: the device may fetch them.
    void commit(size_t items);
    /*!
     * Copying convenience: copies \p count items from \p items into the ring and commits
     * them, waiting up to \p timeout in all; returns how many it copied.
     */
    size_t send_copy(const void* items, size_t count, std::chrono::microseconds timeout);
    /*!
     * Wait up to \p timeout until the device has fetched everything committed (for a
     * burst or before stop()); returns whether it has.
     */
    bool wait_fetched(std::chrono::microseconds timeout);

    /*!
     * Wait up to \p timeout until the device has played (or given up as late) every
     * whole message committed: the end of a continuous transmission, before stop().
     * The device fetches whole messages only; items of a last partial message are never
     * played (stop() counts them not_played). Polls the device's counters over AXIoE
     * (every few ms): not for the sample path.
     */
    bool wait_played(std::chrono::microseconds timeout);

    //! Items committed since start().
    uint64_t committed() const;
    //! Items the device has fetched or given up as late (its notifications, every
    //! notify= messages): their slots are free again.
    uint64_t fetched() const;

    /*!
     * The run's accounting. host_committed is the host's; the rest is read from the
     * device over AXIoE (one exchange: not for the sample path), final after stop().
     * Identity: host_committed = played + late + not_played; underflow zeros are the
     * device's own (the host had not provided those samples).
     */
    struct accounting {
        uint64_t host_committed = 0;
        uint64_t played = 0;
        uint64_t underflow = 0;
        uint64_t late = 0;
        uint64_t not_played = 0;
        uint64_t fetched = 0; //!< TX_SAMPLES_FETCHED
        uint64_t reads = 0;
        uint64_t rereads = 0;
        uint32_t lead_ns = 0;
        uint32_t rtt_ns = 0;
        bool final = false; //!< read after the device stopped
        bool identity_holds() const
        {
            return host_committed == played + late + not_played;
        }
    };
    accounting counts();

    //! The next report; false when none is queued.
    bool poll_event(tx_event& out);
    //! Why the run ended early, empty if it did not.
    std::string error() const;

    /*!
     * Counters by name: "device.*" from the device (samples_played, underflow_samples,
     * check_mismatches, ...; one AXIoE exchange), "nic.*" from the NIC, "host.*" from
     * this stream (committed, fetched, notifications, implausible_fetch, ...).
     */
    std::map<std::string, uint64_t> read_counters();

    uint8_t* ring_base() const;
    size_t ring_bytes() const; //!< one copy
    size_t ring_items() const;
    size_t item_size() const;
    std::string format() const;
    double sample_rate() const;
    bool hugepages() const;
    size_t payload_bytes() const; //!< bytes per READ message
    unsigned path_mtu() const;
    //! TX_MAX_RD_ATOMIC as programmed: the host QP's max_dest_rd_atomic.
    unsigned max_reads() const;
    //! Device time (ns) of sample 0 as the device latched it (0: START + lead).
    uint64_t start_time_ns() const;

private:
    class impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_TX_STREAM_H */
