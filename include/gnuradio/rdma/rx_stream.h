/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RX_STREAM_H
#define INCLUDED_RDMA_RX_STREAM_H

#include <gnuradio/rdma/rx_event.h>
#include <gnuradio/rdma/transport_api.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief A zero-copy RX stream from an RDMA SDR, usable without GNU Radio.
 *
 * Owns the ring (hugepage-backed when possible, locked, double-mapped, registered with
 * the NIC), the NIC endpoint and the device controller; with type=emu (the default) it
 * also runs the built-in SDR emulator. The device writes samples straight into the
 * ring by RDMA WRITE; the host only learns how far it got. Device selection and
 * tuning come as a UHD-style args string, see docs/device-args.md.
 *
 * Item k of a run (counted from start()) lives at ring slot k mod ring_items() (queued
 * bursts: where queue_burst() put them); the ring is mapped twice back to back, so any
 * run of up to ring_items() items starting at any slot is contiguous in memory.
 *
 * Not thread-safe: use it from one thread (a GNU Radio block calls it from its own
 * thread only).
 */
class RDMA_TRANSPORT_API rx_stream
{
public:
    //! A contiguous run of landed items, pointing into the ring.
    struct chunk {
        const void* data = nullptr;
        size_t items = 0;
        uint64_t first_item = 0;    //!< index of data[0] since start()
        bool end_of_stream = false; //!< a finite burst has been delivered completely
    };

    //! num_samples of a stream that sends only the bursts queued with queue_burst().
    static constexpr uint64_t queued = UINT64_MAX;

    /*!
     * \param args        device args, e.g. "type=emu,signal=ramp"
     * \param format      "sc16" (4-byte complex int16), "fc32" (8-byte complex float)
     *                    or "sc8" (2-byte complex int8): the wire format, in the ring
     * \param sample_rate samples per second
     * \param num_samples 0 to stream continuously, rx_stream::queued for queued bursts
     *                    (queue_burst()), else a finite burst of that many
     */
    rx_stream(const std::string& args,
              const std::string& format,
              double sample_rate,
              uint64_t num_samples = 0);
    ~rx_stream();
    rx_stream(const rx_stream&) = delete;
    rx_stream& operator=(const rx_stream&) = delete;

    /*!
     * Arm the device to write from ring slot 0 and start streaming. On a device with
     * stream ownership, claims the stream first; throws std::runtime_error, naming the
     * owner's lease and take_over=1, if another host owns it (docs/device-args.md).
     */
    void start();
    /*!
     * As start(), with sample 0 taken at device time \p device_time_ns (ns since the
     * epoch; 0: now). Streams of one device started at one time are in step: item k of
     * each is the same device instant. A time already past when the device gets the
     * START is refused by the device (docs/register-map.md, RX_START_TIME, error 10):
     * std::runtime_error says so; choose a time further ahead (device_time_now()).
     */
    void start_at(uint64_t device_time_ns);
    //! The device's time now (ns since the epoch), read over AXIoE.
    uint64_t device_time_now();
    /*!
     * For a consumer whose item k must stay in ring slot k mod N (rx_source: GNU
     * Radio's buffer is the ring). A device whose run is gone (it restarted) then ends
     * the run with an error even with on_device_loss=wait: re-arming starts the new run
     * at a ring boundary, which only a consumer of recv() can skip to.
     */
    void keep_items_in_slots();
    //! Where a rate change takes effect: item, taken at device time time_ns.
    struct rate_change {
        uint64_t item = 0;
        uint64_t time_ns = 0;
    };
    /*!
     * Change the sample rate of the running stream without losing a sample
     * (docs/radio.md, "Continuing a stream in a new run"): the device stops exactly
     * before item \p at_item (a message boundary, with links= a notification window
     * boundary; 0: the first far enough ahead) and a new run at \p rate takes that
     * item at device time \p at_ns (0: 0.1 s after the stop). The items keep coming as
     * one sequence; a time event (reason rate_changed, value: the new rate in mS/s)
     * marks the item. Call it from the thread that consumes (recv() or wait_items()):
     * the change advances there. Needs a continuous stream on a device with
     * COMMAND_QUEUE and BURST_QUEUE (with links=, LINKS_CONTINUE too); throws
     * std::invalid_argument (a rate the ring cannot hold, an item too soon or not on a
     * message boundary) or std::runtime_error (the device cannot) naming the fix.
     */
    rate_change change_rate(double rate, uint64_t at_item = 0, uint64_t at_ns = 0);
    /*!
     * Queue a burst of \p num_samples samples (a stream made with rx_stream::queued;
     * docs/radio.md, "Burst queue"): taken from device time \p at_ns on (0: seamless,
     * right after the previous burst, or at the stream's start for the first), into the
     * ring from item \p first_item on (a multiple of payload_bytes() / item_size(), the
     * items per message; 0: right after the previous burst's region). Returns the ring
     * item index f·P where the burst's sample 0 lands (its slot: that mod ring_items();
     * the emulator's ramp there is that index). Bursts queued before start() are pushed
     * after its START; while running, at once. The consumer's items (recv()) are the
     * bursts one after the other, each announced by a time event at its first item.
     * Throws std::invalid_argument (not queued mode, 0 or more samples than the ring
     * holds, an item not on a message boundary or behind the previous burst's region,
     * a time before the previous burst's end, a region holding items not released
     * yet: it says how many to release first) or std::runtime_error (the device lacks
     * BURST_QUEUE, or refused the burst: its queue is full).
     */
    uint64_t
    queue_burst(uint64_t num_samples, uint64_t at_ns = 0, uint64_t first_item = 0);
    //! Stop the device; returns once no more samples of this run can land. Releases
    //! the stream; a stream another host took over meanwhile is only warned about.
    void stop();
    bool running() const;

