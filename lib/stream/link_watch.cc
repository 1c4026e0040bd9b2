/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/link_registers.h"
#include "../regs/register_map.h"
#include "device_watch.h"
#include "link_watch.h"
#include <algorithm>
#include <exception>

namespace gr {
namespace rdma {

namespace {
// LINK_STATUS is read every this many beats: a rejoin need not be quicker than that,
// and each read is an exchange per link.
constexpr uint64_t link_read_beats = 10;
constexpr unsigned max_backoff = 64;
} // namespace

link_watch::link_watch(device_controller& device,
                       unsigned stream,
                       unsigned links,
                       std::chrono::microseconds period,
                       std::chrono::milliseconds retry,
                       const destinations& mine)
    : d_device(device),
      d_stream(stream),
      d_links(std::min(links, max_links)),
      d_mine(mine),
      d_retry_ns(std::chrono::nanoseconds(retry).count()),
      d_worker(thread_role::host, "rdma-links", period, [this] { beat(); })
{
}

link_watch::~link_watch() = default;

void link_watch::start(uint32_t notify_interval,
                       std::vector<timed_write> writes,
                       path_delay* paths)
{
    {
        std::lock_guard<std::mutex> x(d_exchange);
        d_notify_interval = notify_interval;
        d_paths = paths;
        std::stable_sort(
            writes.begin(), writes.end(), [](const timed_write& a, const timed_write& b) {
                return a.after_ns < b.after_ns;
            });
        d_writes = std::move(writes);
        d_next_write = 0;
        d_start_ns = device_watch::now_ns();
        d_link.fill(link_state{});
        d_seen_epochs = 0;
        d_link_reads = 0;
        d_run = 0;
    }
    d_declared = 0;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_snapshot = snapshot{};
        d_fresh = false;
    }
    d_worker.start();
}

void link_watch::stop()
{
    d_worker.stop();
    refresh();
}

void link_watch::continue_run()
{
    std::lock_guard<std::mutex> x(d_exchange);
    d_seen_epochs = 0;
    d_run++;
}

void link_watch::refresh()
{
    snapshot s;
    try {
        std::lock_guard<std::mutex> x(d_exchange);
        read_epochs(s);
    } catch (const std::exception&) {
        d_failures++; // the snapshot stays: the data path waits for the next one
        return;
    }
    std::lock_guard<std::mutex> lock(d_mutex);
    s.links_up = d_snapshot.links_up;
    d_snapshot = s;
    d_fresh = true;
}

bool link_watch::take(snapshot& out)
{
    std::unique_lock<std::mutex> lock(d_mutex, std::try_to_lock);
    if (!lock.owns_lock() || !d_fresh)
        return false;
    out = d_snapshot;
    d_fresh = false;
    return true;
}

void link_watch::declare_down(unsigned link)
{
    if (link < d_links)
        d_declared.fetch_or(1u << link);
}

void link_watch::beat()
{
    snapshot s;
    try {
        std::lock_guard<std::mutex> x(d_exchange);
        const int64_t now = device_watch::now_ns();
        do_due_writes(now);
        read_epochs(s);
        if (d_link_reads++ % link_read_beats == 0)
            read_links(s);
        else {
            std::lock_guard<std::mutex> lock(d_mutex);
            s.links_up = d_snapshot.links_up;
        }
        control_links(s, now);
        tell_paths(now);
    } catch (const std::exception&) {
        d_failures++; // the snapshot stays: the data path waits for the next one
        return;
    }
    std::lock_guard<std::mutex> lock(d_mutex);
    d_snapshot = s;
    d_fresh = true;
}

void link_watch::read_epochs(snapshot& s)
{
    // EPOCH_SCHEDULED first (or in the same burst, which a device executes at one
    // instant): an epoch begun after that read begins at a window boundary at or above
    // it, so every epoch below the next boundary is among the entries read after it.
    axioe::client& c = d_device.client();
    constexpr size_t header_words = regs::epoch::entries / 4;
    constexpr size_t words = header_words + max_kept * regs::epoch::entry_words;
    uint32_t w[words];
    uint64_t scheduled;
    size_t kept = regs::epoch::emulator_kept;
    const size_t want = header_words + kept * regs::epoch::entry_words;
    if (c.max_burst_words() >= want) {
        c.read_atomic(regs::epoch_reg(d_stream, 0), w, want);
        scheduled = regs::join_words(w[2], w[3]);
    } else {
        scheduled = c.read64(regs::epoch_reg(d_stream, regs::epoch::scheduled_lo));
        c.read(regs::epoch_reg(d_stream, 0), w, want);
    }
    kept = std::clamp<size_t>(w[1], 1, max_kept);
    if (header_words + kept * regs::epoch::entry_words > want) // a device keeping more
        c.read(regs::epoch_reg(d_stream, 0),
               w,
               header_words + kept * regs::epoch::entry_words);
    s.epoch_count = w[0];
    s.run = d_run.load();
    const uint64_t n = d_notify_interval;
    s.known_messages =
        n && scheduled <= UINT64_MAX - n ? (scheduled + n - 1) / n * n : scheduled;
    // The entries, oldest first: the newest min(count, kept) epochs.
    const uint32_t have = std::min<uint32_t>(s.epoch_count, static_cast<uint32_t>(kept));
    s.kept = 0;
    for (uint32_t k = s.epoch_count - have; k < s.epoch_count; k++) {
        const regs::epoch_values e = regs::epoch_values::from_words(
            w + header_words + (k % kept) * regs::epoch::entry_words);
        if (e.number != k)
            continue; // overwritten since (or a device that lies): the data path sees
                      // the epoch is missing
        regs::epoch_values& mine = s.epochs[s.kept++];
        mine = e;
        // A share's host names its destinations from 0.
        for (unsigned d = 0; d < mine.weights.size(); d++)
            mine.weights[d] =
                d_mine.first + d < e.weights.size() ? e.weights[d_mine.first + d] : 0;
    }
}

void link_watch::read_links(snapshot& s)
{
    s.links_up = 0;
    for (unsigned n = 0; n < d_links; n++) {
        axioe::client& c = d_device.client();
        const bool up = c.read32(regs::link_reg(n, regs::link::status)) & 1u;
        const uint32_t downs = c.read32(regs::link_reg(n, regs::link::down_events));
        link_state& l = d_link[n];
        // A cut the device latched (register-map.md, "Epochs and failover"): seen
        // down, or fallen and back between two reads. The host's own declarations
        // move the count too; they are its own to give back (out_by_host).
        const bool fell = l.down_events_known && downs != l.down_events_seen;
        if ((!up || fell) && !l.out_by_host)
            l.out_by_device = true;
        l.down_events_seen = downs;
        l.down_events_known = true;
        if (up)
            s.links_up |= 1u << n;
    }
}

void link_watch::control_links(const snapshot& s, int64_t now)
{
    // What the device did: a link it took out comes back once it is up.
    for (unsigned j = 0; j < s.kept; j++) {
        const regs::epoch_values& e = s.epochs[j];
        if (e.number < d_seen_epochs || e.link >= d_links)
            continue;
        if (e.cause == regs::epoch::cause_code::link_down)
            d_link[e.link].out_by_device = true;
    }
    if (s.epoch_count > d_seen_epochs)
        d_seen_epochs = s.epoch_count;
    // What the data path declared.
    const uint32_t declared = d_declared.exchange(0);
    for (unsigned n = 0; n < d_links; n++) {
        link_state& l = d_link[n];
        if ((declared & (1u << n)) && !l.out_by_host) {
            if (!declare(n, true))
                continue; // the share's last destination: the device keeps it
            // Declared again soon after a rejoin: it is not well yet, wait longer.
            l.backoff = now - l.rejoined_ns < d_retry_ns * int64_t(l.backoff)
                            ? std::min(l.backoff * 2, max_backoff)
                            : 1;
            l.out_by_host = true;
            l.retry_at_ns = now + d_retry_ns * int64_t(l.backoff);
            continue;
        }
        const bool host_retry = l.out_by_host && now >= l.retry_at_ns;
        const bool device_took = l.out_by_device && !l.out_by_host;
        if (!(s.links_up & (1u << n)) || !(host_retry || device_took))
            continue;
        if (host_retry && !declare(n, false))
            continue; // refused: tried again at the next beat
        // A link the device took out comes back by LINK_CONTROL = 1, a request that
        // the device use it again for every stream (a share's host asks it too; a
        // device that refuses it a share's host leaves to share 0's).
        if (l.out_by_device && (device_took || d_mine.by_weight))
            write_refusable(regs::link_reg(n, regs::link::control),
                            regs::link_control::up);
        l.out_by_host = l.out_by_device = false;
        l.rejoined_ns = now;
    }
}

bool link_watch::declare(unsigned link, bool down)
{
    if (!d_mine.by_weight)
        return write_refusable(regs::link_reg(link, regs::link::control),
                               down ? regs::link_control::down : regs::link_control::up);
    // The share's own destination on that link; the device refuses (SLVERR) a weight
    // that would leave the share without one, and the link then stays.
    return write_refusable(
        regs::rx_dest_reg(d_stream, d_mine.first + link, regs::dst::weight),
        down ? 0 : d_mine.weights.at(link));
}

bool link_watch::write_refusable(uint32_t address, uint32_t value)
{
    // A share's host may be refused (its share's last destination; a LINK_CONTROL a
    // device keeps to stream owners): false. The stream owner's refusal is a failure.
    try {
        d_device.client().write32(address, value);
        return true;
    } catch (const axioe::error&) {
        if (!d_mine.by_weight)
            throw;
        return false;
    }
}

void link_watch::tell_paths(int64_t now)
{
    // Host feedback for the device's shortest-RTT policy: rarely (path_delay decides).
    // A device that refuses it (an exchange failed) is not asked again this run: the
    // schedule, which the same beat reads, must not suffer for it.
    if (!d_paths)
        return;
    try {
        for (unsigned d = 0; d < d_links; d++) {
            uint32_t ns = 0;
            if (d_paths->due(d, now, ns))
                d_device.client().write32(
                    regs::rx_dest_reg(d_stream, d_mine.first + d, regs::dst::path_ns),
                    ns);
        }
    } catch (const std::exception&) {
        d_paths = nullptr;
        d_path_failures++;
    }
}

void link_watch::do_due_writes(int64_t now)
{
    while (d_next_write < d_writes.size() &&
           now - d_start_ns >= d_writes[d_next_write].after_ns) {
        const timed_write& w = d_writes[d_next_write++];
        d_device.client().write32(w.address, w.value);
    }
}

} // namespace rdma
} // namespace gr
