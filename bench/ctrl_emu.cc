/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bench_ctrl_emu: the controller in the emulator (docs/register-map.md, "Controller"):
// three RX streams over two links capped (EMU_LINK_RATE) at 2/3 of their load, stream
// 0 on link 0, streams 1 and 2 on both; one phase with CTRL_POLICY 0 and weights 1:1
// (the round-robin baseline), one with CTRL_POLICY 1 (water filling), in one process,
// one after the other. In each phase stream 0's host limits it to a quarter of its
// demand halfway (RX_RATE_LIMIT). bench/ctrl_emu.py runs it and reads its CSV.
//
//   bench_ctrl_emu --out DIR [--seconds 6] [--rate 1000000] [--bin-ms 5]
//
// Host side: a UDP socket per destination, read by one thread, every packet a whole
// message (payload = path MTU), counted per stream in bins of its arrival time:
// bins.csv (phase, bin, stream, bytes). events.csv: when each phase began and when
// the limit was written, on the same clock. counters.csv: the device's counters at
// the end of each phase (per stream emitted and dropped, per link the frames dropped
// in the phase, the controller's counters since reset).

#include "axioe/axioe_client.h"
#include "emu/emulator.h"
#include "regs/register_map.h"
#include "roce/roce_packet.h"
#include "util/udp_socket.h"
#include <poll.h>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gr::rdma;
using clock_type = std::chrono::steady_clock;

constexpr uint32_t payload = 1024; // one packet a message
constexpr unsigned streams = 3, sockets = 5;
// Which stream and link each socket (destination) is.
constexpr std::array<unsigned, sockets> stream_of = { 0, 1, 1, 2, 2 };
constexpr std::array<unsigned, sockets> link_of = { 0, 0, 1, 0, 1 };

struct options {
    std::string out;
    double seconds = 6;
    uint32_t rate = 1000000;
    double bin_ms = 5;
};

bool parse(int argc, char** argv, options& o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--out")
            o.out = value;
        else if (key == "--seconds")
            o.seconds = std::stod(value);
        else if (key == "--rate")
            o.rate = uint32_t(std::stoul(value));
        else if (key == "--bin-ms")
            o.bin_ms = std::stod(value);
        else
            return false;
    }
    return !o.out.empty() && argc % 2 == 1;
}

//! Counts arriving messages per stream in bins of arrival time.
class receiver
{
public:
    receiver(double bin_ms, clock_type::time_point t0) : d_bin_ns(bin_ms * 1e6), d_t0(t0)
    {
        for (auto& s : d_sockets) {
            s = std::make_unique<udp_socket>(socket_address::parse("127.0.0.1:0"));
            s->request_receive_buffer(8u << 20);
        }
        d_thread = std::thread([this] { run(); });
    }
    ~receiver()
    {
        d_stop = true;
        d_thread.join();
    }
    socket_address address(unsigned i) const { return d_sockets[i]->local_address(); }
    //! Bins so far: [bin][stream] bytes of sample payload.
    std::vector<std::array<uint64_t, streams>> bins() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_bins;
    }

private:
    void run()
    {
        std::vector<uint8_t> memory(64 * 2048);
        std::vector<datagram> slots(64);
        std::array<pollfd, sockets> fds{};
        for (unsigned i = 0; i < sockets; i++)
            fds[i] = { d_sockets[i]->fd(), POLLIN, 0 };
        while (!d_stop) {
            ::poll(fds.data(), fds.size(), 10);
            const double at =
                std::chrono::duration<double, std::nano>(clock_type::now() - d_t0)
                    .count();
            const size_t bin = at > 0 ? size_t(at / d_bin_ns) : 0;
            for (unsigned i = 0; i < sockets; i++) {
                for (size_t k = 0; k < slots.size(); k++) {
                    slots[k].data = memory.data() + k * 2048;
                    slots[k].capacity = 2048;
                }
                const size_t got =
                    d_sockets[i]->receive_batch(slots.data(), slots.size());
                uint64_t bytes = 0;
                for (size_t k = 0; k < got; k++) {
                    roce::packet p;
                    if (roce::parse(slots[k].data, slots[k].length, p) ==
                        roce::parse_status::ok)
                        bytes += p.payload_len;
                }
                if (!bytes)
                    continue;
                std::lock_guard<std::mutex> lock(d_mutex);
                if (d_bins.size() <= bin)
                    d_bins.resize(bin + 1);
                d_bins[bin][stream_of[i]] += bytes;
            }
        }
    }

    const double d_bin_ns;
    const clock_type::time_point d_t0;
    std::array<std::unique_ptr<udp_socket>, sockets> d_sockets;
    mutable std::mutex d_mutex;
    std::vector<std::array<uint64_t, streams>> d_bins;
    std::atomic<bool> d_stop{ false };
    std::thread d_thread;
};

