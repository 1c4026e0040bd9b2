/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// An rx_stream that takes one share of a stream split over several hosts
// (docs/links.md, "Several hosts"). Share 0's host owns the stream as any host does,
// splits it (RX_SHARES, RX_SHARE_BLOCK) and starts it once every share is ready; the
// host of share h >= 1 holds its share block, programs its destination and follows
// that run. Each counts its own share's samples only (share_layout), so the identity
// emitted = delivered + lost holds per host, and the stream's is their sum.

#include "../util/net_interface.h"
#include "../util/parse_number.h"
#include "rx_stream_impl.h"
#include <stdexcept>
#include <thread>

namespace gr {
namespace rdma {

namespace {
constexpr auto share_poll = std::chrono::milliseconds(2);
} // namespace

void rx_stream::impl::settle_shares(const rx_stream_config& config)
{
    d_share_plan = config.shares;
    if (!d_share_plan.split())
        return;
    const std::string what = "device args: share=" + std::to_string(d_share_plan.share) +
                             "/" + std::to_string(d_share_plan.shares);
    if (!d_info.has(regs::cap::shares) || !d_info.has(regs::cap::ownership))
        throw std::invalid_argument(what + ": the device at " +
                                    d_device->address().to_string() +
                                    " has no SHARES (map 1.5): drop share=");
    const auto refuse = [&](const std::string& why) {
        throw std::invalid_argument(what + " " + why);
    };
    const unsigned per_share = regs::destinations_per_share(d_share_plan.shares);
    if (d_link_plan.links > per_share)
        refuse("gives each host " + std::to_string(per_share) +
               " destination(s) of the device's 8: give links=" +
               std::to_string(per_share) + " or fewer");
    if (!d_share_plan.leads() && d_link_plan.several() &&
        (!d_link_plan.faults.empty() || !d_link_plan.emu_delay_us.empty() ||
         !d_link_plan.emu_reorder_us.empty()))
        refuse("does not own the stream: emu_link_* go to share 0's host (the "
               "emulator's links are every share's)");
    if (d_plan.rc)
        refuse("streams UC only: drop transport=rc");
    if (d_plan.queued)
        refuse("streams continuously or in finite bursts, not queued bursts");
    if (!d_plan.end_on_device_loss)
        refuse("ends with the device: drop on_device_loss=wait (another host's share "
               "cannot be re-armed from here)");
    if (!d_share_plan.leads() && config.controller.rate_limit_given)
        refuse("does not own the stream: rate_limit= goes to share 0's host");
    const uint64_t ipm = d_plan.payload_bytes / rdma::item_size(d_plan.format);
    d_share =
        share_layout(d_share_plan.share, d_share_plan.shares, d_share_plan.block, ipm);
    d_stream_samples = d_plan.num_samples;
    d_plan.num_samples = d_share.local_below(d_plan.num_samples);
    if (!d_share_plan.leads()) {
        d_ownership->own_share(d_share_plan.share);
        if (!d_link_plan.several()) // else destination h*D + n goes over link n
            choose_share_link();
    }
}

void rx_stream::impl::choose_share_link()
{
    // Share h's destination goes over the device link this host's NIC reaches: the
    // first whose address the host routes to from the NIC's (each host on a network
    // of its own, as the rxe guest's two; on one network, link 0).
    const uint32_t nic_ip = d_nic->roce_address().ip();
    const auto reaches = [nic_ip](const link_state& l) {
        try {
            return route_source_ip(l.roce.ip()) == nic_ip;
        } catch (const std::exception&) {
            return false; // no route to it from here
        }
    };
    if (d_dev->in_process() || reaches(d_link))
        return;
    for (unsigned n = 1; n < d_info.num_links; n++) {
        const link_state l = d_device->read_link(n);
        if (!reaches(l))
            continue;
        if (l.mtu < d_plan.path_mtu + frame_overhead)
            throw std::invalid_argument(
                "device link " + std::to_string(n) + " (the one " + d_share_plan.name() +
                "'s NIC reaches) has an MTU of " + std::to_string(l.mtu) +
                ", too small for the path MTU " + std::to_string(d_plan.path_mtu) +
                ": give a smaller mtu=");
        d_share_link = n;
        d_link = l;
        return;
    }
}

bool rx_stream::impl::follows_share() const
{
    return d_share_plan.split() && !d_share_plan.leads();
}

unsigned rx_stream::impl::share_destination() const
{
    // Share h owns destinations h*D .. h*D + D - 1, D = 8 / RX_SHARES; it uses its first.
    return d_share_plan.share * regs::destinations_per_share(d_share_plan.shares);
}

void rx_stream::impl::await_share_layout()
{
    // The host of share h >= 1 claims its share once share 0's host has split the
    // stream that way (a claim beyond RX_SHARES is refused).
    axioe::client& c = d_device->client();
    const unsigned s = d_plan.stream_index;
    const auto give_up = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(d_share_plan.wait_s * 1000));
    uint32_t shares = 0, block = 0;
    for (;;) {
        shares = c.read32(regs::rx_reg(s, regs::rx::shares));
        block = c.read32(regs::rx_reg(s, regs::rx::share_block));
        if (shares == d_share_plan.shares && block == d_share_plan.block)
            return;
        if (std::chrono::steady_clock::now() >= give_up)
            break;
        std::this_thread::sleep_for(share_poll);
    }
    throw std::runtime_error(
        "RX stream " + std::to_string(s) + " of the device at " +
        d_device->address().to_string() + " is split into " + std::to_string(shares) +
        " share(s) of " + std::to_string(block) + " messages, not " +
        std::to_string(d_share_plan.shares) + " of " +
        std::to_string(d_share_plan.block) + " (share=" +
        std::to_string(d_share_plan.share) + "/" + std::to_string(d_share_plan.shares) +
        ", share_block=" + std::to_string(d_share_plan.block) +
        "), after share_wait=" + format_number(d_share_plan.wait_s) +
        " s: start share 0's host with the same share= and share_block=");
}

void rx_stream::impl::split_stream()
{
    // Share 0's host: the layout, unless it is already this one (it cannot change while
    // another host holds a share).
    axioe::client& c = d_device->client();
    const unsigned s = d_plan.stream_index;
    if (c.read32(regs::rx_reg(s, regs::rx::shares)) == d_share_plan.shares &&
        c.read32(regs::rx_reg(s, regs::rx::share_block)) == d_share_plan.block)
        return;
    // One burst: a host of another share that sees RX_SHARES must see the block too
    // (it claims its share at once, and the layout is fixed from then on).
    const uint32_t layout[2] = { d_share_plan.shares, d_share_plan.block };
    try {
        c.write_atomic(regs::rx_reg(s, regs::rx::shares), layout, 2);
    } catch (const axioe::error& e) {
        throw std::runtime_error(
            "the device at " + d_device->address().to_string() +
            " refused to split RX "
            "stream " +
            std::to_string(s) + " into " + std::to_string(d_share_plan.shares) +
            " shares of " + std::to_string(d_share_plan.block) + " messages (" +
            e.what() +
            "): another host still holds a share of its earlier layout; stop it, or "
            "give the same share= and share_block= as it");
    }
}

void rx_stream::impl::ensure_unsplit()
{
    // A host of the whole stream: a layout left by hosts of shares must go, or START
    // waits for shares nobody will take (error 13).
    if (d_share_plan.split() || !d_info.has(regs::cap::shares))
        return;
    axioe::client& c = d_device->client();
    const unsigned s = d_plan.stream_index;
    const uint32_t shares = c.read32(regs::rx_reg(s, regs::rx::shares));
    if (shares == 1)
        return;
    try {
        c.write32(regs::rx_reg(s, regs::rx::shares), 1);
    } catch (const axioe::error& e) {
        throw std::runtime_error("RX stream " + std::to_string(s) + " of the device at " +
                                 d_device->address().to_string() + " is split into " +
                                 std::to_string(shares) +
                                 " shares and another host holds one (" + e.what() +
                                 "): stop that host, or open the stream with share=0/" +
                                 std::to_string(shares));
    }
}

void rx_stream::impl::await_shares_ready()
{
    // START is refused (error 13) while a share has no destination: wait for every
    // share's host, and say which one is missing.
    const uint32_t all = (1u << d_share_plan.shares) - 1;
    const auto give_up = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(d_share_plan.wait_s * 1000));
    uint32_t ready = 0;
    while (((ready = d_device->read_share_ready(d_plan.stream_index)) & all) != all) {
        if (std::chrono::steady_clock::now() >= give_up) {
            unsigned missing = 0;
            while (ready & (1u << missing))
                missing++;
            throw std::runtime_error(
                "RX stream " + std::to_string(d_plan.stream_index) + ": share " +
                std::to_string(missing) + " of " + std::to_string(d_share_plan.shares) +
                " has no host ready after share_wait=" +
                format_number(d_share_plan.wait_s) + " s: start its host (share=" +
                std::to_string(missing) + "/" + std::to_string(d_share_plan.shares) +
                ", share_block=" + std::to_string(d_share_plan.block) + ")");
        }
        std::this_thread::sleep_for(share_poll);
    }
}

