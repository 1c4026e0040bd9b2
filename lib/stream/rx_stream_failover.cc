/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Failover of an rx_stream over several links (docs/links.md, "Failover"): the host
// follows the epochs the device begins (a link that fell, one the host declared down,
// a rejoin, new weights), so that every message is still judged by the destination it
// was really sent to, and lost messages are named by their link; it declares a link
// down when its destination falls silent while the others progress (link_liveness),
// and reports every change on the stream's events.

#include "../regs/link_registers.h"
#include "rx_stream_impl.h"
#include <string>
#include <vector>

namespace gr {
namespace rdma {

namespace {
// How often the host reads the epoch block: what the device schedules becomes final
// at most this much later than its notifications say (docs/links.md).
constexpr std::chrono::microseconds link_watch_period{ 1000 };
} // namespace

void rx_stream::impl::make_link_watch()
{
    if (!d_link_plan.several())
        return;
    const bool emulated = !d_link_plan.faults.empty() ||
                          !d_link_plan.emu_delay_us.empty() ||
                          !d_link_plan.emu_reorder_us.empty();
    if (emulated && !d_info.has(regs::cap::emulator))
        throw std::invalid_argument(
            "device args: emu_link_* act on the links of the built-in emulator; the "
            "device at " +
            d_device->address().to_string() + " is not one: drop them");
    d_link_watch = std::make_unique<link_watch>(
        *d_device,
        d_plan.stream_index,
        d_link_plan.links,
        link_watch_period,
        std::chrono::milliseconds(d_link_plan.link_retry_ms));
}

void rx_stream::impl::configure_emulated_links()
{
    // emu_link_delay_us= / emu_link_reorder_us=: before START, so that every message
    // meets them (messages reach the host out of order across links).
    axioe::client& c = d_device->client();
    for (size_t n = 0; n < d_link_plan.emu_delay_us.size(); n++)
        c.write32(regs::emu_link_reg(unsigned(n), regs::emu_link::delay_us),
                  d_link_plan.emu_delay_us[n]);
    for (size_t n = 0; n < d_link_plan.emu_reorder_us.size(); n++)
        c.write32(regs::emu_link_reg(unsigned(n), regs::emu_link::reorder_us),
                  d_link_plan.emu_reorder_us[n]);
}

void rx_stream::impl::start_link_watch()
{
    if (!d_link_watch)
        return;
    std::vector<link_watch::timed_write> writes;
    for (const link_plan::link_fault& f : d_link_plan.faults) {
        const bool down = f.what == link_plan::link_fault::kind::down;
        const uint32_t address = regs::emu_link_reg(
            f.link, down ? regs::emu_link::down : regs::emu_link::loss_ppm);
        writes.push_back(
            { static_cast<int64_t>(f.from_s * 1e9), address, down ? 1u : 1000000u });
        if (f.until_s >= 0)
            writes.push_back({ static_cast<int64_t>(f.until_s * 1e9), address, 0 });
    }
    d_epochs_followed = 0;
    d_schedule_implausible = 0;
    d_link_down_events.fill(0);
    d_link_declared.fill(0);
    d_liveness.reset(
        int64_t(d_link_plan.link_timeout_ms) * 1000000,
        d_plan.notify_interval,
        static_cast<int64_t>(d_plan.message_items * 1e9 / d_plan.sample_rate),
        host_time_ns());
    d_link_watch->start(d_plan.notify_interval, std::move(writes));
}

void rx_stream::impl::stop_link_watch()
{
    if (!d_link_watch)
        return;
    d_link_watch->stop();
    // The emulator's faults act on the device, not the run: leave its links whole.
    std::vector<uint32_t> restore;
    for (const link_plan::link_fault& f : d_link_plan.faults)
        restore.push_back(regs::emu_link_reg(f.link,
                                             f.what == link_plan::link_fault::kind::down
                                                 ? regs::emu_link::down
                                                 : regs::emu_link::loss_ppm));
    for (size_t n = 0; n < d_link_plan.emu_delay_us.size(); n++)
        restore.push_back(regs::emu_link_reg(unsigned(n), regs::emu_link::delay_us));
    for (size_t n = 0; n < d_link_plan.emu_reorder_us.size(); n++)
        restore.push_back(regs::emu_link_reg(unsigned(n), regs::emu_link::reorder_us));
    for (uint32_t address : restore) {
        try {
            d_device->client().write32(address, 0);
        } catch (const std::exception& e) {
            d_logger->warn("RX stream {}: the emulator's link register {:#x} could not "
                           "be restored: {}",
                           d_plan.stream_index,
                           address,
                           e.what());
            break;
        }
    }
}

uint64_t rx_stream::impl::known_final(uint64_t final_upto) const
{
    // Nothing is final, by notification or by the clock, where the host does not know
    // the schedule yet: its loss could not be named by its link.
    if (!d_link_watch)
        return final_upto;
    return std::min(final_upto, d_dest_progress.known() * d_plan.message_items);
}

void rx_stream::impl::pass_links_final(uint64_t final_upto)
{
    // The clock made these final: a dead link's last messages, never notified, hold
    // the stream's frontier no longer than that.
    if (!d_link_watch)
        return;
    d_dest_progress.pass_final(final_upto / d_plan.message_items);
    d_progress.advance_to(d_dest_progress.landed_messages());
}

void rx_stream::impl::follow_links()
{
    if (!d_link_watch)
        return;
    link_watch::snapshot s;
    if (!d_link_watch->take(s))
        return;
    for (unsigned j = 0; j < s.kept && d_error.empty(); j++) {
        const regs::epoch_values& e = s.epochs[j];
        if (e.number < d_epochs_followed)
            continue;
        if (e.number > d_epochs_followed)
            break; // an entry overwritten before it was read: said below
        follow_epoch(e);
    }
    if (!d_error.empty())
        return;
    if (d_epochs_followed < s.epoch_count) {
        fail(rx_event::reason::stream_failed,
             d_epochs_followed,
             "the device began epochs " + std::to_string(d_epochs_followed) + ".." +
                 std::to_string(s.epoch_count - 1) +
                 " faster than the host read them (it keeps the last " +
                 std::to_string(s.kept) +
                 "): where their messages went is not known; a device must not begin "
                 "EPOCH_KEPT epochs within one ring (docs/register-map.md)");
        return;
    }
    std::array<uint64_t, destination_progress::max_destinations> before{};
    for (unsigned d = 0; d < d_link_plan.links; d++)
        before[d] = d_dest_progress.frontier(d);
    // No further than the device can have scheduled by now (plus the window it is in):
    // a claim beyond that is counted and not believed.
    const uint64_t ipm = d_plan.message_items;
    const uint64_t window = std::max<uint64_t>(d_plan.notify_interval, 1);
    const uint64_t possible =
        (d_clock.written_bound(host_time_ns()) / ipm + 1 + window) / window * window;
    if (s.known_messages > possible)
        d_schedule_implausible++;
    d_dest_progress.set_known(std::min(s.known_messages, possible));
    std::array<uint64_t, destination_progress::max_destinations> frontier{};
    for (unsigned d = 0; d < d_link_plan.links; d++) {
        frontier[d] = d_dest_progress.frontier(d);
        if (frontier[d] != before[d]) // a held immediate, judged now
            d_tracker->prove_landed(frontier[d] - 1, frontier[d]);
    }
    d_progress.advance_to(d_dest_progress.landed_messages());
    const uint32_t declare = d_liveness.check(frontier, host_time_ns());
    for (unsigned d = 0; d < d_link_plan.links; d++) {
        if (!(declare & (1u << d)))
            continue;
        d_link_declared[d]++;
        d_logger->warn("RX stream {}: link {} has carried nothing for {} ms while the "
                       "others did: the host declares it down (LINK_CONTROL = 2)",
                       d_plan.stream_index,
                       d,
                       d_liveness.timeout_ns(d) / 1000000);
        d_link_watch->declare_down(d);
    }
}

void rx_stream::impl::follow_epoch(const regs::epoch_values& e)
{
    // Destination d is on link d (links=N). Nothing at or above the first message of
    // an epoch the host has not seen was judged yet (set_known), so epoch 0 may
    // replace the weights the host programmed (a link down at START).
    std::array<uint16_t, regs::link_schedule::max_destinations> w{};
    for (unsigned d = 0; d < d_link_plan.links; d++)
        w[d] = e.weights[d];
    const uint64_t known = d_dest_progress.known();
    if (e.number > 0 && e.first < known) {
        fail(rx_event::reason::stream_failed,
             e.number,
             "the device's epoch " + std::to_string(e.number) + " begins at message " +
                 std::to_string(e.first) + ", below the " + std::to_string(known) +
                 " it said it had scheduled: the device does not keep its schedule");
        return;
    }
    try {
        d_schedule.begin_epoch(e.number == 0 ? 0 : e.first, w, d_plan.notify_interval);
    } catch (const std::invalid_argument& x) {
        fail(rx_event::reason::stream_failed,
             e.number,
             "the device's epoch " + std::to_string(e.number) +
                 " is not one: " + x.what());
        return;
    }
    d_epochs_followed = e.number + 1;
    d_liveness.on_epoch(w, host_time_ns());
    if (e.number == 0) {
        for (unsigned d = 0; d < d_link_plan.links; d++)
            if (d_link_weights[d] && !w[d]) { // down at START
                d_link_down_events[d]++;
                report_link(rx_event::reason::link_down, e, d, 1);
            }
        return;
    }
    const uint64_t packed_low = uint64_t(w[0]) | uint64_t(w[1]) << 16 |
                                uint64_t(w[2]) << 32 | uint64_t(w[3]) << 48;
    const uint64_t packed_high = uint64_t(w[4]) | uint64_t(w[5]) << 16 |
                                 uint64_t(w[6]) << 32 | uint64_t(w[7]) << 48;
    report_link(rx_event::reason::schedule_changed, e, packed_low, packed_high);
    namespace cause = regs::epoch::cause_code;
    if ((e.cause == cause::link_down || e.cause == cause::host_down) &&
        e.link < d_link_plan.links) {
        d_link_down_events[e.link]++;
        report_link(rx_event::reason::link_down, e, e.link, e.cause);
        d_logger->warn("RX stream {}: link {} {}; from message {} its share goes to the "
                       "others (epoch {})",
                       d_plan.stream_index,
                       e.link,
                       e.cause == cause::link_down ? "fell" : "was declared down",
                       e.first,
                       e.number);
    } else if (e.cause == cause::link_up && e.link < d_link_plan.links) {
        report_link(rx_event::reason::link_up, e, e.link, 0);
        d_logger->info("RX stream {}: link {} takes its share again from message {} "
                       "(epoch {})",
                       d_plan.stream_index,
                       e.link,
                       e.first,
                       e.number);
    }
}

void rx_stream::impl::report_link(rx_event::reason why,
                                  const regs::epoch_values& e,
                                  uint64_t value,
                                  uint64_t count)
{
    rx_event r;
    r.type = rx_event::kind::link;
    r.cause = why;
    r.device_item = e.first * d_plan.message_items;
    r.item =
        r.device_item >= d_tracker->offset() ? r.device_item - d_tracker->offset() : 0;
    r.time_ns = d_clock.time_of(r.device_item);
    r.code = e.number;
    r.value = value;
    r.count = count;
    d_events.push(r);
}

} // namespace rdma
} // namespace gr
