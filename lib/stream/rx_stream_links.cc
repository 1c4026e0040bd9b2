/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// An rx_stream over several device links (docs/links.md, "Host side"): destination d
// on link d, one QP each on the stream's NIC, the device's schedule computed here too
// (regs::link_schedule) so that each immediate proves its own destination's messages
// only (destination_progress) and every message is counted for its link
// (link_accounting). With one link (links= absent) nothing here runs and the stream
// programs destination 0 only, as in map 1.4.

#include "../device/device_kind.h"
#include "../nic/nic_registry.h"
#include "psn.h"
#include "rx_stream_impl.h"
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

void rx_stream::impl::settle_links(const link_plan& asked)
{
    d_link_plan = asked;
    if (!d_link_plan.several())
        return;
    const std::string where = "the device at " + d_device->address().to_string();
    if (!d_info.has(regs::cap::multi_link))
        throw std::invalid_argument(
            "device args: links=" + std::to_string(d_link_plan.links) + ": " + where +
            " has no MULTI_LINK (map 1.5): drop links=");
    if (d_info.num_links < d_link_plan.links)
        throw std::invalid_argument(
            "device args: links=" + std::to_string(d_link_plan.links) + ": " + where +
            " has " + std::to_string(d_info.num_links) + " link(s)");
    d_link_weights = d_link_plan.weights;
    for (unsigned n = 0; n < d_link_plan.links; n++) {
        if (d_link_plan.weights.empty()) // the link's LINK_WEIGHT
            d_link_weights.push_back(static_cast<uint16_t>(std::min<uint32_t>(
                d_device->client().read32(regs::link_reg(n, regs::link::weight)),
                regs::dst::max_weight)));
        if (n == 0)
            continue;
        destination_qp q;
        q.link = d_device->read_link(n);
        d_destinations.push_back(std::move(q));
    }
    unsigned sum = 0;
    for (uint16_t w : d_link_weights)
        sum += w;
    if (sum == 0 || sum > regs::link_schedule::max_period)
        throw std::invalid_argument(where + ": its links' LINK_WEIGHT add up to " +
                                    std::to_string(sum) + ", not 1..1024: give weights=");
}

void rx_stream::impl::check_links_plan() const
{
    // What several destinations need (docs/register-map.md, START error 14), said
    // before anything is programmed.
    if (!d_link_plan.several())
        return;
    const std::string what = "device args: links=" + std::to_string(d_link_plan.links);
    if (d_plan.rc && !d_info.has(regs::cap::rc_links))
        throw std::invalid_argument(
            what + ": the device at " + d_device->address().to_string() +
            " takes RC over one link only (it lacks RC_LINKS, docs/register-map.md): "
            "drop transport=rc, or links= for RC over one link");
    if (d_plan.queued)
        throw std::invalid_argument(what +
                                    " streams continuously or in finite bursts, not "
                                    "queued bursts (rx_stream::queued): drop links= "
                                    "for queued bursts");
    for (size_t i = 0; i < d_destinations.size(); i++)
        if (d_destinations[i].link.mtu < d_plan.path_mtu + frame_overhead)
            throw std::invalid_argument(
                "device link " + std::to_string(i + 1) + " has an MTU of " +
                std::to_string(d_destinations[i].link.mtu) +
                ", too small for the path MTU " + std::to_string(d_plan.path_mtu) +
                ": give a smaller mtu=");
}

std::array<uint16_t, regs::link_schedule::max_destinations>
rx_stream::impl::programmed_weights() const
{
    std::array<uint16_t, regs::link_schedule::max_destinations> w{};
    for (size_t d = 0; d < d_link_weights.size() && d < w.size(); d++)
        w[d] = d_link_weights[d];
    return w;
}