uint64_t rx_stream::impl::program_share(uint32_t psn)
{
    // The share's destination, DST_QPN last so that RX_SHARE_READY never shows it half
    // programmed; then share 0's host's START, which latches it.
    axioe::client& c = d_device->client();
    const unsigned s = d_plan.stream_index;
    const unsigned d = share_destination();
    const uint64_t before = d_device->read_share_start_time(s, d_share_plan.share);
    // Over several links no destination of the share has a weight until every one is
    // programmed (a weight left by an earlier host would make it ready): share 0's
    // host may START as soon as one has, and START latches which are used (weights
    // written after it open epochs).
    if (several_links())
        for (unsigned n = 0; n < d_link_plan.links; n++)
            c.write32(regs::rx_dest_reg(s, d + n, regs::dst::weight), 0);
    const socket_address nic = d_nic->roce_address();
    c.write32(regs::rx_dest_reg(s, d, regs::dst::ipv4), nic.ip());
    c.write32(regs::rx_dest_reg(s, d, regs::dst::udp_port), nic.port());
    c.write32(regs::rx_dest_reg(s, d, regs::dst::start_psn), psn);
    c.write32(regs::rx_dest_reg(s, d, regs::dst::rkey), d_mr->rkey());
    c.write64(regs::rx_dest_reg(s, d, regs::dst::va_lo),
              reinterpret_cast<uintptr_t>(d_ring->base()));
    c.write64(regs::rx_dest_reg(s, d, regs::dst::ring_bytes_lo), d_ring->bytes());
    c.write32(regs::rx_dest_reg(s, d, regs::dst::link), d_share_link);
    if (!several_links())
        c.write32(regs::rx_dest_reg(s, d, regs::dst::weight), 1);
    c.write32(regs::rx_dest_reg(s, d, regs::dst::qpn), d_qp->qpn());
    if (several_links())
        program_destinations(); // the others, then every weight
    d_logger->info("RX stream {}: {} ready (destination {}, device link {}); waiting for "
                   "share 0's host to start the stream",
                   s,
                   d_share_plan.name(),
                   d,
                   d_share_link);
    const auto give_up = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(d_share_plan.wait_s * 1000));
    for (;;) {
        const uint32_t status = d_device->read_status(stream_direction::rx, s);
        const uint64_t t0 = d_device->read_share_start_time(s, d_share_plan.share);
        if (t0 != before && (status & (regs::status::running | regs::status::done)))
            return t0;
        if (std::chrono::steady_clock::now() >= give_up)
            throw std::runtime_error(
                "RX stream " + std::to_string(s) + ": " + d_share_plan.name() +
                " is ready, but share 0's host did not start the stream within "
                "share_wait=" +
                format_number(d_share_plan.wait_s) + " s: start it (share=0/" +
                std::to_string(d_share_plan.shares) + ")");
        std::this_thread::sleep_for(share_poll);
    }
}