class device
{
public:
    explicit device(const options& o, const receiver& host)
        : d_dev(config()), axi(d_dev.control_address()), d_rate(o.rate)
    {
        const double wire = (payload + 44 + 20) / double(payload);
        const double demand = 4.0 * o.rate * wire;
        capacity = { uint64_t(0.8 * demand), uint64_t(1.2 * demand) };
        for (unsigned n = 0; n < 2; n++)
            axi.write64(regs::emu_link_reg(n, regs::emu_link::rate_lo), capacity[n]);
        std::array<unsigned, streams> next{};
        for (unsigned i = 0; i < sockets; i++) {
            const unsigned s = stream_of[i], d = next[s]++;
            const socket_address a = host.address(i);
            auto dst = [&](uint32_t r) { return regs::rx_dest_reg(s, d, r); };
            axi.write32(dst(regs::dst::ipv4), a.ip());
            axi.write32(dst(regs::dst::udp_port), a.port());
            axi.write32(dst(regs::dst::qpn), 0x100 + 0x10 * s + d);
            axi.write32(dst(regs::dst::rkey), 0xA0);
            axi.write64(dst(regs::dst::va_lo), 0x7f0000000000ull);
            axi.write64(dst(regs::dst::ring_bytes_lo), 256 * payload);
            axi.write32(dst(regs::dst::link), link_of[i]);
            axi.write32(dst(regs::dst::weight), 1);
        }
        for (unsigned s = 0; s < streams; s++) {
            auto rx = [&](uint32_t r) { return regs::rx_reg(s, r); };
            axi.write32(rx(regs::rx::link_mask), s == 0 ? 1 : 3);
            axi.write32(rx(regs::rx::payload_bytes), payload);
            axi.write32(rx(regs::rx::path_mtu), payload);
            axi.write32(rx(regs::rx::rate_num), o.rate);
        }
    }

    static emu::emulator_config config()
    {
        emu::emulator_config c;
        c.rx_streams = streams;
        c.more_links.push_back(socket_address::parse("127.0.0.1:0"));
        return c;
    }

    void begin(uint32_t policy)
    {
        axi.write32(regs::ctrl_base + regs::ctrl::policy, policy);
        axi.write32(regs::ctrl_rate_limit_reg(0), 0);
        for (unsigned s = 0; s < streams; s++) {
            // The baseline's weights are the host's 1:1 again.
            for (unsigned d = 0; s > 0 && d < 2; d++)
                axi.write32(regs::rx_dest_reg(s, d, regs::dst::weight), 1);
            axi.write32(regs::rx_reg(s, regs::rx::command), regs::command::start);
        }
    }
    void limit_stream_0()
    {
        axi.write32(regs::ctrl_rate_limit_reg(0), d_rate * 4 / 4 / 1024);
    }
    void end()
    {
        for (unsigned s = 0; s < streams; s++)
            axi.write32(regs::rx_reg(s, regs::rx::command), regs::command::stop);
    }

    emu::emulator d_dev;
    axioe::client axi;
    uint32_t d_rate;
    std::array<uint64_t, 2> capacity{};
};

double since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr,
                     "usage: bench_ctrl_emu --out DIR [--seconds 6] [--rate 1000000] "
                     "[--bin-ms 5]; see bench/ctrl_emu.py\n");
        return 2;
    }
    const clock_type::time_point t0 = clock_type::now();
    receiver host(o.bin_ms, t0);
    device dev(o, host);
    std::ofstream events(o.out + "/events.csv"), counters(o.out + "/counters.csv");
    events << "phase,policy,begin_s,limit_s,end_s,capacity0,capacity1,rate,payload\n";
    counters << "phase,counter,index,value\n";
    const char* names[] = { "round_robin", "water_filling" };
    for (uint32_t policy :
         { regs::ctrl_policy::none, regs::ctrl_policy::water_filling }) {
        std::array<uint64_t, 2> drops0{};
        for (unsigned n = 0; n < 2; n++)
            drops0[n] =
                dev.axi.read64(regs::emu_link_reg(n, regs::emu_link::frames_dropped_lo));
        const double begin = since(t0);
        dev.begin(policy);
        std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds / 2));
        const double limit = since(t0);
        dev.limit_stream_0();
        std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds / 2));
        const double end = since(t0);
        dev.end(); // the counters final: nothing leaves after STOP
        for (unsigned s = 0; s < streams; s++) {
            const auto rx = [&](uint32_t r) {
                return dev.axi.read64(regs::rx_reg(s, r));
            };
            counters << names[policy] << ",samples_emitted," << s << ","
                     << rx(regs::rx::samples_emitted_lo) << "\n"
                     << names[policy] << ",samples_dropped," << s << ","
                     << rx(regs::rx::samples_dropped_lo) << "\n";
        }
        for (unsigned n = 0; n < 2; n++)
            counters << names[policy] << ",link_frames_dropped," << n << ","
                     << dev.axi.read64(
                            regs::emu_link_reg(n, regs::emu_link::frames_dropped_lo)) -
                            drops0[n]
                     << "\n";
        for (uint32_t c :
             { regs::ctrl::events_lo, regs::ctrl::coalesced_lo, regs::ctrl::runs_lo })
            counters << names[policy] << ","
                     << (c == regs::ctrl::events_lo      ? "ctrl_events"
                         : c == regs::ctrl::coalesced_lo ? "ctrl_coalesced"
                                                         : "ctrl_runs")
                     << ",0," << dev.axi.read64(regs::ctrl_base + c) << "\n";
        events << names[policy] << "," << policy << "," << begin << "," << limit << ","
               << end << "," << dev.capacity[0] << "," << dev.capacity[1] << "," << o.rate
               << "," << payload << "\n";
        std::this_thread::sleep_for(std::chrono::milliseconds(200)); // links drain
    }
    std::ofstream bins(o.out + "/bins.csv");
    bins << "bin,t0_s,t1_s,stream,bytes\n";
    const auto b = host.bins();
    for (size_t i = 0; i < b.size(); i++)
        for (unsigned s = 0; s < streams; s++)
            bins << i << "," << i * o.bin_ms / 1e3 << "," << (i + 1) * o.bin_ms / 1e3
                 << "," << s << "," << b[i][s] << "\n";
    return 0;
}
