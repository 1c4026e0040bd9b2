/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Construction of an rx_stream: device args checked and settled against the device,
// the NIC and the ring. The running stream is in rx_stream_impl.cc.

#include "../ring/ring_sizing.h"
#include "../util/net_interface.h"
#include "nic_factory.h"
#include "rx_stream_impl.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

const std::set<std::string> known_keys = {
    "addr",
    "amplitude",
    "bad_rkey",
    "bad_va",
    "corrupt",
    "corrupt_icrc",
    "corrupt_payload",
    "delay",
    "delay_messages",
    "drop",
    "duplicate",
    "fault_seed",
    "freq",
    "grace",
    "loss",
    "loss_burst",
    "hugepages",
    "latency",
    "link_addr",
    "mtu",
    "nic",
    "nic_addr",
    "nic_if",
    "nic_port",
    "notify",
    "numa",
    "payload",
    "retries",
    "seed",
    "signal",
    "stream",
    "timeout",
    "type",
    "wire",
    "latency_probe",
    "transport",
    "retx_window",
    "metadata",
    "metadata_interval",
    "work_interval",
    "lease",
    "take_over",
};

constexpr size_t min_notify_intervals = 4;
constexpr size_t frame_overhead =
    20 + 8 + 12 + 16 + 4 + 4; // IPv4 UDP BTH RETH ImmDt ICRC

unsigned largest_path_mtu(unsigned limit)
{
    unsigned mtu = 0;
    for (unsigned m = 256; m <= 4096 && m <= limit; m *= 2)
        mtu = m;
    return mtu;
}

} // namespace

