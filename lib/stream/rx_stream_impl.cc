/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The running rx_stream: the queue pair, completions, progress and hand-out of
// verified items. Construction is in rx_stream_setup.cc.

#include "rational_rate.h"
#include "rx_stream_impl.h"
#include <algorithm>
#include <random>
#include <stdexcept>
#include <thread>

namespace gr {
namespace rdma {

namespace {

uint32_t random_psn()
{
    std::random_device rd;
    return rd() & 0xFFFFFF;
}

} // namespace

void rx_stream::impl::start()
{
    if (d_running)
        return;
    // The stream is this host's from before it is configured until after it stopped:
    // nobody else reads its keys or stops it meanwhile.
    if (d_plan.ownership)
        claim();
    try {
        start_run();
    } catch (...) {
        release_quietly();
        throw;
    }
}

void rx_stream::impl::claim()
{
    const unsigned s = d_plan.stream_index;
    // A run nobody owns was started by a host that does not claim streams: claiming
    // would make that run this host's, and releasing it after a failure would stop it.
    const bool running = d_device->client().read32(regs::rx_reg(s, regs::rx::status)) &
                         regs::status::running;
    if (running && !d_plan.take_over && d_device->read_rx_owner(s) == rx_owner::none)
        throw std::runtime_error(
            "device at " + d_device->address().to_string() + ": RX stream " +
            std::to_string(s) +
            " is running for a host that does not claim its streams; stop it there, or "
            "add take_over=1 to stop it from here");
    d_device->claim_rx(s, random_owner_token(), d_plan.lease_ms, d_plan.take_over);
    // A take-over claim stops another owner's run; this stops one nobody owned.
    if (d_plan.take_over)
        d_device->stop_rx(s);
}

void rx_stream::impl::start_run()
{
    d_qp = d_pd->create_qp(
        d_plan.rc ? nic::qp_type::rc : nic::qp_type::uc, *d_cq, max_receives);
    d_qp->to_init(nic::access_remote_write);
    d_qp->post_receives(d_next_wr_id, max_receives);
    d_next_wr_id += max_receives;
    d_receives_posted = max_receives;
    const uint32_t psn = random_psn();
    const uint32_t device_qpn = d_device->client().read32(
        regs::rx_reg(d_plan.stream_index, regs::rx::source_qpn));
    // RC: the NIC ACKs to the link's RoCE port (d_link.roce), where the device listens.
    d_qp->to_rtr({ d_link.roce, device_qpn }, psn, d_plan.path_mtu);
    d_qp->to_rts(psn);

    rx_setup setup;
    setup.destination = d_nic->roce_address();
    setup.dest_qpn = d_qp->qpn();
    setup.start_psn = psn;
    setup.rkey = d_mr->rkey();
    setup.va = reinterpret_cast<uintptr_t>(d_ring->base());
    setup.ring_bytes = d_ring->bytes();
    setup.payload_bytes = d_plan.payload_bytes;
    setup.path_mtu = d_plan.path_mtu;
    setup.notify_interval = d_plan.notify_interval;
    const rational r = rational_rate(d_plan.sample_rate);
    setup.rate_num = r.num;
    setup.rate_den = r.den;
    setup.format = d_plan.format;
    setup.num_samples = d_plan.num_samples;
    setup.transport = d_plan.rc ? regs::transport_type::rc : regs::transport_type::uc;
    setup.retx_window_bytes = d_plan.retx_window_bytes;
    d_device->configure_rx(d_plan.stream_index, setup);
    if (d_info.has(regs::cap::emulator)) {
        d_device->configure_signal(d_plan.stream_index, d_signal);
        d_device->configure_impairments(d_plan.stream_index, d_impairments);
    }

    d_progress.reset(d_plan.payload_bytes / rdma::item_size(d_plan.format),
                     d_plan.num_samples,
                     d_plan.notify_interval);
    if (d_probe)
        d_probe->reset();
    // Placeholders go in before the device may write anything.
    d_tracker->reset();
    d_read_position = 0;
    d_handed_out = 0;
    d_last_chunk = 0;
    d_completions = 0;
    d_last_notification_awaited = false;
    d_last_handout_ns = INT64_MIN / 2;
    if (d_metadata)
        d_metadata->configure(d_device->client(), d_metadata_settings.interval_us);
    d_clock_estimate = d_device->estimate_clock();
    d_start_time_ns = d_device->start_rx(d_plan.stream_index);
    d_clock = stream_clock(r,
                           d_start_time_ns,
                           d_clock_estimate.offset_ns,
                           d_clock_estimate.error_ns,
                           static_cast<uint64_t>(d_plan.grace_s * 1e9));
    if (d_metadata)
        d_metadata->start(r,
                          d_start_time_ns,
                          static_cast<uint64_t>(d_plan.grace_s * 1e9),
                          d_clock_estimate);
    d_running = true;
}

void rx_stream::impl::stop()
{
    if (!d_running.exchange(false))
        return;
    d_cq->interrupt();
    bool ours = true;
    try {
        d_device->stop_rx(d_plan.stream_index);
    } catch (const axioe::error& e) {
        if (e.code() != axioe::status::not_owner)
            throw;
        // Taken over (or our lease lapsed and another host claimed it): the device
        // stopped our run when that happened; there is nothing left to stop or release.
        ours = false;
        d_logger->warn("RX stream {} of the device at {} belongs to another host now "
                       "(taken over, or this host was silent for its lease of {} s); "
                       "the device had already stopped this run",
                       d_plan.stream_index,
                       d_device->address().to_string(),
                       d_plan.lease_ms / 1000.0);
    }
    // A new run gets a new QP: packets of this run still in flight then find no QP.
    d_qp->to_reset();
    drain_completions();
    d_qp.reset();
    if (ours)
        release_quietly();
}

void rx_stream::impl::release_quietly()
{
    if (!d_plan.ownership)
        return;
    try {
        d_device->release_rx(d_plan.stream_index);
    } catch (const std::exception& e) {
        // Not fatal: the device frees the stream itself once the lease lapses.
        d_logger->warn("could not release RX stream {} of the device at {}: {}; the "
                       "device frees it after {} s of silence",
                       d_plan.stream_index,
                       d_device->address().to_string(),
                       e.what(),
                       d_plan.lease_ms / 1000.0);
    }
}

void rx_stream::impl::drain_completions()
{
    nic::work_completion wc[32];
    while (d_cq->poll(wc, 32) > 0) {
    }
}

void rx_stream::impl::pump_completions()
{
    nic::work_completion wc[32];
    int n;
    while ((n = d_cq->poll(wc, 32)) > 0) {
        for (int i = 0; i < n; i++) {
            if (wc[i].status == nic::wc_status::success && d_qp &&
                wc[i].qpn == d_qp->qpn()) {
                d_progress.on_immediate(wc[i].imm_data);
                if (d_probe)
                    d_probe->on_notification(d_progress.landed(), wc[i].written_ns);
            }
        }
        d_completions += n;
        // Every completion consumed a posted receive (the host posts nothing else).
        // Counted here rather than asked of the QP: a soft QP would take the lock its
        // NIC thread holds across a batch.
        d_receives_posted -= std::min(d_receives_posted, n);
    }
    if (d_qp && d_receives_posted < max_receives / 2) {
        const int more = max_receives - d_receives_posted;
        d_qp->post_receives(d_next_wr_id, more);
        d_next_wr_id += more;
        d_receives_posted = max_receives;
    }
}

void rx_stream::impl::await_last_notification()
{
    // The clock can declare the burst's end before the completion of its last message
    // (which always carries immediate data) is polled; wait for it, once and briefly,
    // so that the host's completion counters are final when the stream ends.
    if (d_last_notification_awaited)
        return;
    d_last_notification_awaited = true;
    const auto give_up = std::chrono::steady_clock::now() + last_notification_timeout;
    while (d_progress.landed() < d_plan.num_samples &&
           std::chrono::steady_clock::now() < give_up) {
        d_cq->wait(std::chrono::milliseconds(1));
        pump_completions();
    }
}

void rx_stream::impl::update_progress(uint64_t released)
{
    const int64_t now = host_time_ns();
    const uint64_t written = d_clock.written_bound(now);
    // Final: what immediate data proved, or what the clock says must have landed.
    const uint64_t final_upto = std::max(d_progress.landed(), d_clock.final_by(now));
    d_tracker->on_release(released, written);
    d_tracker->on_progress(final_upto, written);
}

size_t rx_stream::impl::wait_items(uint64_t next,
                                   uint64_t released,
                                   std::chrono::microseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        pump_completions();
        if (d_metadata) // refines d_clock, marks substituted samples (~1 ms apart)
            d_metadata->poll(host_time_ns(), *d_tracker, d_clock);
        update_progress(released);
        const uint64_t written = d_clock.written_bound(host_time_ns());
        const uint64_t ready = d_tracker->deliverable(next, written);
        if (end_of_stream(next)) {
            await_last_notification();
            d_tracker->settle(
                written); // the device wrote its last sample: nothing changes now
            return 0;
        }
        const int64_t now = host_time_ns();
        keep_lease();
        if (d_running && gathering(next, ready, now)) {
            // work_interval=: let more items become final and hand them out in one go,
            // which saves this thread and every downstream block a wake-up each. One
            // sleep, not a wait for each completion, even past the caller's timeout: a
            // wake-up costs more than the interval (at most a quarter of the latency
            // budget) is worth.
            std::this_thread::sleep_for(std::chrono::nanoseconds(
                d_last_handout_ns + d_plan.work_interval_ns - now));
            continue;
        }
        if (ready || !d_running) {
            if (ready)
                d_last_handout_ns = now;
            return static_cast<size_t>(ready);
        }
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return 0;
        // Sleep until a completion, or until the clock makes the next message final.
        const uint64_t next_final =
            (d_tracker->device_item(next) / d_plan.message_items + 1) *
            d_plan.message_items;
        const int64_t until = d_clock.host_time_final(next_final) - host_time_ns();
        // Already final by the clock: what we wait for is the consumer releasing
        // samples, which nothing signals; look again in a millisecond. With clock-only
        // progress (notify=0) nothing else wakes us either: waking per packet would cost
        // a wakeup every few microseconds, so take a millisecond of packets at once.
        const int64_t shortest_us = d_plan.notify_interval ? 50 : 1000;
        const auto clock_wait = std::chrono::microseconds(
            until > 0 ? std::max<int64_t>(until / 1000, shortest_us) : 1000);
        d_cq->wait(std::min(left, clock_wait));
    }
}

void rx_stream::impl::keep_lease()
{
    // The device stops the stream of an owner silent for its lease. Until a host
    // heartbeat renews it whatever the consumer does, the consumer's calls do: four
    // datagrams per lease, none of them waited for, so that the sample path never waits
    // on the network. Scheduled by the steady clock: a step of the wall clock must not
    // hold renewals back.
    if (!d_plan.ownership || !d_running)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now < d_next_renewal)
        return;
    d_device->renew_nowait(d_plan.stream_index);
    d_next_renewal = now + std::chrono::milliseconds(d_plan.lease_ms) / 4;
}

