/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_run.h"
#include "tx_signal_source.h"
#include <gnuradio/rdma/cpu_accounting.h>
#include <time.h>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <thread>

namespace gr {
namespace rdma {
namespace app {

namespace {

// The stop requests gr-rdma-tx takes (gr_rdma_tx.cc), by name.
std::string signal_name(int sig)
{
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    case SIGQUIT:
        return "SIGQUIT";
    case SIGUSR1:
        return "SIGUSR1";
    case SIGUSR2:
        return "SIGUSR2";
    default:
        return "signal " + std::to_string(sig);
    }
}

using clock_type = std::chrono::steady_clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;

double thread_cpu_seconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

double seconds_since(clock_type::time_point t)
{
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

// The producer: the signal into the ring's free space at the write position, in place.
class producer
{
public:
    producer(tx_stream& stream, tx_signal_source& source, tx_run_result& r)
        : d_stream(stream), d_source(source), d_r(r)
    {
    }

    //! Write and commit up to \p limit items, waiting up to \p timeout for free space;
    //! returns how many.
    size_t step(uint64_t limit, microseconds timeout)
    {
        const tx_stream::space s = d_stream.wait_space(1, timeout);
        if (s.items == 0 || limit == 0)
            return 0;
        auto* data = static_cast<uint8_t*>(s.data);
        const size_t n = static_cast<size_t>(std::min<uint64_t>(s.items, limit));
        d_r.spans_written++;
        // Both mappings of the ring are registered memory: a span may run into the
        // second one, never beyond it.
        const uint8_t* base = d_stream.ring_base();
        if (data < base ||
            data + n * d_stream.item_size() > base + 2 * d_stream.ring_bytes())
            d_r.spans_outside_ring++;
        const size_t written = d_source.fill(data, s.first_item, n);
        if (written)
            d_stream.commit(written);
        return written;
    }

private:
    tx_stream& d_stream;
    tx_signal_source& d_source;
    tx_run_result& d_r;
};

void take_events(tx_stream& stream, tx_run_result& r)
{
    tx_event e;
    while (stream.poll_event(e)) {
        if (e.type == tx_event::kind::underflow) {
            r.underflow_reports++;
            r.underflow_reported += e.count;
        } else if (e.type == tx_event::kind::late) {
            r.late_reports++;
            r.late_reported += e.count;
        }
    }
}

} // namespace

tx_run_result run_tx(const tx_options& o, const std::atomic<int>& stop_signal)
{
    tx_run_result r;
    r.samples_requested = o.samples;
    tx_signal_source source(o);
    std::unique_ptr<tx_stream> stream;
    try {
        // A run of known length is a burst: the device plays its last partial
        // message too, and acknowledges the end.
        stream = std::make_unique<tx_stream>(o.args, o.format, o.rate, o.samples);
    } catch (const std::exception& e) {
        throw tx_config_error(e.what());
    }
    r.ring_bytes = stream->ring_bytes();
    r.ring_items = stream->ring_items();
    r.payload_bytes = stream->payload_bytes();
    r.max_reads = stream->max_reads();
    r.hugepages = stream->hugepages();

    const cpu_seconds cpu_before = process_cpu_by_role();
    const double producer_before = thread_cpu_seconds();
    const auto began = clock_type::now();
    const uint64_t total = o.samples ? o.samples : UINT64_MAX;
    const auto stopping = [&] { return stop_signal.load() != 0; };
    producer p(*stream, source, r);
    uint64_t done = 0;

    try {
        // Primed: the converter has samples from its first tick. A throttled producer
        // primes nothing; it is slow from the start.
        if (o.throttle == 0)
            while (!stopping() && !source.ended() && done < total &&
                   done < r.ring_items) {
                const size_t n = p.step(total - done, microseconds(0));
                if (n == 0)
                    break;
                done += n;
            }
        stream->start();
        const auto started = clock_type::now();
        // The run lasts as long as the slower of the device and a throttled producer.
        const double pace = o.throttle > 0 ? std::min(o.rate, o.throttle) : o.rate;
        const double length_s = o.samples ? o.samples / pace : 0;
        const auto overdue = [&] {
            return o.samples && seconds_since(started) > length_s + o.timeout;
        };

        while (!stopping() && !source.ended() && done < total) {
            take_events(*stream, r);
            if (!stream->error().empty())
                break;
            if (overdue()) {
                r.timed_out = true;
                break;
            }
            uint64_t limit = total - done;
            if (o.throttle > 0) {
                const auto allowed =
                    static_cast<uint64_t>(o.throttle * seconds_since(started));
                limit = std::min(limit, allowed > done ? allowed - done : 0);
                if (limit == 0) {
                    std::this_thread::sleep_for(milliseconds(1));
                    continue;
                }
            }
            done += p.step(limit, milliseconds(50));
        }

        // The end of what there was to send: let the device play it. In a burst it
        // plays all of it; streaming, whole messages only (the rest is not_played).
        // At most what the ring holds is still to play, and --timeout more.
        if (!stopping() && stream->error().empty() && !r.timed_out) {
            const uint64_t message_items = r.payload_bytes / stream->item_size();
            const uint64_t target =
                o.samples ? done : done / message_items * message_items;
            const auto drained = clock_type::now();
            const double drain_s = r.ring_items / o.rate + o.timeout;
            for (;;) {
                take_events(*stream, r);
                if (stopping() || !stream->error().empty())
                    break;
                // wait_played() keeps the notification receives posted meanwhile.
                const bool whole = stream->wait_played(milliseconds(100));
                const tx_stream::accounting c = stream->counts();
                if (c.played + c.late >= target)
                    break;
                if (whole) // a burst's last partial message is still playing
                    std::this_thread::sleep_for(milliseconds(2));
                if (overdue() || seconds_since(drained) > drain_s) {
                    r.timed_out = true;
                    break;
                }
            }
        }
    } catch (const std::exception& e) {
        r.error = e.what();
    }

    stream->stop();
    take_events(*stream, r);
    const int sig = stop_signal.load();
    if (sig)
        r.interrupted = signal_name(sig); // "SIGTERM", "SIGHUP"
    if (r.error.empty())
        r.error = stream->error();
    r.elapsed_s = seconds_since(began);
    r.counts = stream->counts();
    r.counters = stream->read_counters();
    // A regular FILE played once ends with its last item, read or not to its EOF.
    r.file_ended = source.ended() || (o.file_items && !o.repeat && done == o.file_items);
    r.file_rewinds = source.rewinds();
    r.file_tail_bytes_dropped = source.tail_bytes_dropped();

    const cpu_seconds used = process_cpu_by_role() - cpu_before;
    r.cpu.producer = thread_cpu_seconds() - producer_before;
    r.cpu.host = used.host;
    r.cpu.other_host = std::max(0.0, used.host - r.cpu.producer);
    r.cpu.nic = used.nic;
    r.cpu.device = used.device;
    r.cpu.total = used.total();
    return r;
}

} // namespace app
} // namespace rdma
} // namespace gr