rx_stream::impl::impl(const std::string& args_text,
                      const std::string& format,
                      double rate,
                      uint64_t num_samples)
    : d_logger(make_logger("rdma rx_stream"))
{
    const device_args args = device_args::parse(args_text);
    args.check_known(known_keys);
    d_plan.format = parse_sample_format(format);
    if (!(rate > 0) || rate > 4.0e9)
        throw std::invalid_argument("rx_stream: sample rate " + std::to_string(rate) +
                                    " S/s is out of range (0, 4e9]");
    d_plan.sample_rate = rate;
    d_plan.num_samples = num_samples;
    d_plan.stream_index = static_cast<unsigned>(args.get_uint("stream", 0));
    d_plan.notify_interval = static_cast<uint32_t>(args.get_uint("notify", 16));
    if (d_plan.notify_interval > 65536)
        throw std::invalid_argument(
            "device args: notify=" + std::to_string(d_plan.notify_interval) +
            " is invalid: expected 0 (clock only) .. 65536 messages per "
            "notification");
    d_plan.latency_budget_s = args.get_double("latency", 0.1);
    if (!(d_plan.latency_budget_s > 0))
        throw std::invalid_argument("device args: latency= must be positive (seconds)");
    if (args.get_uint("latency_probe", 0)) // benchmarks only (docs/performance.md)
        d_probe = std::make_unique<latency_probe>();
    open_device(args);
    settle_grace(args);
    d_nic =
        open_nic(args,
                 args.get("type", "emu") == "emu" ? d_link.roce.ip()
                                                  : route_source_ip(d_link.roce.ip()));
    settle_transport(args);
    settle_work_interval(args);
    allocate_ring(args);

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
    // Timestamps and device events come by UDP from the link to the NIC's address.
    d_metadata_settings = parse_metadata_args(args, d_info);
    if (d_metadata_settings.enabled)
        d_metadata = std::make_unique<metadata_monitor>(
            d_nic->roce_address(), d_link.roce.ip(), d_plan.stream_index);
    d_logger->info(
        "RX stream {} {} at {} S/s: ring {} bytes ({} items, {}), payload {} B, "
        "path MTU {}, NIC {} at {}, device {}",
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

rx_stream::impl::~impl()
{
    try {
        stop();
    } catch (const std::exception& e) {
        d_logger->warn("stopping the device failed while closing the stream: {}",
                       e.what());
    }
}

void rx_stream::impl::open_device(const device_args& args)
{
    const std::string type = args.get_choice(
        "type", { "emu", "remote", "null" }, args.has("addr") ? "remote" : "emu");
    if (args.has("wire") && type != "emu")
        throw std::invalid_argument("device args: wire= chooses the link of the built-in "
                                    "emulator (type=emu)");
    axioe::client_options options;
    options.timeout = std::chrono::microseconds(
        static_cast<int64_t>(args.get_double("timeout", 0.05) * 1e6));
    options.retries = static_cast<int>(args.get_uint("retries", 10));
    socket_address control;
    if (type == "emu") {
        if (args.has("addr"))
            throw std::invalid_argument(
                "device args: addr= names a remote device; drop it for "
                "type=emu or use type=remote");
        emu::emulator_config config;
        config.link = socket_address::parse(args.get("link_addr", "127.0.0.1"));
        config.wire =
            emu::parse_wire_type(args.get_choice("wire", { "udp", "inproc" }, "udp"));
        config.rx_streams = d_plan.stream_index + 1;
        d_emulator = std::make_unique<emu::emulator>(config);
        control = d_emulator->control_address();
    } else if (type == "null") {
        if (args.has("addr"))
            throw std::invalid_argument(
                "device args: type=null is a stand-in in this process; "
                "drop addr=");
        d_null_device = std::make_unique<emu::null_device>();
        control = d_null_device->control_address();
    } else {
        if (!args.has("addr"))
            throw std::invalid_argument(
                "device args: type=remote needs addr=<ip>[:port] of the "
                "device's AXIoE port");
        control = socket_address::parse(args.get("addr", ""), axioe::default_port);
    }
    d_device = std::make_unique<device_controller>(control, options);
    d_info = d_device->identify();
    settle_ownership(args, type);
    if (d_plan.stream_index >= d_info.num_rx_streams)
        throw std::invalid_argument(
            "device args: stream=" + std::to_string(d_plan.stream_index) +
            " but the device has " + std::to_string(d_info.num_rx_streams) +
            " RX stream(s)");
    if (!(d_info.formats & (1u << static_cast<uint32_t>(d_plan.format))))
        throw std::invalid_argument(std::string("the device does not stream ") +
                                    to_string(d_plan.format));
    d_link = d_device->read_link(0);

    const std::string signal =
        args.get_choice("signal", { "ramp", "tone", "noise" }, "ramp");
    d_signal.kind = signal == "ramp"   ? regs::signal::ramp
                    : signal == "tone" ? regs::signal::tone
                                       : regs::signal::noise;
    d_signal.tone_freq_hz = static_cast<int32_t>(args.get_double("freq", 100e3));
    d_signal.amplitude = static_cast<float>(args.get_double("amplitude", 0.5));
    d_signal.seed = static_cast<uint32_t>(args.get_uint("seed", 1));
    parse_impairments(args);
    const bool wants_signal = args.has("signal") || args.has("freq") ||
                              args.has("amplitude") || args.has("seed") ||
                              d_impairments.any();
    if (wants_signal && !d_info.has(regs::cap::emulator))
        throw std::invalid_argument(
            "device args: signal=/freq=/amplitude=/seed= configure the "
            "emulator; the device at " +
            control.to_string() + " is not one");
}

void rx_stream::impl::settle_ownership(const device_args& args, const std::string& type)
{
    const double lease = args.get_double("lease", regs::lease::default_ms / 1000.0);
    if (!(lease >= regs::lease::min_ms / 1000.0 && lease <= regs::lease::max_ms / 1000.0))
        throw std::invalid_argument(
            "device args: lease=" + args.get("lease", "") +
            " is invalid: expected 0.1 .. 600 seconds of silence after which the device "
            "stops the stream and lets another host take it");
    d_plan.lease_ms = static_cast<uint32_t>(std::lround(lease * 1000));
    d_plan.take_over = args.get_choice("take_over", { "0", "1" }, "0") == "1";
    d_plan.ownership = d_info.has(regs::cap::ownership);
    // type=null is the benchmarks' in-process stand-in: it has no owners, by design.
    if (!d_plan.ownership && type != "null")
        d_logger->warn("the device at {} does not support stream ownership: any host on "
                       "its network can reconfigure this stream",
                       d_device->address().to_string());
}

void rx_stream::impl::settle_grace(const device_args& args)
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
    d_plan.grace_s = args.get_double(
        "grace", std::max(minimum, std::min(0.02, d_plan.latency_budget_s / 5)));
    if (d_plan.grace_s < minimum || d_plan.grace_s >= d_plan.latency_budget_s / 2)
        throw std::invalid_argument(
            "device args: grace=" + std::to_string(d_plan.grace_s) +
            " s must cover the device's FIFO (" + std::to_string(fifo_s) +
            " s) plus 5 ms and stay below half the latency budget (latency=" +
            std::to_string(d_plan.latency_budget_s) + " s): raise latency= to at least " +
            std::to_string(2 * minimum + 0.001));
}

void rx_stream::impl::parse_impairments(const device_args& args)
{
    auto ppm = [&args](const char* key) {
        const double p = args.get_double(key, 0);
        if (p < 0 || p > 1)
            throw std::invalid_argument(std::string("device args: ") + key +
                                        "= is a probability: expected 0 .. 1");
        return static_cast<uint32_t>(std::lround(p * 1e6));
    };
    emulated_impairments& im = d_impairments;
    im.seed = static_cast<uint32_t>(args.get_uint("fault_seed", 1));
    im.loss_ppm = ppm("loss");
    im.loss_burst = static_cast<uint32_t>(args.get_uint("loss_burst", 1));
    im.duplicate_ppm = ppm("duplicate");
    im.corrupt_ppm = ppm("corrupt");
    im.delay_ppm = ppm("delay");
    im.delay_messages = static_cast<uint32_t>(args.get_uint("delay_messages", 4));
    if (im.loss_burst == 0 || im.loss_burst > 4096 || im.delay_messages >= 32)
        throw std::invalid_argument("device args: loss_burst= must be 1..4096 and "
                                    "delay_messages= 0..31");
    // drop=3:17:200 drops exactly those WRITE messages; corrupt_icrc=, corrupt_payload=,
    // bad_rkey=, bad_va= inject those faults into exactly the messages listed (the
    // emulator's fault table: at most max_faults entries in all).
    const std::pair<const char*, uint32_t> targeted[] = {
        { "drop", regs::fault::drop },
        { "corrupt_icrc", regs::fault::corrupt_icrc },
        { "corrupt_payload", regs::fault::corrupt_payload },
        { "bad_rkey", regs::fault::bad_rkey },
        { "bad_va", regs::fault::bad_va },
    };
    for (const auto& [key, kind] : targeted) {
        const std::string list = args.get(key, "");
        for (size_t at = 0; at < list.size();) {
            const size_t colon = std::min(list.find(':', at), list.size());
            const device_args one =
                device_args::parse(std::string(key) + "=" + list.substr(at, colon - at));
            im.faults.emplace_back(one.get_uint(key, 0), kind);
            at = colon + 1;
        }
    }
    if (im.faults.size() > regs::emu::max_faults)
        throw std::invalid_argument(
            "device args: drop=, corrupt_icrc=, corrupt_payload=, "
            "bad_rkey= and bad_va= list at most " +
            std::to_string(regs::emu::max_faults) + " messages in all");
}

void rx_stream::impl::settle_transport(const device_args& args)
{
    const size_t item = rdma::item_size(d_plan.format);
    const unsigned link_limit =
        d_link.mtu > frame_overhead ? d_link.mtu - frame_overhead : 0;
    unsigned mtu =
        largest_path_mtu(std::min<unsigned>(d_nic->max_path_mtu(), link_limit));
    if (args.has("mtu")) {
        const uint64_t wanted = args.get_uint("mtu", 0);
        if (!nic::valid_path_mtu(static_cast<unsigned>(wanted)))
            throw std::invalid_argument(
                "device args: mtu=" + std::to_string(wanted) +
                " is invalid: expected 256, 512, 1024, 2048 or 4096");
        if (wanted > mtu)
            throw std::invalid_argument("device args: mtu=" + std::to_string(wanted) +
                                        " exceeds what the link carries (" +
                                        std::to_string(mtu) + "; link MTU " +
                                        std::to_string(d_link.mtu) + ")");
        mtu = static_cast<unsigned>(wanted);
    }
    if (mtu == 0)
        throw std::runtime_error("the device link MTU (" + std::to_string(d_link.mtu) +
                                 ") is too small for RoCEv2");
    d_plan.path_mtu = mtu;
    const uint64_t payload = args.get_uint("payload", mtu);
    if (payload == 0 || payload % item || payload > 65536 || (payload & (payload - 1)))
        throw std::invalid_argument(
            "device args: payload=" + std::to_string(payload) +
            " is invalid: expected a power of two, a multiple of the " +
            std::to_string(item) + "-byte item, at most 65536");
    d_plan.payload_bytes = static_cast<uint32_t>(payload);

    // RC: the device resends what the NIC NAKs, from a window of retx_window bytes.
    d_plan.rc = args.get_choice("transport", { "uc", "rc" }, "uc") == "rc";
    if (d_plan.rc && !d_info.has(regs::cap::rx_rc))
        throw std::invalid_argument("device args: transport=rc, but the device at " +
                                    d_device->address().to_string() +
                                    " does not stream on RC (use transport=uc)");
    if (args.has("retx_window") && !d_plan.rc)
        throw std::invalid_argument("device args: retx_window= sizes the RC retransmit "
                                    "window; add transport=rc");
    const uint64_t window = args.get_uint("retx_window", 4u << 20);
    if (window > UINT32_MAX)
        throw std::invalid_argument("device args: retx_window=" + std::to_string(window) +
                                    " is invalid: expected bytes, at most 4294967295");
    d_plan.retx_window_bytes = static_cast<uint32_t>(window);
}

void rx_stream::impl::settle_work_interval(const device_args& args)
{
    const double interval = args.get_double("work_interval", 0);
    const double longest = d_plan.latency_budget_s / 4;
    if (!(interval >= 0) || interval > longest)
        throw std::invalid_argument(
            "device args: work_interval=" + std::to_string(interval) +
            " s is invalid: expected 0 .. a quarter of the latency budget (latency=" +
            std::to_string(d_plan.latency_budget_s) + " s allows " +
            std::to_string(longest) + " s); raise latency= or lower work_interval=");
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

void rx_stream::impl::allocate_ring(const device_args& args)
{
    const std::string huge =
        args.get_choice("hugepages", { "auto", "on", "off" }, "auto");
    ring_options options;
    options.hugepages = huge == "on"    ? hugepage_mode::required
                        : huge == "off" ? hugepage_mode::off
                                        : hugepage_mode::automatic;
    const size_t page = options.hugepages == hugepage_mode::off ? system_page_size()
                                                                : ring_hugepage_bytes;
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
    const std::string numa = args.get("numa", "auto");
    if (numa == "auto")
        options.numa_node = d_nic->numa_node();
    else if (numa != "off")
        options.numa_node = static_cast<int>(args.get_uint("numa", 0));
    d_ring = std::make_unique<ring_memory>(options, d_logger);
}

} // namespace rdma
} // namespace gr