bool rx_stream::impl::gathering(uint64_t next, uint64_t ready, int64_t now) const
{
    // Within the interval since items were last handed out; never for the end of a
    // burst (nothing more is coming), never once a quarter of the ring is waiting (the
    // consumer must keep up).
    return d_plan.work_interval_ns && now < d_last_handout_ns + d_plan.work_interval_ns &&
           next + ready < d_tracker->consumer_total() && ready < ring_items() / 4;
}

void rx_stream::impl::commit(uint64_t next, size_t count)
{
    d_tracker->commit(next, count);
    if (d_probe)
        d_probe->on_produced(d_tracker->device_item(next + count));
}

bool rx_stream::impl::poll_event(rx_event& out)
{
    if (!d_tracker->poll_event(out) && !(d_metadata && d_metadata->poll_event(out)))
        return false;
    out.time_ns = d_clock.time_of(out.device_item);
    return true;
}

bool rx_stream::impl::end_of_stream(uint64_t next) const
{
    return d_plan.num_samples && next >= d_tracker->consumer_total();
}

rx_stream::accounting rx_stream::impl::counts() const
{
    const loss_counts& c = d_tracker->counts();
    accounting a;
    a.delivered = c.delivered;
    a.lost_gap = c.lost_gap;
    a.lost_skipped = c.lost_skipped;
    a.lost_overwritten = c.lost_overwritten;
    return a;
}

