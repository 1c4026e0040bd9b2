/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Construction of an rx_stream: device args checked and settled against the device,
// the NIC and the ring. The running stream is in rx_stream_impl.cc.

#include "../nic/nic_registry.h"
#include "../ring/ring_sizing.h"
#include "../util/net_interface.h"
#include "../util/parse_number.h"
#include "controller_args.h"
#include "handout_pacing.h"
#include "ring_args.h"
#include "rx_stream_impl.h"
#include "stream_args.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

constexpr size_t min_notify_intervals = 4;

unsigned largest_path_mtu(unsigned limit)
{
    unsigned mtu = 0;
    for (unsigned m = 256; m <= 4096 && m <= limit; m *= 2)
        mtu = m;
    return mtu;
}

} // namespace

rx_stream::impl::impl(std::shared_ptr<shared_device> device,
                      const rx_stream_config& config,
                      const std::string& format,
                      double rate,
                      uint64_t num_samples)
    : d_logger(make_logger("rdma rx_stream"))
{
    plan_run(config, format, rate, num_samples);
    attach_device(std::move(device), config);
    if (d_plan.queued && !d_info.has(regs::cap::burst_queue))
        throw std::runtime_error("rx_stream: the device at " +
                                 d_device->address().to_string() +
                                 " has no burst queue (BURST_QUEUE, docs/radio.md): "
                                 "stream continuously, or in finite bursts");
    settle_links(config.links);
    settle_grace(config.receive);
    open_nic_for(config.nic);
    settle_transport(config);
    settle_work_interval(config.receive);
    settle_shares(config);
    check_test_modes(config);
    allocate_ring(config.ring);
    check_links_plan();
    make_link_watch();
    register_ring();
    open_destination_nics(config.nic);
    settle_metadata(config.metadata);
    make_watches();
    d_logger->info("RX stream {} {} at {} S/s: ring {} bytes ({} items, {}), "
                   "payload {} B, notify {}, path MTU {}, NIC {} at {}, device {}",
                   d_plan.stream_index,
                   format,
                   rate,
                   d_ring->bytes(),
                   ring_items(),
                   d_ring->hugepages() ? "hugepages" : "normal pages",
                   d_plan.payload_bytes,
                   d_plan.notify_interval,
                   d_plan.path_mtu,
                   d_nic->name(),
                   d_nic->roce_address().to_string(),
                   d_device->address().to_string());
}

void rx_stream::impl::plan_run(const rx_stream_config& config,
                               const std::string& format,
                               double rate,
                               uint64_t num_samples)
{
    d_plan.format = parse_sample_format(format);
    if (!(rate > 0) || rate > 4.0e9)
        throw std::invalid_argument("rx_stream: sample rate " + std::to_string(rate) +
                                    " S/s is out of range (0, 4e9]");
    d_plan.sample_rate = rate;
    d_rate = rational_rate(rate);
    d_plan.queued = num_samples == rx_stream::queued;
    d_plan.num_samples = d_plan.queued ? 0 : num_samples; // a burst's, once current
    // The device's own count of streams is checked once it is known (attach_device).
    d_plan.stream_index = config.stream.index;
    d_plan.latency_budget_s = config.ring.latency_s;
    d_plan.end_on_device_loss = config.receive.end_on_device_loss;
    d_plan.device_timeout_ns = static_cast<int64_t>(config.stream.device_timeout_s * 1e9);
    if (config.receive.latency_probe) // benchmarks (docs/performance.md)
        d_probe = std::make_unique<latency_probe>();
}

void rx_stream::impl::check_test_modes(const rx_stream_config& config)
{
    d_gate = consumer_gate::make(config.paced, *d_dev, d_plan.stream_index);
    if (d_gate && (d_plan.queued || d_share_plan.split()))
        throw std::invalid_argument(
            "device args: emu_pace=consumer paces one host's stream of continuous or "
            "finite runs: not queued bursts, nor with share=");
    // A share's host follows the run share 0's host programs, controller included.
    if (follows_share() &&
        (!config.controller.policy.empty() || config.controller.period_us))
        throw std::invalid_argument(
            "device args: ctrl_policy= and ctrl_period= are set by the host of share 0, "
            "which owns the stream: drop them from share " +
            std::to_string(d_share_plan.share) + "/" +
            std::to_string(d_share_plan.shares) + "'s args");
}