    /*!
     * Wait up to \p timeout until items from \p next on can be handed out. \p released:
     * the consumer no longer needs the items below it (their slots may be re-armed).
     * Returns how many items (contiguous in the ring) are ready; 0 on timeout or at the
     * end of a burst. Lost samples are zeros by then; see commit(). With the device arg
     * work_interval=, items are handed out at most once per interval: a call may then
     * sleep up to that interval past \p timeout to gather more.
     */
    size_t
    wait_items(uint64_t next, uint64_t released, std::chrono::microseconds timeout);
    //! Hand out items [next, next + count) (ready per wait_items): classifies them and
    //! queues the reports (gaps, overruns, time marks) for poll_event().
    void commit(uint64_t next, size_t count);
    //! The next report, with time_ns filled in; false when none is queued.
    bool poll_event(rx_event& out);
    //! Whether every item of a finite burst has been handed out (from \p next on).
    bool end_of_stream(uint64_t next) const;
    //! Items in the finite burst (0: continuous).
    uint64_t burst_items() const;
    /*!
     * Why the run ended early, empty if it did not: the device was lost
     * (on_device_loss=end), reports the stream in error (e.g. RC gave up), the stream
     * stopped under us, or the NIC failed it. end_of_stream() is then true.
     */
    std::string error() const;
    /*!
     * Why the device's final counters are not known (it could not be stopped or read,
     * or it restarted during the run), empty when they are: the identity emitted =
     * delivered + lost can be checked only then.
     */
    std::string device_note() const;

    /*!
     * This run's accounting: delivered + lost = samples the device emitted. While the
     * stream runs it covers what was handed out (and skipped); after stop() it covers
     * everything the device emitted until its STOP (lost_stopped: emitted, never handed
     * out), when the device could tell its final count (see device_note()).
     */
    struct accounting {
        uint64_t delivered = 0;
        uint64_t lost_gap = 0;
        uint64_t lost_skipped = 0;
        uint64_t lost_overwritten = 0;
        //! Emitted before stop() took effect, never handed out (zero for a burst
        //! consumed to its end).
        uint64_t lost_stopped = 0;
        uint64_t lost() const
        {
            return lost_gap + lost_skipped + lost_overwritten + lost_stopped;
        }
    };
    accounting counts() const;

    //! Standalone consumer: up to \p max_items items at the read position, in place
    //! (lost samples as zeros; reports via poll_event()). Empty chunk on timeout.
    //! Items returned before and not released come first again, without waiting.
    chunk recv(size_t max_items, std::chrono::microseconds timeout);
    //! Give back the first \p items of what recv() returned: the read position moves on.
    void release(size_t items);

    uint8_t* ring_base() const;
    size_t ring_bytes() const; //!< one copy
    size_t ring_items() const;
    size_t item_size() const;
    std::string format() const;
    double sample_rate() const;
    bool hugepages() const;
    bool memory_locked() const;
    int numa_node() const;
    //! Fallbacks taken while allocating the ring, with their fixes (empty if none).
    std::string ring_notes() const;
    size_t payload_bytes() const; //!< sample bytes per WRITE message
    unsigned path_mtu() const;
    /*!
     * Several hosts (share=h/H, docs/links.md "Several hosts"): this host takes share
     * share_index() of share_count(); the shares take turns in blocks of
     * share_block_items() samples, and local item j is the stream's sample
     * (j / B) * B * H + h * B + j % B. Unsplit: 0, 1 and 0.
     */
    unsigned share_index() const;
    unsigned share_count() const;
    uint64_t share_block_items() const;

    //! Device time (ns since the epoch) of item 0 of the current run.
    uint64_t start_time_ns() const;

    /*!
     * Counters by name: "device.*" read from the device (samples_emitted,
     * packets_sent, ...; one AXIoE exchange, do not call on the sample path),
     * "nic.*" from the NIC, "host.*" from this stream. Once a finite burst has been
     * handed out whole, waits (up to 1 s) for the device to report it done, so that
     * the device's counters are final.
     */
    std::map<std::string, uint64_t> read_counters();

    //! A fault the emulator injected on purpose (loss=, drop=, ... device args).
    struct injected_fault {
        uint64_t message = 0;      //!< WRITE message index
        uint64_t first_sample = 0; //!< device sample index of its first sample
        uint64_t samples = 0;      //!< samples in that message
        std::string kind; //!< drop, duplicate, corrupt_icrc, corrupt_payload, bad_rkey,
                          //!< bad_va, delay
    };
    /*!
     * Drain the emulator's log of injected faults since the last call (oldest first;
     * it keeps the last 4096). Throws std::runtime_error for a device that is not an
     * emulator. One AXIoE exchange per 64 faults: not for the sample path.
     */
    std::vector<injected_fault> read_injected_faults();

    class impl;

private:
    friend class sdr; // hands out the streams of its device (sdr::get_rx_stream)
    explicit rx_stream(std::unique_ptr<impl> impl);
    std::unique_ptr<impl> d_impl;
};

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_RX_STREAM_H */