rx_stream::chunk rx_stream::impl::recv(size_t max_items,
                                       std::chrono::microseconds timeout)
{
    chunk c;
    c.first_item = d_read_position;
    // Items handed out before and not released are handed out again, as they are; new
    // ones can only follow them (a skip, if any, happens there), and are committed.
    const uint64_t held = d_handed_out - d_read_position;
    const size_t fresh = wait_items(
        d_handed_out, d_read_position, held ? std::chrono::microseconds(0) : timeout);
    const size_t items = static_cast<size_t>(
        std::min<uint64_t>({ held + fresh, max_items, ring_items() }));
    if (d_read_position + items > d_handed_out) {
        commit(d_handed_out, d_read_position + items - d_handed_out);
        d_handed_out = d_read_position + items;
    }
    c.items = items;
    c.data = d_ring->base() + (d_tracker->device_item(d_read_position) % ring_items()) *
                                  rdma::item_size(d_plan.format);
    c.end_of_stream = end_of_stream(d_read_position + items);
    d_last_chunk = items;
    return c;
}

void rx_stream::impl::release(size_t items)
{
    if (items > d_last_chunk)
        throw std::invalid_argument("rx_stream::release(" + std::to_string(items) +
                                    "): only " + std::to_string(d_last_chunk) +
                                    " items were handed out by the last recv()");
    d_read_position += items;
    d_last_chunk -= items;
}