void rx_stream::impl::register_ring()
{
    const size_t item = rdma::item_size(d_plan.format);
    d_plan.message_items = d_plan.payload_bytes / item;
    ring_geometry geometry;
    geometry.ring = d_ring->base();
    geometry.ring_items = ring_items();
    geometry.message_items = d_plan.message_items;
    geometry.packet_items = std::min(d_plan.payload_bytes, d_plan.path_mtu) / item;
    geometry.burst_items = d_plan.num_samples;
    d_tracker = std::make_unique<loss_tracker>(geometry, d_plan.format);
    d_pd = d_nic->alloc_pd();
    d_mr = d_pd->register_memory(d_ring->base(),
                                 d_ring->bytes(),
                                 nic::access_local_write | nic::access_remote_write);
    d_cq = d_nic->create_cq(cq_entries);
}

void rx_stream::impl::settle_metadata(const metadata_request& asked)
{
    // Timestamps and device events come by UDP from the link to the NIC's address.
    d_metadata_settings = asked.settle(d_info);
    // One metadata destination per device, and its reports count the stream's samples:
    // a host of one share finds its losses by their marks alone, exactly.
    if (d_metadata_settings.enabled && d_share_plan.split()) {
        d_logger->info("RX stream {}: {}: the metadata channel is off (losses are found "
                       "by their marks; timestamps come from the start time)",
                       d_plan.stream_index,
                       d_share_plan.name());
        d_metadata_settings.enabled = false;
    }
    // Queued bursts number their records per burst (docs/radio.md); the monitor
    // follows one run's timeline, so a queued stream leaves the channel off.
    if (d_metadata_settings.enabled && d_plan.queued)
        d_logger->info("RX stream {}: queued bursts do not use the metadata channel "
                       "(metadata= is ignored; read_counters: host.metadata_ignored)",
                       d_plan.stream_index);
    if (d_metadata_settings.enabled && !d_plan.queued)
        d_metadata = std::make_unique<metadata_monitor>(
            d_dev->metadata_intake_for(d_nic->roce_address()),
            d_plan.stream_index,
            d_plan.rc);
}

void rx_stream::impl::make_watches()
{
    // The heartbeat: twice per time after which the device counts as lost (an answer
    // retried once still comes in time), and four beats per ownership lease: each
    // answered exchange from this host renews it. Each beat costs the host an AXIoE
    // exchange, so no more often than that.
    const int64_t beat_ms =
        std::min<int64_t>(d_plan.device_timeout_ns / 2000000,
                          d_ownership->enabled() ? d_ownership->lease_ms() / 4 : 1000);
    d_watch = std::make_unique<device_watch>(
        *d_device,
        d_plan.stream_index,
        std::chrono::milliseconds(std::max<int64_t>(beat_ms, 10)),
        std::chrono::milliseconds(d_plan.device_timeout_ns / 1000000));
    if (d_dev->radio().channels() > d_plan.stream_index)
        d_tunes = std::make_unique<tune_tracker>(d_dev->radio(), d_plan.stream_index);
}

rx_stream::impl::~impl()
{
    try {
        stop();
    } catch (const std::exception& e) {
        d_logger->warn("stopping the stream failed while closing it: {}", e.what());
    }
}

