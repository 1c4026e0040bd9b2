/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../regs/register_map.h"
#include "../emu/device_clock.h"
#include "null_device.h"
#include <algorithm>
#include <chrono>

namespace gr {
namespace rdma {
namespace standin {

// The emulator's register file and engine, behind a device that writes no samples.
using namespace emu;

namespace {

namespace ec = regs::error_code;

constexpr unsigned link_mtu = 65536;
constexpr size_t max_batch_messages = 1024;
// Sleep at least this long (the kernel's timer slack is 50 us anyway), and at most
// this long, so that the marks of a stream without notifications (notify=0: the host
// judges by the clock) are written well within the host's grace period.
constexpr int64_t min_sleep_ns = 20000;
constexpr int64_t max_sleep_ns = 1000000;

bool in_stream0(uint32_t address)
{
    return address >= regs::rx_base && address < regs::rx_base + regs::rx_stride;
}

bool writes_start_time(uint32_t address, size_t count, bool fixed)
{
    if (!count)
        return false;
    const uint32_t first = regs::rx_reg(0, regs::rx::start_time_lo);
    const uint32_t last = regs::rx_reg(0, regs::rx::start_time_hi);
    const uint32_t end = fixed ? address : address + 4 * static_cast<uint32_t>(count - 1);
    return address <= last && end >= first;
}

uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

} // namespace

//! The link of the register file's (idle) RX engine: it never carries anything.
class null_device::idle_wire : public wire
{
public:
    socket_address local_address() const override
    {
        return socket_address::parse("127.0.0.1:4791");
    }
    unsigned mtu() const override { return link_mtu; }
    size_t send(outgoing_packet*, size_t count, const socket_address&) override
    {
        return count;
    }
    size_t receive(datagram*, size_t) override { return 0; }
    bool icrc_ok(const datagram&) const override { return false; }
};

//! AXIoE target: the register file, with RX stream 0's run registers answered here.
class null_device::target : public axioe::register_target
{
public:
    target(null_device& owner, register_file& registers)
        : d_owner(owner), d_registers(registers)
    {
    }

    axioe::status read(const socket_address& client,
                       uint32_t address,
                       uint32_t* out,
                       size_t count,
                       bool fixed) override
    {
        const axioe::status st = d_registers.read(client, address, out, count, fixed);
        if (st != axioe::status::okay)
            return st;
        // One snapshot for the burst, so that 64-bit counters are consistent.
        const uint64_t t0 = d_owner.d_start_time_ns.load();
        const uint64_t packets = d_owner.d_packets_sent.load();
        const uint64_t samples = d_owner.d_samples_emitted.load();
        const uint64_t imms = d_owner.d_imm_sent.load();
        const uint32_t status = d_owner.d_status.load();
        // As on any device (docs/register-map.md): the run's start time from START on,
        // also once the run is over, done or stopped, until the host writes the
        // register again. A host tells a restarted device by it.
        const bool started = d_owner.d_run_started.load();
        for (size_t i = 0; i < count; i++) {
            const uint32_t a = fixed ? address : address + 4 * static_cast<uint32_t>(i);
            if (!in_stream0(a))
                continue;
            switch (a - regs::rx_base) {
            case regs::rx::status:
                out[i] = status;
                break;
            case regs::rx::start_time_lo:
                out[i] = started ? lo(t0) : out[i];
                break;
            case regs::rx::start_time_hi:
                out[i] = started ? hi(t0) : out[i];
                break;
            case regs::rx::packets_sent_lo:
                out[i] = lo(packets);
                break;
            case regs::rx::packets_sent_hi:
                out[i] = hi(packets);
                break;
            case regs::rx::samples_emitted_lo:
                out[i] = lo(samples);
                break;
            case regs::rx::samples_emitted_hi:
                out[i] = hi(samples);
                break;
            case regs::rx::imm_sent_lo:
                out[i] = lo(imms);
                break;
            case regs::rx::imm_sent_hi:
                out[i] = hi(imms);
                break;
            default:
                break;
            }
        }
        return axioe::status::okay;
    }

    axioe::status write(const socket_address& client,
                        uint32_t address,
                        const uint32_t* words,
                        size_t count,
                        bool fixed) override
    {
        bool touches_stream0 = false;
        for (size_t i = 0; i < count; i++)
            touches_stream0 |=
                in_stream0(fixed ? address : address + 4 * static_cast<uint32_t>(i));
        if (!touches_stream0)
            return d_registers.write(client, address, words, count, fixed);
        if (address == regs::rx_reg(0, regs::rx::command)) {
            if (count != 1)
                return axioe::status::slverr;
            if (words[0] == regs::command::start) {
                const uint32_t error = d_owner.start(d_registers.rx_descriptor_of(0));
                return error == ec::none ? axioe::status::okay : axioe::status::slverr;
            }
            if (words[0] == regs::command::stop) {
                d_owner.stop();
                return axioe::status::okay;
            }
            return axioe::status::slverr;
        }
        // The descriptor is latched while streaming, as on any device.
        if (d_owner.d_status.load() & regs::status::running)
            return axioe::status::slverr;
        const axioe::status st = d_registers.write(client, address, words, count, fixed);
        if (st == axioe::status::okay && writes_start_time(address, count, fixed))
            d_owner.d_run_started = false; // it reads as written from now on
        return st;
    }

