/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_QA_RADIO_HELPERS_H
#define INCLUDED_RDMA_EMU_QA_RADIO_HELPERS_H

// Helpers of the radio suites (qa_radio, qa_radio_clock, qa_radio_commands): a fake
// oscillator for the clock's own tests, RX streams programmed to send plain UDP sample
// datagrams (RX_TRANSPORT 2: an 8-byte sequence number, then the samples) and their
// samples received in order, sample times at rational rates, and timed commands.

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

namespace qa_radio_helpers {

using namespace gr::rdma;
using namespace std::chrono_literals;

using u128 = unsigned __int128;
using cf = std::complex<double>;
inline constexpr double two_pi = 6.283185307179586476925286766559;

template <typename F>
inline axioe::status status_of(F&& f)
{
    try {
        f();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

// ---- A fake oscillator for the clock's own tests -------------------------------------
inline int64_t fake_now = 0;
inline int64_t fake_oscillator() { return fake_now; }

// ---- Samples as the host would see them -----------------------------------------------

//! RX stream s of \p axi as UDP sample datagrams (fc32) to \p sink.
inline void program_udp(axioe::client& axi,
                        unsigned s,
                        const socket_address& sink,
                        uint32_t rate_num,
                        uint32_t rate_den,
                        uint64_t samples,
                        uint64_t start_time)
{
    auto reg = [s](uint32_t r) { return regs::rx_reg(s, r); };
    axi.write32(reg(regs::rx::dest_ipv4), sink.ip());
    axi.write32(reg(regs::rx::dest_udp_port), sink.port());
    axi.write32(reg(regs::rx::dest_qpn), 0x123);
    axi.write64(reg(regs::rx::ring_bytes_lo), 1 << 20);
    axi.write32(reg(regs::rx::payload_bytes), 1024); // 128 fc32 samples
    axi.write32(reg(regs::rx::transport), regs::transport_type::udp);
    const uint32_t rate[2] = { rate_num, rate_den };
    axi.write(reg(regs::rx::rate_num), rate, 2);
    axi.write32(reg(regs::rx::format), regs::format::fc32);
    axi.write64(reg(regs::rx::num_samples_lo), samples);
    axi.write64(reg(regs::rx::start_time_lo), start_time);
    axi.write32(regs::emu_reg(s, regs::emu::signal), regs::signal_scene);
}

//! Every sample of a run that sent \p expect samples (fewer if it ends first), in order.
inline std::vector<cf>
receive(udp_socket& host, uint64_t expect, std::chrono::milliseconds patience)
{
    std::map<uint64_t, std::vector<float>> messages;
    uint64_t got = 0;
    std::vector<uint8_t> buf(9000);
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (got < expect && std::chrono::steady_clock::now() < deadline) {
        datagram d;
        d.data = buf.data();
        d.capacity = buf.size();
        if (!host.receive(d, 20ms))
            continue;
        uint64_t seq = 0;
        for (int i = 0; i < 8; i++)
            seq = seq << 8 | buf[i];
        std::vector<float> iq((d.length - 8) / 4);
        std::memcpy(iq.data(), buf.data() + 8, iq.size() * 4);
        got += iq.size() / 2;
        messages[seq] = std::move(iq);
    }
    std::vector<cf> x;
    for (const auto& [seq, iq] : messages) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE("a message is missing", x.size(), size_t(seq * 128));
        for (size_t i = 0; i < iq.size(); i += 2)
            x.emplace_back(iq[i], iq[i + 1]);
    }
    return x;
}

// Cycles per sample from sample k to k + 1, in (-0.5, 0.5].
inline double step_cycles(const std::vector<cf>& x, size_t k)
{
    return std::arg(x[k + 1] * std::conj(x[k])) / two_pi;
}

// Distance on the circle of cycles.
inline double cycle_distance(double a, double b)
{
    const double d = std::fmod(std::fabs(a - b), 1.0);
    return std::min(d, 1 - d);
}

// The smallest k with t0 + k den / num >= t (ns), exactly.
inline uint64_t first_sample_at(uint64_t t0, uint32_t num, uint32_t den, uint64_t t)
{
    if (t <= t0)
        return 0;
    const u128 d = u128(den) * 1000000000u;
    return static_cast<uint64_t>((u128(t - t0) * num + d - 1) / d);
}

inline uint64_t sample_time(uint64_t t0, uint32_t num, uint32_t den, uint64_t k)
{
    return t0 + static_cast<uint64_t>(u128(k) * den * 1000000000u / num);
}

inline emu::emulator_config streams(unsigned n)
{
    emu::emulator_config c;
    c.rx_streams = n;
    return c;
}

inline void push(axioe::client& axi, uint64_t time, uint32_t address, uint64_t data)
{
    // One burst of six words, as the spec asks: CMD_TIME .. CMD_PUSH.
    const uint32_t w[6] = {
        regs::low_word(time), regs::high_word(time), address,
        regs::low_word(data), regs::high_word(data), regs::cmd::op::push
    };
    axi.write(regs::cmd::time_lo, w, 6);
}

inline uint32_t cmd_error(axioe::client& axi)
{
    return regs::cmd::last_error(axi.read32(regs::cmd::status));
}

// Until RX stream s is no longer running (a burst's last message sent), at most 1 s.
inline void wait_done(axioe::client& axi, unsigned s)
{
    for (int i = 0; i < 200; i++) {
        if (!(axi.read32(regs::rx_reg(s, regs::rx::status)) & regs::status::running))
            return;
        std::this_thread::sleep_for(5ms);
    }
}

inline const uint32_t rf0_freq = regs::rf_reg(0, regs::rf::freq_lo);
inline const uint32_t rf0_gain = regs::rf_reg(0, regs::rf::gain);

} // namespace qa_radio_helpers

#endif