rx_device_counters rx_stream::impl::read_share_counters()
{
    rx_device_counters c = d_device->read_rx_counters(d_plan.stream_index);
    if (!d_share_plan.split())
        return c;
    // This host's identity is its share's: emitted = delivered + lost of its samples.
    d_stream_emitted = c.samples_emitted;
    c.samples_emitted =
        d_device->read_share_emitted(d_plan.stream_index, d_share_plan.share);
    return c;
}

bool rx_stream::impl::settle_share_stop()
{
    // Not the stream's owner: no STOP. A host that leaves while the stream still runs
    // gives its share up, and the device stops the stream (it must not write into a
    // ring whose host left); otherwise the run is over and its count final.
    bool ours = true;
    try {
        uint32_t status =
            d_device->read_status(stream_direction::rx, d_plan.stream_index);
        // A finite burst whose share this host has whole: the other shares' last
        // blocks are still on their way; leaving now would stop them.
        if (burst_over(d_tracker->handed_out()))
            status = await_stream_end(status);
        if (status & regs::status::running) {
            d_logger->warn("RX stream {}: {} leaves before the stream ended: the device "
                           "stops it for every share",
                           d_plan.stream_index,
                           d_share_plan.name());
            d_ownership->release_quietly();
            ours = false;
        }
        d_final = read_share_counters();
        d_final_known = true;
        d_tracker->settle(d_final.samples_emitted);
        d_tracker->stopped(d_final.samples_emitted);
    } catch (const std::exception& e) {
        d_device_note =
            "its counters could not be read after the run: " + std::string(e.what());
        d_logger->error("RX stream {}: the device at {}: {}",
                        d_plan.stream_index,
                        d_device->address().to_string(),
                        d_device_note);
    }
    return ours;
}

uint32_t rx_stream::impl::await_stream_end(uint32_t status)
{
    const auto give_up = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(d_share_plan.wait_s * 1000));
    while ((status & regs::status::running) &&
           std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(share_poll);
        status = d_device->read_status(stream_direction::rx, d_plan.stream_index);
    }
    return status;
}

void rx_stream::impl::export_share_counters(std::map<std::string, uint64_t>& out) const
{
    if (!d_share_plan.split())
        return;
    out["share.index"] = d_share_plan.share;
    out["share.count"] = d_share_plan.shares;
    out["share.block_messages"] = d_share_plan.block;
    out["share.block_items"] = d_share.block_items();
    out["device.stream_samples_emitted"] = d_stream_emitted;
}

} // namespace rdma
} // namespace gr