rx_device_counters rx_stream::impl::read_device_counters()
{
    rx_device_counters dev = d_device->read_rx_counters(d_plan.stream_index);
    // A device counts a batch just after sending it, so the host can hold the whole
    // burst a moment before the device's counters do. Once it does, wait for the
    // device to say "done" (bounded: a device that never does is reported as it is).
    if (!d_plan.num_samples || !end_of_stream(d_tracker->handed_out()))
        return dev;
    const auto give_up = std::chrono::steady_clock::now() + final_counters_timeout;
    while ((dev.status & regs::status::running) &&
           std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        dev = d_device->read_rx_counters(d_plan.stream_index);
    }
    return dev;
}

std::map<std::string, uint64_t> rx_stream::impl::read_counters()
{
    std::map<std::string, uint64_t> out;
    const rx_device_counters dev = read_device_counters();
    out["device.packets_sent"] = dev.packets_sent;
    out["device.samples_emitted"] = dev.samples_emitted;
    out["device.packets_dropped"] = dev.packets_dropped;
    out["device.samples_dropped"] = dev.samples_dropped;
    out["device.imm_sent"] = dev.imm_sent;
    out["device.packets_faulted"] = dev.packets_faulted;
    out["device.samples_faulted"] = dev.samples_faulted;
    out["device.packets_duplicated"] = dev.packets_duplicated;
    out["device.messages_delayed"] = dev.messages_delayed;
    out["device.naks_received"] = dev.naks_received;
    out["device.retransmits"] = dev.retransmits;
    out["device.zero_substituted"] = dev.zero_substituted;
    for (const auto& [name, value] : d_nic->read_counters())
        out["nic." + name] = value;
    out["host.items_landed"] = d_progress.landed();
    const loss_counts& c = d_tracker->counts();
    out["host.delivered"] = c.delivered;
    out["host.lost_gap"] = c.lost_gap;
    out["host.lost_skipped"] = c.lost_skipped;
    out["host.lost_overwritten"] = c.lost_overwritten;
    out["host.lost"] = c.lost();
    out["host.events_discarded"] = d_tracker->events_discarded();
    out["host.completions"] = d_completions;
    out["host.imm_out_of_sequence"] = d_progress.out_of_sequence();
    if (d_metadata)
        d_metadata->read_counters(out, *d_tracker);
    if (d_probe)
        d_probe->export_counters("host.latency.", out);
    return out;
}