    std::chrono::microseconds tick() override { return d_registers.tick(); }

private:
    null_device& d_owner;
    register_file& d_registers;
};

null_device::null_device(const socket_address& control)
    : d_link(std::make_unique<idle_wire>())
{
    d_engine = std::make_unique<rx_engine>(0, *d_link);
    link_info link;
    link.ipv4 = d_link->local_address().ip();
    link.udp_port = d_link->local_address().port();
    link.mtu = link_mtu;
    device_identity identity;
    identity.serial = 0x4E554C4C; // "NULL"
    identity.capabilities = regs::cap::rx_uc | regs::cap::immediate | regs::cap::clock;
    d_registers =
        std::make_unique<register_file>(identity,
                                        std::vector<link_info>{ link },
                                        std::vector<rx_engine*>{ d_engine.get() });
    d_target = std::make_unique<target>(*this, *d_registers);
    d_thread.launch("null-dev", [this](stream_thread::lock_type& lock) {
        stream(lock);
        d_port.reset();
    });
    d_server = std::make_unique<axioe::server>(control, *d_target);
}

null_device::~null_device()
{
    d_server.reset(); // no more START or STOP
    d_thread.shutdown();
}

uint32_t null_device::start(const rx_descriptor& d)
{
    stream_thread::lock_type lock = d_thread.lock();
    if (d_thread.running()) {
        d_status = (d_status.load() & (regs::status::running | regs::status::done)) |
                   regs::status::error | (ec::busy << regs::status::error_shift);
        return ec::busy;
    }
    uint32_t error = validate(d, link_mtu);
    if (error == ec::none && d.transport != regs::transport_type::uc)
        error = ec::bad_transport;
    std::shared_ptr<null_port> port;
    if (error == ec::none && !(port = null_nic::find(d.destination)))
        error = ec::bad_destination; // only a null NIC of this process is reachable
    if (error != ec::none) {
        d_status = regs::status::error | (error << regs::status::error_shift);
        return error;
    }
    d_thread.wait_idle(lock);
    d_desc = d;
    d_port = std::move(port);
    const uint64_t now = realtime_ns(); // the stand-in keeps the wall clock
    const uint64_t t0 = d.start_time_ns ? d.start_time_ns : now;
    d_mono_t0_ns = monotonic_ns() + static_cast<int64_t>(t0 - now);
    d_start_time_ns = t0;
    d_packets_sent = 0;
    d_samples_emitted = 0;
    d_imm_sent = 0;
    d_status = regs::status::running;
    d_run_started = true;
    d_thread.begin(lock);
    return ec::none;
}

void null_device::stop()
{
    d_thread.stop();
    d_status = d_status.load() & ~regs::status::running;
}

uint64_t null_device::samples_in(uint64_t message) const
{
    const uint64_t spm = d_desc.payload_bytes / item_size(d_desc.signal.format);
    if (!d_desc.num_samples)
        return spm;
    const uint64_t first = message * spm;
    return first >= d_desc.num_samples ? 0 : std::min(spm, d_desc.num_samples - first);
}

bool null_device::has_immediate(uint64_t message) const
{
    const uint64_t spm = d_desc.payload_bytes / item_size(d_desc.signal.format);
    const bool last_of_burst =
        d_desc.num_samples && message * spm + samples_in(message) == d_desc.num_samples;
    return last_of_burst ||
           (d_desc.notify_interval && (message + 1) % d_desc.notify_interval == 0);
}

void null_device::stream(stream_thread::lock_type& lock)
{
    const rx_descriptor& d = d_desc;
    const size_t item = item_size(d.signal.format);
    const uint64_t spm = d.payload_bytes / item;
    const uint64_t burst = d.num_samples ? d.num_samples : UINT64_MAX;
    const uint64_t total = d.num_samples ? (d.num_samples + spm - 1) / spm : UINT64_MAX;
    const uint32_t notify = d.notify_interval;
    std::vector<null_message> batch(max_batch_messages);
    uint64_t next = 0;

    while (d_thread.running()) {
        if (next == total) {
            d_status = regs::status::done;
            return;
        }
        const int64_t elapsed = monotonic_ns() - d_mono_t0_ns;
        const uint64_t produced = std::min(samples_at(d, elapsed), burst);
        const uint64_t ready = produced == d.num_samples ? total : produced / spm;
        if (next >= ready) {
            // Nothing the host could see before the next notification is due: sleep
            // until then (its marks are written with it).
            uint64_t upto = notify ? (next / notify + 1) * notify : total;
            upto = std::min(upto, total);
            const int64_t due = time_of(d, std::min(upto * spm, burst));
            const int64_t sleep_ns =
                std::clamp(due - elapsed, min_sleep_ns, max_sleep_ns);
            d_thread.sleep(lock, std::chrono::nanoseconds(sleep_ns));
            continue;
        }
        lock.unlock();
        size_t n = 0;
        uint64_t packets = 0, samples = 0, imms = 0;
        for (; next < ready && n < batch.size(); next++, n++) {
            const uint64_t count = samples_in(next);
            null_message& m = batch[n];
            m.va = d.va + (next * d.payload_bytes) % d.ring_bytes;
            m.bytes = static_cast<uint32_t>(count * item);
            m.packet_bytes = d.path_mtu;
            m.mark_bytes = static_cast<uint32_t>(std::min<uint64_t>(2, count) * item);
            m.immediate = has_immediate(next);
            m.imm = static_cast<uint32_t>(next);
            packets += (m.bytes + d.path_mtu - 1) / d.path_mtu;
            samples += count;
            imms += m.immediate ? 1 : 0;
        }
        d_port->execute(d.dest_qpn, d.rkey, batch.data(), n);
        d_packets_sent += packets;
        d_samples_emitted += samples;
        d_imm_sent += imms;
        lock.lock();
    }
}

} // namespace standin
} // namespace rdma
} // namespace gr
