/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../ring/ring_sizing.h"
#include "../util/net_interface.h"
#include "nic_factory.h"
#include "rational_rate.h"
#include "rx_stream_impl.h"
#include <algorithm>
#include <cmath>
#include <random>
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
};

constexpr int max_receives = 512;
constexpr size_t min_notify_intervals = 4;
constexpr int cq_entries =
    1024; // > max_receives: a completion can never find the CQ full
constexpr size_t frame_overhead =
    20 + 8 + 12 + 16 + 4 + 4; // IPv4 UDP BTH RETH ImmDt ICRC

unsigned largest_path_mtu(unsigned limit)
{
    unsigned mtu = 0;
    for (unsigned m = 256; m <= 4096 && m <= limit; m *= 2)
        mtu = m;
    return mtu;
}

uint32_t random_psn()
{
    std::random_device rd;
    return rd() & 0xFFFFFF;
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
    allocate_ring(args);

    d_plan.packet_items =
        std::min(d_plan.payload_bytes, d_plan.path_mtu) / rdma::item_size(d_plan.format);
    d_tracker = std::make_unique<loss_tracker>(
        ring_geometry{
            d_ring->base(), ring_items(), d_plan.packet_items, d_plan.num_samples },
        d_plan.format);
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

void rx_stream::impl::start()
{
    if (d_running)
        return;
    d_qp = d_pd->create_qp(
        d_plan.rc ? nic::qp_type::rc : nic::qp_type::uc, *d_cq, max_receives);
    d_qp->to_init(nic::access_remote_write);
    d_qp->post_receives(d_next_wr_id, max_receives);
    d_next_wr_id += max_receives;
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
    d_device->stop_rx(d_plan.stream_index);
    // A new run gets a new QP: packets of this run still in flight then find no QP.
    d_qp->to_reset();
    drain_completions();
    d_qp.reset();
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
    }
    if (d_qp && d_qp->posted_receives() < max_receives / 2) {
        const int more = max_receives - d_qp->posted_receives();
        d_qp->post_receives(d_next_wr_id, more);
        d_next_wr_id += more;
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
            d_tracker->settle(
                written); // the device wrote its last sample: nothing changes now
            return 0;
        }
        if (ready || !d_running)
            return static_cast<size_t>(ready);
        const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return 0;
        // Sleep until a completion, or until the clock makes the next packet final.
        const uint64_t next_final =
            (d_tracker->device_item(next) / d_plan.packet_items + 1) *
            d_plan.packet_items;
        const int64_t until = d_clock.host_time_final(next_final) - host_time_ns();
        // Already final by the clock: what we wait for is the consumer releasing
        // samples, which nothing signals; look again in a millisecond.
        const auto clock_wait = std::chrono::microseconds(
            until > 0 ? std::max<int64_t>(until / 1000, 50) : 1000);
        d_cq->wait(std::min(left, clock_wait));
    }
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
    // Items handed out before and not released are handed out again: commit only the new.
    size_t items = wait_items(d_read_position, d_read_position, timeout);
    items = std::min({ items, max_items, ring_items() });
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

std::map<std::string, uint64_t> rx_stream::impl::read_counters()
{
    std::map<std::string, uint64_t> out;
    const rx_device_counters dev = d_device->read_rx_counters(d_plan.stream_index);
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
