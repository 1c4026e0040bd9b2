/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Construction of a tx_stream: device args checked and settled against the device, the
// NIC, the ring and the control page. The running stream is in tx_stream_impl.cc.

#include "../nic/nic_registry.h"
#include "../ring/ring_sizing.h"
#include "../util/net_interface.h"
#include "../util/parse_number.h"
#include "consumer_gate.h"
#include "controller_args.h"
#include "ring_args.h"
#include "stream_args.h"
#include "tx_stream_impl.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

// IPv4 UDP BTH AETH ICRC: the largest header of a READ RESPONSE.
constexpr size_t frame_overhead = 20 + 8 + 12 + 4 + 4;
constexpr size_t min_notify_intervals = 4;


unsigned largest_path_mtu(unsigned limit)
{
    unsigned mtu = 0;
    for (unsigned m = 256; m <= 4096 && m <= limit; m *= 2)
        mtu = m;
    return mtu;
}

} // namespace

tx_stream::impl::impl(std::shared_ptr<shared_device> device,
                      const tx_stream_config& config,
                      const std::string& format,
                      double rate,
                      uint64_t num_samples)
    : d_logger(make_logger("rdma tx_stream"))
{
    d_plan.format = parse_sample_format(format);
    if (!(rate > 0) || rate > 4.0e9)
        throw std::invalid_argument("tx_stream: sample rate " + std::to_string(rate) +
                                    " S/s is out of range (0, 4e9]");
    d_plan.sample_rate = rate;
    d_rate = rational_rate(rate);
    d_plan.num_samples = num_samples;
    d_plan.queued = num_samples == tx_stream::queued;
    const bool if_able = num_samples == tx_stream::queued_if_able;
    d_plan.stream_index = config.stream.index;
    d_plan.notify_interval = config.transmit.notify;
    d_plan.latency_budget_s = config.ring.latency_s;
    // As an RX stream's: silent this long, its last reading failed, the device is lost.
    d_plan.device_timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(config.stream.device_timeout_s));
    attach_device(std::move(device), config);
    if (if_able) {
        d_plan.queued = d_info.has(regs::cap::tx_bursts);
        d_plan.num_samples = d_plan.queued ? tx_stream::queued : 0;
    }
    settle_transport(config.stream);
    settle_fetching(config);
    settle_emulation(config);
    settle_metadata(config.metadata);
    allocate_ring(config.ring);
    d_plan.message_items = d_plan.payload_bytes / rdma::item_size(d_plan.format);
    begin_fresh();
    register_ring();
    make_watch();
    d_logger->info("TX stream {} {} at {} S/s: ring {} bytes ({} items, {}), payload {} "
                   "B, path MTU {}, NIC {} at {}, device {}",
                   d_plan.stream_index,
                   format,
                   rate,
                   d_ring->bytes(),
                   ring_items(),
                   d_ring->hugepages() ? "hugepages" : "normal pages",
                   d_plan.payload_bytes,
                   d_plan.path_mtu,
                   d_nic->name(),
                   d_nic->roce_address().to_string(),
                   d_device->address().to_string());
}

tx_stream::impl::~impl()
{
    try {
        stop();
    } catch (const std::exception& e) {
        d_logger->warn("stopping the TX stream failed while closing it: {}", e.what());
    }
    if (d_intake)
        d_intake->detach_tx(d_plan.stream_index);
    if (d_pacing) // a later stream of the device keeps its time unless it asks again
        d_pacing->on.store(false, std::memory_order_release);
}

void tx_stream::impl::attach_device(std::shared_ptr<shared_device> device,
                                    const tx_stream_config& config)
{
    d_dev = std::move(device);
    shared_device::check_tx_stream(*d_dev, d_plan.stream_index);
    d_device = &d_dev->controller();
    d_info = d_dev->info();
    d_link = d_dev->link();
    // Owned as rx_stream owns its RX stream: claimed per run, lease renewed by the
    // watch's readings (tx_watch), released at stop.
    d_ownership = std::make_unique<stream_ownership>(*d_device,
                                                     stream_direction::tx,
                                                     d_plan.stream_index,
                                                     d_info.has(regs::cap::ownership),
                                                     d_dev->in_process(),
                                                     config.ownership,
                                                     d_logger);
    if (!(d_info.formats & (1u << static_cast<uint32_t>(d_plan.format))))
        throw std::invalid_argument(std::string("the device does not play ") +
                                    to_string(d_plan.format));
    const uint32_t ip =
        d_dev->in_process() ? d_link.roce.ip() : route_source_ip(d_link.roce.ip());
    d_nic = open_nic(config.nic, d_dev->kind().name, ip);
}

