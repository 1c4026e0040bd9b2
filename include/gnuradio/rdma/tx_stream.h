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

/*!
 * A report of a TX stream (tx_stream::poll_event()). With a device that sends TX
 * records (CAP_TX_BURSTS and the metadata channel, docs/metadata.md "TX records"), the
 * device's own reports: its item index and its device time, each record checked against
 * what the device can have done (else counted, host.records_rejected, and ignored).
 * Records are UDP and may be lost: stop() reports, once per kind and marked
 * \ref unattributed, what the device's counters say and the records did not, so the
 * reports of a run add up to the counters exactly. Without records, the reports come
 * from the counters, read every 20 ms.
 */
struct tx_event {
    enum class kind : uint8_t {
        underflow,  //!< the device played count zeros: the host had not committed in time
                    //!< (item: the item waited for; time_ns: the first zero's time)
        late,       //!< the device played count zeros in place of committed samples that
                    //!< did not arrive in time, READs lost or late (item: the first;
                    //!< time_ns: its play time)
        time_error, //!< a burst's time had passed: dropped, its count items not played
                    //!< (item: its first; time_ns: the time asked; value: the device
                    //!< time it found so); or START refused (value: the error code)
        burst_ack,  //!< a burst played to its end (item: its END; time_ns: the time
                    //!< after its last sample; count: samples played)
        stream_failed,  //!< the device reports the stream in error (value: TX_STATUS),
                        //!< or the host could not give the device its burst entries
        nic_error,      //!< the host's NIC failed the stream's queue pair (value: status)
        stream_stopped, //!< the device no longer runs the stream: another host took it
                        //!< over, this host was silent for its lease, or it restarted
        seq_error,      //!< the device READ again: count READ RESPONSE packets it found
                        //!< missing (item: the first item read again)
        lead,           //!< the device adapted its lead time (value: the new lead in ns;
                        //!< item: the next item to play)
        device_lost,    //!< the device has not answered for device_timeout (value: ms
                        //!< since its last answer); the stream ends
    };
    kind type = kind::underflow;
    uint64_t count = 0;   //!< samples (underflow, late, burst_ack, time_error); packets
                          //!< (seq_error)
    uint64_t time_ns = 0; //!< device time, as each kind says (ns since the epoch)
    uint64_t value = 0;
    uint64_t item = 0;   //!< the device's item index (items committed since START)
    uint32_t bursts = 0; //!< burst_ack, time_error: the bursts this report covers
    //! stop(): what the counters say the records did not (lost, or merged by the
    //! device's rate bound); item and time_ns are 0.
    bool unattributed = false;
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
 * Queued mode (num_samples = tx_stream::queued, a device with CAP_TX_BURSTS): the items
 * are timed, separate bursts, as gr-uhd's (docs/transmit.md, "Bursts and time"). The
 * device idles (zeros, never underflow) outside them. begin_burst() and end_burst()
 * mark burst boundaries at the commit position; items committed while no burst is open
 * begin one as soon as possible, so a stream without marks plays as continuous
 * streaming does. The host gives the device each boundary (a TX burst queue entry)
 * before it lets the device see an item past it.
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

    //! num_samples of a stream of timed bursts (TX_NUM_SAMPLES all ones).
    static constexpr uint64_t queued = UINT64_MAX;
    //! num_samples: queued when the device has TX bursts, else continuous (is_queued()).
    static constexpr uint64_t queued_if_able = UINT64_MAX - 1;

    /*!
     * \param args        device args, e.g. "type=emu"
     * \param format      "sc16" (4-byte complex int16), "fc32" (8-byte complex float)
     *                    or "sc8" (2-byte complex int8): the ring's and the wire's
     * \param sample_rate samples per second the device plays
     * \param num_samples 0 to stream continuously, tx_stream::queued for timed bursts
     *                    (begin_burst(), end_burst()), else a burst of that many
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
     * Queued mode: a burst begins at the commit position (the next item committed),
     * playing at device time \p time_ns (0: as soon as possible: right after the
     * burst before it if that is still playing, else a lead time after the device
     * learns of it). An open burst with items ends there first (a tx_time inside a
     * burst); a begun burst without items yet just takes the new time. A time the
     * device finds passed (or before the end of the burst before it) makes it drop the
     * burst, as gr-uhd's device does: a time_error report, its items counted dropped.
     * Throws std::logic_error outside queued mode; std::runtime_error (the stream
     * ends, error()) when the boundary cannot be given to the device: its queue stayed
     * full for burst_patience, or it refused it.
     */
    void begin_burst(uint64_t time_ns = 0);
    /*!
     * Queued mode: the open burst ends at the commit position (nothing committed after
     * this call is in it): the device plays every item of it, then idles. No effect
     * without an open burst; a begun burst without items is dropped.
     */
    void end_burst();
    //! Queued mode: a burst is open (begun, or items committed since the last end).
    bool in_burst() const;
    //! The stream plays timed bursts (num_samples queued, or queued_if_able and the
    //! device has them).
    bool is_queued() const;
    //! How long a boundary waits for room in the device's full burst queue before the
    //! stream ends with an error.
    static constexpr std::chrono::seconds burst_patience{ 2 };

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
     * Identity: host_committed = played + late + dropped + not_played; underflow zeros
     * are the device's own (the host had not provided those samples), as are idle
     * zeros between bursts (queued mode).
     */
    struct accounting {
        uint64_t host_committed = 0;
        uint64_t played = 0;
        uint64_t underflow = 0;
        uint64_t late = 0;
        uint64_t dropped = 0; //!< items of bursts dropped as time_error (queued mode)
        uint64_t not_played = 0;
        uint64_t idle = 0;        //!< converter ticks outside every burst (queued mode)
        uint64_t bursts_done = 0; //!< bursts played to their END (TX_BURSTS_DONE)
        uint64_t time_errors = 0; //!< bursts dropped as late (TX_TIME_ERRORS)
        uint64_t fetched = 0;     //!< TX_SAMPLES_FETCHED
        uint64_t reads = 0;
        uint64_t rereads = 0;
        uint32_t lead_ns = 0;
        uint32_t rtt_ns = 0;
        bool final = false; //!< read after the device stopped
        bool identity_holds() const
        {
            return host_committed == played + late + dropped + not_played;
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

    class impl;

private:
    friend class sdr; // hands out the streams of its device (sdr::get_tx_stream)
    explicit tx_stream(std::unique_ptr<impl> impl);
    std::unique_ptr<impl> d_impl;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_TX_STREAM_H */