std::vector<rx_stream::injected_fault> rx_stream::impl::read_injected_faults()
{
    if (!d_info.has(regs::cap::emulator))
        throw std::runtime_error("the device at " + d_device->address().to_string() +
                                 " is not an emulator: it injects no faults");
    static const char* const kinds[] = {
        "none",     "drop",   "duplicate", "corrupt_icrc", "corrupt_payload",
        "bad_rkey", "bad_va", "delay",     "overflow"
    };
    const uint64_t spm = d_plan.payload_bytes / rdma::item_size(d_plan.format);
    std::vector<injected_fault> out;
    for (const auto& f : d_device->read_fault_log(d_plan.stream_index)) {
        injected_fault r;
        r.message = f.message;
        r.first_sample = f.message * spm;
        r.samples =
            d_plan.num_samples ? std::min(spm, d_plan.num_samples - r.first_sample) : spm;
        r.kind = f.kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[f.kind] : "unknown";
        out.push_back(r);
    }
    return out;
}

// ---- rx_stream: the public face ------------------------------------------------------

rx_stream::rx_stream(const std::string& args,
                     const std::string& format,
                     double sample_rate,
                     uint64_t num_samples)
    : d_impl(std::make_unique<impl>(args, format, sample_rate, num_samples))
{
}
rx_stream::~rx_stream() = default;
void rx_stream::start() { d_impl->start(); }
void rx_stream::stop() { d_impl->stop(); }
bool rx_stream::running() const { return d_impl->running(); }
size_t
rx_stream::wait_items(uint64_t next, uint64_t released, std::chrono::microseconds timeout)
{
    return d_impl->wait_items(next, released, timeout);
}
void rx_stream::commit(uint64_t next, size_t count) { d_impl->commit(next, count); }
bool rx_stream::poll_event(rx_event& out) { return d_impl->poll_event(out); }
bool rx_stream::end_of_stream(uint64_t next) const { return d_impl->end_of_stream(next); }
rx_stream::accounting rx_stream::counts() const { return d_impl->counts(); }
uint64_t rx_stream::burst_items() const { return d_impl->plan().num_samples; }
rx_stream::chunk rx_stream::recv(size_t max_items, std::chrono::microseconds timeout)
{
    return d_impl->recv(max_items, timeout);
}
void rx_stream::release(size_t items) { d_impl->release(items); }
uint8_t* rx_stream::ring_base() const { return d_impl->ring().base(); }
size_t rx_stream::ring_bytes() const { return d_impl->ring().bytes(); }
size_t rx_stream::ring_items() const { return d_impl->ring_items(); }
size_t rx_stream::item_size() const { return rdma::item_size(d_impl->plan().format); }
std::string rx_stream::format() const { return to_string(d_impl->plan().format); }
double rx_stream::sample_rate() const { return d_impl->plan().sample_rate; }
bool rx_stream::hugepages() const { return d_impl->ring().hugepages(); }
bool rx_stream::memory_locked() const { return d_impl->ring().locked(); }
int rx_stream::numa_node() const { return d_impl->ring().numa_node(); }
std::string rx_stream::ring_notes() const { return d_impl->ring().notes(); }
size_t rx_stream::payload_bytes() const { return d_impl->plan().payload_bytes; }
unsigned rx_stream::path_mtu() const { return d_impl->plan().path_mtu; }
uint64_t rx_stream::start_time_ns() const { return d_impl->start_time_ns(); }
std::map<std::string, uint64_t> rx_stream::read_counters()
{
    return d_impl->read_counters();
}
std::vector<rx_stream::injected_fault> rx_stream::read_injected_faults()
{
    return d_impl->read_injected_faults();
}

} // namespace rdma
} // namespace gr
