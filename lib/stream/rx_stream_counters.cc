/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What a running rx_stream tells of itself: read_counters(), the device's counters
// beside the host's and the NIC's (docs/loss-accounting.md names them).

#include "rx_stream_impl.h"
#include <stdexcept>
#include <thread>

namespace gr {
namespace rdma {

rx_device_counters rx_stream::impl::read_device_counters()
{
    // After stop(), the device's final count (and no exchange with a device that may
    // be gone).
    if (!d_running && d_final_known)
        return d_final;
    if (!d_running && !d_device_note.empty())
        throw std::runtime_error("the device at " + d_device->address().to_string() +
                                 ": " + d_device_note);
    rx_device_counters dev = read_share_counters();
    // A device counts a batch just after sending it, so the host can hold the whole
    // burst a moment before the device's counters do. Once it does, wait for the
    // device to say "done" (bounded: a device that never does is reported as it is).
    if (!d_plan.num_samples || d_plan.queued || !end_of_stream(d_tracker->handed_out()))
        return dev;
    const auto give_up = std::chrono::steady_clock::now() + final_counters_timeout;
    while ((dev.status & regs::status::running) &&
           std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        dev = read_share_counters();
    }
    return dev;
}

std::map<std::string, uint64_t> rx_stream::impl::read_counters()
{
    std::map<std::string, uint64_t> out;
    rx_device_counters dev;
    try {
        dev = read_device_counters();
        out["device.counters_known"] = 1;
    } catch (const std::exception& e) {
        // The host's side still counts: say which side could not be read (device_note()).
        if (d_device_note.empty())
            d_device_note = e.what();
        out["device.counters_known"] = 0;
    }
    if (out["device.counters_known"])
        export_device_counters(dev, out);
    for (const auto& [name, value] : d_nic->read_counters())
        out["nic." + name] = value;
    out["host.items_landed"] = d_progress.landed();
    // What the stream settled on (given, or handout_pacing's defaults) and what it did.
    out["host.payload_bytes"] = d_plan.payload_bytes;
    out["host.notify_interval"] = d_plan.notify_interval;
    out["host.work_interval_ns"] = static_cast<uint64_t>(d_plan.work_interval_ns);
    out["host.handouts"] = d_handouts;
    export_link_counters(out);
    export_link_rc_counters(out);
    const loss_counts& c = d_tracker->counts();
    out["host.delivered"] = c.delivered;
    out["host.lost_gap"] = c.lost_gap;
    out["host.lost_skipped"] = c.lost_skipped;
    out["host.lost_overwritten"] = c.lost_overwritten;
    out["host.lost_stopped"] = c.lost_stopped;
    out["host.lost"] = c.lost();
    out["host.outage_items"] = d_tracker->outage_items();
    out["host.overaccounted"] = d_tracker->overaccounted();
    out["host.rearms"] = d_rearms;
    out["host.rate_held_reports"] = d_rate_holds;
    out["host.reports_discarded"] = d_events.discarded();
    out["host.events_discarded"] = d_tracker->events_discarded();
    out["host.completions"] = d_completions;
    out["host.end_fenced"] = d_end_fenced;
    out["host.imm_out_of_sequence"] = d_progress.out_of_sequence();
    // One stream follows its immediates with d_progress, one over several
    // destinations with d_dest_progress: whichever ran counted what it ignored.
    out["host.imm_wrong_length"] = d_progress.wrong_length() + d_dest_progress.wrong_length();
    out["host.imm_implausible"] = d_progress.implausible() + d_dest_progress.implausible();
    out["host.late_ns"] = static_cast<uint64_t>(d_lateness.late_ns());
    out["host.mark_imitations"] = d_tracker->imitations();
    if (d_plan.queued) {
        out["host.bursts_waiting"] = d_bursts.size() - (d_burst_current ? 1 : 0);
        out["host.imm_unrouted"] = d_imm_unrouted;
        out["host.metadata_ignored"] = d_metadata_settings.enabled ? 1 : 0;
    }
    if (d_metadata)
        d_metadata->read_counters(out, *d_tracker);
    if (d_probe)
        d_probe->export_counters("host.latency.", out);
    return out;
}

void rx_stream::impl::export_device_counters(const rx_device_counters& dev,
                                             std::map<std::string, uint64_t>& out) const
{
    // The device counts from its run's start; this stream counts from its own start
    // (the same, unless the device was re-armed: then its last run only).
    out["device.packets_sent"] = dev.packets_sent;
    out["device.samples_emitted"] = d_run_base + dev.samples_emitted;
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
    out["device.status"] = dev.status;
    export_share_counters(out);
}

} // namespace rdma
} // namespace gr