void tx_stream::impl::settle_transport(const stream_settings& asked)
{
    const size_t item = rdma::item_size(d_plan.format);
    const unsigned link_limit =
        d_link.mtu > frame_overhead ? d_link.mtu - frame_overhead : 0;
    unsigned mtu =
        largest_path_mtu(std::min<unsigned>(d_nic->max_path_mtu(), link_limit));
    if (asked.mtu) {
        if (*asked.mtu > mtu)
            throw std::invalid_argument("device args: mtu=" + std::to_string(*asked.mtu) +
                                        " exceeds what the link carries (" +
                                        std::to_string(mtu) + ")");
        mtu = *asked.mtu;
    }
    if (mtu == 0)
        throw std::runtime_error("the device link MTU (" + std::to_string(d_link.mtu) +
                                 ") is too small for RoCEv2");
    d_plan.path_mtu = mtu;
    // One READ per message; the device takes messages of up to its own payload limit
    // (a READ of several packets is answered FIRST, MIDDLE..., LAST).
    const uint64_t payload = asked.payload.value_or(mtu);
    if (payload < item || payload % item || (payload & (payload - 1)))
        throw std::invalid_argument(
            "device args: payload=" + std::to_string(payload) +
            " is invalid: expected a power of two, a multiple of the " +
            std::to_string(item) + "-byte item, at most 65536");
    d_plan.payload_bytes = static_cast<uint32_t>(payload);
}

void tx_stream::impl::settle_fetching(const tx_stream_config& config)
{
    // The most sample bytes per second the device READs (TX_RATE_LIMIT); what it
    // cannot fetch in time plays as late zeros, counted (docs/transmit.md).
    config.controller.check(d_info, d_device->address().to_string());
    d_plan.controller = config.controller;
    d_plan.rate_limit_kib = config.controller.rate_limit_kib;
    // The device adapts its lead between these (TX_MIN_LEAD_NS, TX_MAX_LEAD_NS).
    d_plan.min_lead_ns =
        static_cast<uint32_t>(std::lround(config.transmit.min_lead_s * 1e9));
    d_plan.max_lead_ns =
        static_cast<uint32_t>(std::lround(config.transmit.max_lead_s * 1e9));
}

void tx_stream::impl::register_ring()
{
    d_pd = d_nic->alloc_pd();
    // Remote READ only: the device may read the ring and the control page, never write
    // them (docs/transmit.md, docs/security.md).
    d_ring_mr =
        d_pd->register_memory(d_ring->base(), d_ring->bytes(), nic::access_remote_read);
    d_page_mr = d_pd->register_memory(
        d_page.base(), tx_control_page::bytes, nic::access_remote_read);
    d_cq = d_nic->create_cq(cq_entries);
}

void tx_stream::impl::make_watch()
{
    d_watch = std::make_unique<tx_watch>(*d_device,
                                         d_plan.stream_index,
                                         std::chrono::milliseconds(20),
                                         d_plan.device_timeout,
                                         clock_estimate{});
    if (d_metadata.enabled && d_info.has(regs::cap::tx_bursts)) {
        // The device reports by TX records: the metadata channel's UDP datagrams to the
        // NIC's address, shared with the device's other streams of this process.
        d_intake = d_dev->metadata_intake_for(d_nic->roce_address());
        d_watch->records(d_intake, &d_log);
    }
}

void tx_stream::impl::settle_emulation(const tx_stream_config& config)
{
    if (config.transmit.emulation_given && !d_info.has(regs::cap::emulator))
        throw std::invalid_argument("device args: tx_check=/tx_loss_ppm=/tx_fault_seed= "
                                    "configure the emulator; the device at " +
                                    d_device->address().to_string() + " is not one");
    d_plan.emulation = config.transmit.emulation;
    d_pacing = consumer_gate::make_tx(config.paced, *d_dev, d_plan.stream_index);
}

void tx_stream::impl::settle_metadata(const metadata_request& asked)
{
    // metadata= and metadata_interval= as rx_stream takes them (docs/device-args.md);
    // the TX records need CAP_TX_BURSTS besides.
    d_metadata = asked.settle(d_info);
    if (d_plan.queued && !d_info.has(regs::cap::tx_bursts))
        throw std::invalid_argument(
            "tx_stream: queued bursts (num_samples = tx_stream::queued) need a device "
            "with TX bursts (CAP_TX_BURSTS, register map 1.4); the device at " +
            d_device->address().to_string() + " has none");
}

void tx_stream::impl::allocate_ring(const ring_args& asked)
{
    ring_options options = asked.placement(d_nic->numa_node());
    const size_t page = ring_args::page_bytes(options);
    options.granule = d_plan.payload_bytes;
    options.min_bytes = ring_bytes_for(d_plan.sample_rate,
                                       rdma::item_size(d_plan.format),
                                       d_plan.latency_budget_s,
                                       d_plan.payload_bytes,
                                       page);
    // A slot is free again only once a notification says it was fetched: the ring must
    // hold several notification intervals, or the host waits on every one.
    const size_t notify_bytes = size_t(d_plan.notify_interval) * d_plan.payload_bytes;
    options.min_bytes = std::max(options.min_bytes, min_notify_intervals * notify_bytes);
    d_ring = std::make_unique<ring_memory>(options, d_logger);
}

} // namespace rdma
} // namespace gr