void rx_stream::impl::reset_link_progress()
{
    if (!d_link_plan.several())
        return;
    const auto w = programmed_weights();
    std::array<uint8_t, link_accounting::max_destinations> link_of{};
    for (size_t d = 0; d < d_link_weights.size(); d++)
        link_of[d] = static_cast<uint8_t>(d);
    d_schedule = regs::link_schedule();
    d_schedule.begin_epoch(0, w, d_plan.notify_interval);
    const uint64_t ipm = d_plan.payload_bytes / rdma::item_size(d_plan.format);
    d_dest_progress.reset(d_schedule,
                          ipm,
                          d_plan.num_samples,
                          d_plan.notify_interval,
                          static_cast<uint32_t>(rdma::item_size(d_plan.format)));
    d_link_counts.reset(d_schedule, link_of, ipm, d_plan.num_samples);
    // Nothing is known until the device's epochs are read (link_watch). A share's
    // host gives its destinations their weights one by one, and START may come
    // between: only the first is sure to be in the device's epoch 0.
    std::array<uint16_t, regs::link_schedule::max_destinations> sure = w;
    if (follows_share())
        std::fill(sure.begin() + 1, sure.end(), uint16_t(0));
    d_follower.reset(
        d_schedule, d_dest_progress, d_link_plan.links, sure, d_plan.notify_interval);
    d_tracker->set_gap_observer(&d_link_counts);
    d_tracker->set_settle_check(&d_dest_progress);
}

void rx_stream::impl::check_links_continue(const char* what) const
{
    if (d_info.has(regs::cap::links_continue) && d_info.has(regs::cap::burst_queue))
        return;
    throw std::runtime_error(std::string(what) + ": the device at " +
                             d_device->address().to_string() +
                             " starts a run over several links at message 0 only (it "
                             "lacks LINKS_CONTINUE, docs/register-map.md): stop the "
                             "stream and start it again");
}

uint64_t rx_stream::impl::links_first_step() const
{
    // Epochs begin at window boundaries, and the run's epoch 0 at its first message.
    return several_links() ? std::max<uint64_t>(d_plan.notify_interval, 1) : 1;
}

void rx_stream::impl::reset_destination_qps()
{
    // The old run's queue pairs go with it (the new one's PSNs start again); the
    // device's destinations are programmed anew before the next START.
    for (destination_qp& q : d_destinations)
        if (q.qp)
            q.qp->to_reset();
    drain_completions();
    nic::work_completion wc[32];
    for (destination_qp& q : d_destinations) {
        while (q.cq && q.cq->poll(wc, 32) > 0) {
        }
        q.qp.reset();
    }
}

void rx_stream::impl::continue_links(uint64_t first_message)
{
    // After the new run's START: its schedule begins at first_message with the
    // programmed weights until the device's epoch 0 is read; the last run's epochs
    // stay in the schedule for its messages. Links are timed at the new rate.
    if (!several_links())
        return;
    const auto w = programmed_weights();
    d_schedule.begin_epoch(first_message, w, d_plan.notify_interval);
    d_dest_progress.continue_at(first_message);
    d_follower.continue_at(first_message, w);
    if (d_link_watch)
        d_link_watch->continue_run();
    // The run starts ahead of the device's clock: no link carries anything before its
    // first message is due.
    reset_liveness(d_clock.host_time_final(first_message * d_plan.message_items));
}

void rx_stream::impl::open_destination_nics(const nic_config& nic)
{
    // nic_addr=A+B: destination d's QP on a NIC of its own at address d (several soft
    // NICs, several verbs ports), the ring registered with each.
    if (d_link_plan.nic_addresses.empty())
        return;
    const device_kind& kind = d_dev->kind();
    for (size_t i = 0; i < d_destinations.size(); i++) {
        destination_qp& q = d_destinations[i];
        const uint32_t ip = d_link_plan.nic_addresses.at(i + 1);
        nic_config config = nic; // the stream's, at the destination's own address
        config.ip = ip;
        config.address_given = true;
        q.nic = open_nic(config, kind.name, ip);
        q.pd = q.nic->alloc_pd();
        q.mr = q.pd->register_memory(d_ring->base(),
                                     d_ring->bytes(),
                                     nic::access_local_write | nic::access_remote_write);
        q.cq = q.nic->create_cq(cq_entries);
    }
}

