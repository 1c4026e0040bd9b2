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
    link_watch::destinations mine;
    mine.first = share_destination();
    mine.by_weight = follows_share(); // LINK_CONTROL would act for every share
    mine.weights = programmed_weights();
    d_link_watch =
        std::make_unique<link_watch>(*d_device,
                                     d_plan.stream_index,
                                     d_link_plan.links,
                                     link_watch_period,
                                     std::chrono::milliseconds(d_link_plan.link_retry_ms),
                                     mine);
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
    d_link_down_events.fill(0);
    d_link_declared.fill(0);
    reset_liveness(host_time_ns());
    // Host feedback only where the device has the register (CAP_RATE_CONTROL).
    d_link_watch->start(d_plan.notify_interval,
                        std::move(writes),
                        d_info.has(regs::cap::rate_control) ? &d_paths : nullptr);
}

void rx_stream::impl::reset_liveness(int64_t from_ns)
{
    // A link is judged silent against its notification windows at the current rate.
    d_liveness.reset(
        int64_t(d_link_plan.link_timeout_ms) * 1000000,
        d_plan.notify_interval,
        static_cast<int64_t>(d_plan.message_items * 1e9 / d_plan.sample_rate),
        std::max(from_ns, host_time_ns()));
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
    if (!d_error.empty() || !d_link_watch->take(s))
        return;
    if (s.run != d_link_watch->run())
        return; // read before the stream's new run began: the last run's word
    std::array<uint64_t, destination_progress::max_destinations> before{};
    for (unsigned d = 0; d < d_link_plan.links; d++)
        before[d] = d_dest_progress.frontier(d);
    // No further than the device can have scheduled by now, and the window it is in.
    // EPOCH_SCHEDULED is share 0's count of local messages, which leads share h's by
    // up to a block (docs/register-map.md, "Shares").
    const uint64_t window = std::max<uint64_t>(d_plan.notify_interval, 1);
    const uint64_t lead = follows_share() ? d_share_plan.block : 0;
    const uint64_t possible =
        (d_clock.written_bound(host_time_ns()) / d_plan.message_items + 1 + lead +
         window) /
        window * window;
    const uint32_t epochs_before = d_follower.followed();
    const bool followed = d_follower.follow(s, possible);
    for (unsigned i = 0; i < d_follower.change_count(); i++)
        report_change(d_follower.change_at(i));
    if (!followed) {
        fail(rx_event::reason::stream_failed, d_follower.followed(), d_follower.why());
        return;
    }
    const int64_t now = host_time_ns();
    if (d_follower.followed() != epochs_before) // new epochs: who takes messages now
        d_liveness.on_epoch(d_follower.weights(), now);
    std::array<uint64_t, destination_progress::max_destinations> frontier{};
    for (unsigned d = 0; d < d_link_plan.links; d++) {
        frontier[d] = d_dest_progress.frontier(d);
        if (frontier[d] != before[d]) // a held immediate, judged now
            d_tracker->prove_landed(frontier[d] - 1, frontier[d]);
    }
    d_progress.advance_to(d_dest_progress.landed_messages());
    const uint32_t declare = d_liveness.check(frontier, now);
    for (unsigned d = 0; d < d_link_plan.links; d++) {
        if (!(declare & (1u << d)))
            continue;
        d_link_declared[d]++;
        d_logger->warn("RX stream {}: link {} has carried nothing for {} ms while the "
                       "others did: the host declares it down ({})",
                       d_plan.stream_index,
                       d,
                       d_liveness.timeout_ns(d) / 1000000,
                       follows_share() ? "its destination's DST_WEIGHT = 0"
                                       : "LINK_CONTROL = 2");
        d_link_watch->declare_down(d);
    }
}

void rx_stream::impl::report_change(const epoch_follower::change& c)
{
    using kind = epoch_follower::change::kind;
    const regs::epoch_values& e = c.epoch;
    if (c.what == kind::schedule) {
        const epoch_follower::weights_t& w = e.weights;
        const uint64_t low = uint64_t(w[0]) | uint64_t(w[1]) << 16 |
                             uint64_t(w[2]) << 32 | uint64_t(w[3]) << 48;
        const uint64_t high = uint64_t(w[4]) | uint64_t(w[5]) << 16 |
                              uint64_t(w[6]) << 32 | uint64_t(w[7]) << 48;
        report_link(rx_event::reason::schedule_changed, e, low, high);
        return;
    }
    if (c.what == kind::link_down) {
        d_link_down_events[c.link]++;
        report_link(rx_event::reason::link_down, e, c.link, c.by);
        d_logger->warn("RX stream {}: link {} {}; from message {} its share goes to the "
                       "others (epoch {})",
                       d_plan.stream_index,
                       c.link,
                       c.by == regs::epoch::cause_code::host_down ? "was declared down"
                                                                  : "fell",
                       e.first,
                       e.number);
        return;
    }
    report_link(rx_event::reason::link_up, e, c.link, 0);
    d_logger->info(
        "RX stream {}: link {} takes its share again from message {} (epoch {})",
        d_plan.stream_index,
        c.link,
        e.first,
        e.number);
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