void rx_stream::impl::attach_device(std::shared_ptr<shared_device> device,
                                    const rx_stream_config& config)
{
    d_dev = std::move(device);
    shared_device& dev = *d_dev;
    shared_device::check_rx_stream(dev, d_plan.stream_index);
    d_device = &dev.controller();
    d_info = dev.info();
    d_link = dev.link();
    d_ownership = std::make_unique<stream_ownership>(*d_device,
                                                     stream_direction::rx,
                                                     d_plan.stream_index,
                                                     d_info.has(regs::cap::ownership),
                                                     dev.in_process(),
                                                     config.ownership,
                                                     d_logger);
    if (!(d_info.formats & (1u << static_cast<uint32_t>(d_plan.format))))
        throw std::invalid_argument(std::string("the device does not stream ") +
                                    to_string(d_plan.format));

    d_signal = config.emulator.signal.for_stream(d_plan.format, d_plan.sample_rate);
    d_impairments = config.emulator.impairments;
    if (config.emulator.given() && !d_info.has(regs::cap::emulator))
        throw std::invalid_argument(
            "device args: signal=/freq=/amplitude=/seed= configure the "
            "emulator; the device at " +
            dev.address().to_string() + " is not one");
}

void rx_stream::impl::open_nic_for(const nic_config& config)
{
    const device_kind& kind = d_dev->kind();
    // A device in this process sends from its link address, and the NIC receives on
    // that address too; a remote device reaches the address that routes to it.
    const uint32_t ip =
        d_dev->in_process() ? d_link.roce.ip() : route_source_ip(d_link.roce.ip());
    d_nic = open_nic(config, kind.name, ip);
}

void rx_stream::impl::settle_grace(const receive_settings& asked)
{
    // A packet counts as lost when it has not landed a grace period after its last
    // sample was taken. The device may send up to its FIFO depth late (then it drops
    // and reports); the grace must cover that, and end well before the packet's slot
    // comes round again (a fifth of the latency budget by default).
    uint32_t fifo_us = 0;
    try {
        fifo_us = d_device->client().read32(
            regs::rx_reg(d_plan.stream_index, regs::rx::fifo_us));
    } catch (const axioe::error&) {
        // A device without the register sends on time.
    }
    const double fifo_s = fifo_us * 1e-6;
    const double minimum = fifo_s + 0.005;
    const double longest = d_plan.latency_budget_s / 2;
    if (minimum > longest)
        throw std::invalid_argument(
            "device args: latency=" + format_number(d_plan.latency_budget_s) +
            " s leaves no room for the grace period: it must cover the device's FIFO (" +
            format_number(fifo_s) +
            " s) plus 5 ms and stay within half the latency budget: raise latency= to "
            "at least " +
            format_number(2 * minimum));
    d_plan.grace_s = asked.grace_s.value_or(
        std::max(minimum, std::min(0.02, d_plan.latency_budget_s / 5)));
    if (d_plan.grace_s < minimum || d_plan.grace_s > longest)
        device_args::refuse("grace",
                            format_number(d_plan.grace_s),
                            "seconds " + format_number(minimum) + ".." +
                                format_number(longest) + "; from the device's FIFO (" +
                                format_number(fifo_s) +
                                " s) plus 5 ms to half the latency budget (latency=" +
                                format_number(d_plan.latency_budget_s) + " s)");
}