void rx_stream::impl::open_destinations(uint32_t device_qpn)
{
    // Each destination's QP on the stream's NIC, reached from its own link (the
    // device's frames come from the link's address; UC sends no ACK back). RC: each
    // is connected to the device QP of its destination, and ACKs to its link's RoCE
    // port (docs/register-map.md, "RC requesters").
    const unsigned first = share_destination();
    for (size_t i = 0; i < d_destinations.size(); i++) {
        destination_qp& q = d_destinations[i];
        const unsigned d = first + static_cast<unsigned>(i + 1);
        const uint32_t remote_qpn =
            d_plan.rc ? d_device->client().read32(regs::rx_dest_rc_reg(
                            d_plan.stream_index, d, regs::dst_rc::source_qpn))
                      : device_qpn;
        q.qp = (q.pd ? *q.pd : *d_pd)
                   .create_qp(d_plan.rc ? nic::qp_type::rc : nic::qp_type::uc,
                              q.cq ? *q.cq : *d_cq,
                              max_receives);
        q.qp->to_init(nic::access_remote_write);
        q.qp->post_receives(d_next_wr_id, max_receives);
        d_next_wr_id += max_receives;
        q.receives_posted = max_receives;
        q.psn = random_psn();
        q.qp->to_rtr({ q.link.roce, remote_qpn }, q.psn, d_plan.path_mtu);
        q.qp->to_rts(q.psn);
    }
}

void rx_stream::impl::program_destinations()
{
    // After the RX block (destination 0's address): each destination's own block, then
    // every destination's link and weight (docs/register-map.md, "RX destinations").
    axioe::client& c = d_device->client();
    const unsigned s = d_plan.stream_index;
    const unsigned first = share_destination(); // 0 but for the host of share h >= 1
    for (size_t i = 0; i < d_destinations.size(); i++) {
        const unsigned d = first + static_cast<unsigned>(i + 1);
        const destination_qp& q = d_destinations[i];
        const socket_address nic = (q.nic ? *q.nic : *d_nic).roce_address();
        c.write32(regs::rx_dest_reg(s, d, regs::dst::ipv4), nic.ip());
        c.write32(regs::rx_dest_reg(s, d, regs::dst::udp_port), nic.port());
        c.write32(regs::rx_dest_reg(s, d, regs::dst::qpn), q.qp->qpn());
        c.write32(regs::rx_dest_reg(s, d, regs::dst::start_psn), q.psn);
        c.write32(regs::rx_dest_reg(s, d, regs::dst::rkey),
                  (q.mr ? *q.mr : *d_mr).rkey());
        c.write64(regs::rx_dest_reg(s, d, regs::dst::va_lo),
                  reinterpret_cast<uintptr_t>(d_ring->base()));
        c.write64(regs::rx_dest_reg(s, d, regs::dst::ring_bytes_lo), d_ring->bytes());
    }
    for (unsigned n = 0; n < d_link_weights.size(); n++)
        c.write32(regs::rx_dest_reg(s, first + n, regs::dst::link), n);
    for (unsigned n = 0; n < d_link_weights.size(); n++)
        c.write32(regs::rx_dest_reg(s, first + n, regs::dst::weight), d_link_weights[n]);
}

void rx_stream::impl::close_destinations()
{
    reset_destination_qps();
    // A later run of this stream by a host of one link must not find them used.
    try {
        for (size_t i = 0; i < d_destinations.size(); i++)
            d_device->client().write32(
                regs::rx_dest_reg(d_plan.stream_index,
                                  share_destination() + unsigned(i + 1),
                                  regs::dst::qpn),
                0);
    } catch (const std::exception& e) {
        d_logger->warn("RX stream {}: its destinations 1.. could not be cleared: {}",
                       d_plan.stream_index,
                       e.what());
    }
}

int rx_stream::impl::destination_on_stream_cq(uint32_t qpn) const
{
    // A QP number is unique on its device only: two NICs hand out the same ones (two
    // fresh rxe devices both begin at 0x11). The stream's CQ holds the completions of
    // the QPs on the stream's NIC; a destination with a NIC of its own has its own CQ
    // (pump_destination_cqs()).
    if (d_qp && qpn == d_qp->qpn())
        return 0;
    for (size_t i = 0; i < d_destinations.size(); i++) {
        const destination_qp& q = d_destinations[i];
        if (!q.cq && q.qp && q.qp->qpn() == qpn)
            return static_cast<int>(i + 1);
    }
    return -1;
}

void rx_stream::impl::on_destination_completion(unsigned d,
                                                const nic::work_completion& wc,
                                                uint64_t produced)
{
    // Destination d's immediate proves d's messages only: the stream has landed up to
    // the first message whose destination has not notified it yet.
    if (d > 0)
        d_destinations[d - 1].receives_posted--;
    if (wc.status != nic::wc_status::success) {
        const nic::device& nic =
            d > 0 && d_destinations[d - 1].nic ? *d_destinations[d - 1].nic : *d_nic;
        fail(rx_event::reason::nic_error,
             static_cast<uint64_t>(wc.status),
             "the NIC " + nic.name() + " failed destination " + std::to_string(d) +
                 "'s queue pair: " + nic::to_string(wc.status));
        return;
    }
    if (d_dest_progress.on_immediate(d, wc.imm_data, wc.byte_len, produced) !=
        destination_progress::verdict::accepted)
        return;
    // UC: the message the immediate names landed, whole.
    const uint64_t m = d_dest_progress.frontier(d) - 1;
    d_tracker->prove_landed(m, m + 1);
    d_progress.advance_to(d_dest_progress.landed_messages());
    // How late this destination's path runs: its own message, not the stream's
    // frontier, which a dead link holds back until the clock passes it.
    const uint64_t end =
        std::min<uint64_t>(d_dest_progress.frontier(d) * d_plan.message_items,
                           d_plan.num_samples ? d_plan.num_samples : UINT64_MAX);
    track_lateness(end);
    // And how long after the device produced that message's last sample (the clock's
    // bound less its error and grace: its best estimate), for DST_PATH_NS.
    d_paths.on_notification(d,
                            host_time_ns() - d_clock.host_time_final(end) +
                                int64_t(d_clock.error_ns() + d_clock.grace_ns()));
}

void rx_stream::impl::pump_destination_cqs()
{
    nic::work_completion wc[32];
    for (size_t d = 1; d <= d_destinations.size(); d++) {
        destination_qp& q = d_destinations[d - 1];
        int n;
        while (q.cq && (n = q.cq->poll(wc, 32)) > 0) {
            const uint64_t produced = d_clock.written_bound(host_time_ns());
            // Its own CQ: only its QP completes here (a QP of an earlier run aside),
            // whatever QP numbers the other NICs gave.
            for (int i = 0; i < n; i++)
                if (q.qp && wc[i].qpn == q.qp->qpn())
                    on_destination_completion(unsigned(d), wc[i], produced);
            d_completions += n;
        }
    }
}

void rx_stream::impl::wait_completions(std::chrono::microseconds wait)
{
    // Only the stream's own CQ wakes it: with a NIC per link, look at the others at
    // least every millisecond (each wake polls them all).
    const bool more_cqs = !d_link_plan.nic_addresses.empty();
    d_cq->wait(more_cqs ? std::min(wait, std::chrono::microseconds(1000)) : wait);
}

void rx_stream::impl::post_destination_receives()
{
    for (destination_qp& q : d_destinations) {
        if (!q.qp || q.receives_posted >= max_receives / 2 || d_end_fenced)
            continue;
        const int more = max_receives - q.receives_posted;
        q.qp->post_receives(d_next_wr_id, more);
        d_next_wr_id += more;
        q.receives_posted = max_receives;
    }
}

void rx_stream::impl::note_links_final(uint64_t final_upto)
{
    if (!d_link_plan.several())
        return;
    // Final messages count for their links; a burst's short last one with the burst.
    const uint64_t ipm = d_plan.message_items;
    const bool burst_done = d_plan.num_samples && final_upto >= d_plan.num_samples;
    d_link_counts.on_final((final_upto + (burst_done ? ipm - 1 : 0)) / ipm);
}