void rx_stream::impl::settle_transport(const rx_stream_config& config)
{
    const size_t item = rdma::item_size(d_plan.format);
    const unsigned link_limit =
        d_link.mtu > frame_overhead ? d_link.mtu - frame_overhead : 0;
    unsigned mtu =
        largest_path_mtu(std::min<unsigned>(d_nic->max_path_mtu(), link_limit));
    if (config.stream.mtu) {
        const unsigned wanted = *config.stream.mtu;
        if (wanted > mtu)
            throw std::invalid_argument("device args: mtu=" + std::to_string(wanted) +
                                        " exceeds what the link carries (" +
                                        std::to_string(mtu) + "; link MTU " +
                                        std::to_string(d_link.mtu) + ")");
        mtu = wanted;
    }
    if (mtu == 0)
        throw std::runtime_error("the device link MTU (" + std::to_string(d_link.mtu) +
                                 ") is too small for RoCEv2");
    d_plan.path_mtu = mtu;
    // Unless given, payload= and notify= follow from the rate and the latency budget
    // (handout_pacing.h): about a hand-out per millisecond, whatever the rate. Not with
    // several destinations, where notify= is also the unit of the link schedule, nor
    // with shares, whose hosts must agree on both: there the fixed defaults stay.
    const bool paced = !d_link_plan.several() && !config.shares.split();
    const handout_pacing pacing(d_plan.sample_rate * item, d_plan.latency_budget_s);
    const uint64_t payload =
        config.stream.payload.value_or(paced ? pacing.payload_bytes(mtu, item) : mtu);
    if (payload < item || payload % item || payload > 65536 || (payload & (payload - 1)))
        throw std::invalid_argument(
            "device args: payload=" + std::to_string(payload) +
            " is invalid: expected a power of two, a multiple of the " +
            std::to_string(item) + "-byte item, at most 65536");
    d_plan.payload_bytes = static_cast<uint32_t>(payload);
    d_plan.notify_interval = config.receive.notify.value_or(
        paced ? pacing.notify_interval(d_plan.payload_bytes) : 16);

    // RC: the device resends what the NIC NAKs, from a window of retx_window bytes.
    d_plan.rc = config.receive.rc;
    if (d_plan.rc && !d_info.has(regs::cap::rx_rc))
        throw std::invalid_argument("device args: transport=rc, but the device at " +
                                    d_device->address().to_string() +
                                    " does not stream on RC (use transport=uc)");
    d_plan.retx_window_bytes = config.receive.retx_window_bytes;

    // rate_limit=: the device dequeues the stream at most this fast (RX_RATE_LIMIT, in
    // KiB/s); what it cannot send overflows, counted (docs/links.md, SCR).
    config.controller.check(d_info, d_device->address().to_string());
    d_plan.controller = config.controller;
    d_plan.rate_limit_kib = config.controller.rate_limit_kib;
}

void rx_stream::impl::settle_work_interval(const receive_settings& asked)
{
    const double interval = asked.work_interval_s;
    // Completions are polled once per interval: the notifications of one interval must
    // fit the receives posted (half of them: they are topped up once half are used).
    if (interval > 0 && d_plan.notify_interval) {
        const double messages = d_plan.sample_rate * rdma::item_size(d_plan.format) *
                                interval / d_plan.payload_bytes;
        const double notifications = messages / d_plan.notify_interval;
        if (notifications > max_receives / 2)
            throw std::invalid_argument(
                "device args: work_interval=" + std::to_string(interval) + " s gathers " +
                std::to_string(static_cast<uint64_t>(notifications)) +
                " notifications, more than the " + std::to_string(max_receives / 2) +
                " receives the host keeps in reserve: raise notify= to at least " +
                std::to_string(
                    static_cast<uint64_t>(std::ceil(messages / (max_receives / 2)))) +
                " or lower work_interval=");
    }
    d_plan.work_interval_ns = static_cast<int64_t>(interval * 1e9);
}

void rx_stream::impl::allocate_ring(const ring_args& asked)
{
    ring_options options = asked.placement(d_nic->numa_node());
    const size_t page = ring_args::page_bytes(options);
    options.granule = d_plan.payload_bytes;
    options.min_bytes = ring_bytes_for(d_plan.sample_rate,
                                       rdma::item_size(d_plan.format),
                                       d_plan.latency_budget_s,
                                       d_plan.payload_bytes,
                                       page);
    // The host learns of progress once per notification interval; a ring that does not
    // hold several intervals is overwritten before the host hears of its content.
    const size_t notify_bytes =
        size_t(std::max<uint32_t>(d_plan.notify_interval, 1)) * d_plan.payload_bytes;
    if (options.min_bytes < min_notify_intervals * notify_bytes) {
        d_logger->info(
            "ring enlarged from {} to {} bytes to hold {} notification intervals "
            "(notify={} x payload={} B); lower notify= to keep it smaller",
            options.min_bytes,
            min_notify_intervals * notify_bytes,
            min_notify_intervals,
            d_plan.notify_interval,
            d_plan.payload_bytes);
        options.min_bytes = min_notify_intervals * notify_bytes;
    }
    d_ring = std::make_unique<ring_memory>(options, d_logger);
}

} // namespace rdma
} // namespace gr