void rx_stream::impl::update_links_unwaited()
{
    // Only one destination's packets are placed in order: its notifications settle its
    // own messages (d_dest_progress is the tracker's settle_check). One the schedule
    // gives nothing now, that the host declared down, or that has carried nothing for
    // longer than the clock waits for a late packet while the others carried on, is
    // not waited for: its packets count as in (or lost) once the clock says so, as on a
    // path without notifications.
    uint32_t unwaited = 0;
    if (d_link_watch)
        unwaited = d_liveness.quiet(
            host_time_ns(), static_cast<int64_t>(grace_ns()) + d_lateness.late_ns());
    for (unsigned d = 0; d < d_link_plan.links; d++)
        if (d_follower.weights()[d] == 0 || d_liveness.declared(d))
            unwaited |= 1u << d;
    d_dest_progress.set_unwaited(unwaited);
}

void rx_stream::impl::export_link_rc_counters(std::map<std::string, uint64_t>& out)
{
    // RC over several links: what each destination's requester measured and resent
    // (the device's RC blocks), per link. Read only while the device answers.
    if (!d_link_plan.several() || !d_plan.rc || !d_info.has(regs::cap::rc_links) ||
        !out["device.counters_known"])
        return;
    try {
        for (unsigned n = 0; n < d_link_plan.links; n++) {
            const unsigned d = share_destination() + n;
            auto reg = [&](uint32_t offset) {
                return regs::rx_dest_rc_reg(d_plan.stream_index, d, offset);
            };
            axioe::client& c = d_device->client();
            const std::string key = "device.link" + std::to_string(n) + ".";
            out[key + "rtt_ns"] = c.read32(reg(regs::dst_rc::rtt_ns));
            out[key + "retransmits"] = c.read64(reg(regs::dst_rc::retransmits_lo));
            out[key + "naks"] = c.read64(reg(regs::dst_rc::naks_lo));
        }
    } catch (const std::exception& e) {
        d_logger->warn("RX stream {}: its links' RC counters could not be read: {}",
                       d_plan.stream_index,
                       e.what());
    }
}

void rx_stream::impl::export_link_counters(std::map<std::string, uint64_t>& out) const
{
    if (!d_link_plan.several())
        return;
    out["host.links"] = d_link_plan.links;
    for (unsigned n = 0; n < d_link_plan.links; n++) {
        const std::string key = "host.link" + std::to_string(n) + ".";
        out[key + "messages"] = d_link_counts.counts(n).messages;
        out[key + "lost_samples"] = d_link_counts.counts(n).lost_samples;
        out[key + "frontier"] = d_dest_progress.frontier(n);
        out[key + "imm_out_of_sequence"] = d_dest_progress.out_of_sequence(n);
        out[key + "path_ns"] = d_paths.measured(n);
    }
    for (unsigned n = 0; n < d_link_plan.links; n++) {
        const std::string key = "host.link" + std::to_string(n) + ".";
        out[key + "down_events"] = d_link_down_events[n];
        out[key + "declared_down"] = d_link_declared[n];
        // Its QP on its NIC (two NICs may give the same number: rxe_links_test).
        const nic::queue_pair* qp = n == 0 ? d_qp.get()
                                    : n <= d_destinations.size()
                                        ? d_destinations[n - 1].qp.get()
                                        : nullptr;
        out[key + "qpn"] = qp ? qp->qpn() : 0;
    }
    out["host.epochs"] = d_follower.followed();
    out["host.imm_held"] = d_dest_progress.held();
    out["host.schedule_known"] = d_dest_progress.known();
    out["host.schedule_implausible"] = d_follower.implausible();
    if (d_link_watch) {
        out["host.link_watch_failures"] = d_link_watch->failures();
        out["host.path_feedback_failures"] = d_link_watch->path_failures();
    }
    out["host.links_unattributed_messages"] = d_link_counts.unattributed_messages();
    out["host.links_unattributed_samples"] = d_link_counts.unattributed_samples();
    out["host.imm_wrong_destination"] = d_dest_progress.wrong_destination();
}

} // namespace rdma
} // namespace gr
