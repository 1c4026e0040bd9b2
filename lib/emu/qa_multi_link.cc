/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One RX stream over two links (docs/register-map.md, "Several links"), seen from two
// host endpoints: each destination a UDP socket that executes its QP's WRITEs as a UC
// responder would (in PSN order, the VA from the message's first packet) into one
// ring. Placement is by address only, so the ring is checked against the ramp where
// each message landed, whatever order the links delivered in. The expected schedule
// is written out by hand from the SWRR rule, not taken from regs::link_schedule
// (which the emulator itself uses).

#include "../axioe/axioe_client.h"
#include "../regs/register_map.h"
#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include "emulator.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr uint32_t payload = 2048; // two packets of the 1024-byte path MTU
constexpr uint32_t mtu = 1024;
constexpr uint32_t spm = payload / 4; // sc16 samples per message
constexpr uint64_t ring_messages = 512;
constexpr uint64_t va0 = 0x7f0000000000ull;
constexpr uint32_t rate = 4000000;
constexpr uint32_t notify = 4;

// A message as it landed in the ring, in arrival order.
struct landed {
    uint64_t message = 0; // the stream message whose slot and wrap it filled
    unsigned destination = 0;
};

/*!
 * The host: one ring, two destinations (a socket and a QP each). Every packet is
 * checked and executed as a UC responder does: in PSN order per QP, a message
 * abandoned at a PSN gap, the VA from its FIRST packet. The ring is checked where a
 * message completes, against the ramp of the message that owns that address in the
 * current wrap (the wrap is the one nearest the newest message landed so far: the
 * links reorder by far less than half a ring).
 */
class two_link_host
{
public:
    static constexpr unsigned destinations = 2;
    const std::array<uint32_t, destinations> qpn = { 0x111, 0x222 };
    const std::array<uint32_t, destinations> rkey = { 0xA0A0, 0xB1B1 };
    const std::array<uint32_t, destinations> start_psn = { 0xFFFFF8, 0x000100 };

    two_link_host()
        : sockets{ udp_socket(socket_address::parse("127.0.0.1:0")),
                   udp_socket(socket_address::parse("127.0.0.1:0")) },
          ring(ring_messages * payload, 0)
    {
        for (unsigned d = 0; d < destinations; d++) {
            sockets[d].request_receive_buffer(16u << 20);
            qp[d].expected_psn = start_psn[d];
        }
    }

    //! Receive until \p messages have landed or nothing came for \p idle; \p on_landed
    //! runs after each message (the test cuts and rejoins links from there).
    void receive(uint64_t messages,
                 std::chrono::milliseconds idle,
                 const std::function<void()>& on_landed = {})
    {
        std::vector<uint8_t> memory(64 * 2048);
        std::array<datagram, 64> slots;
        auto last = std::chrono::steady_clock::now();
        while (arrivals.size() < messages &&
               std::chrono::steady_clock::now() - last < idle) {
            sockets[0].wait_readable(10ms, sockets[1].fd());
            for (unsigned d = 0; d < destinations; d++) {
                for (size_t i = 0; i < slots.size(); i++) {
                    slots[i].data = memory.data() + i * 2048;
                    slots[i].capacity = 2048;
                }
                const size_t got = sockets[d].receive_batch(slots.data(), slots.size());
                for (size_t i = 0; i < got; i++) {
                    const size_t before = arrivals.size();
                    execute(d, slots[i]);
                    if (arrivals.size() != before && on_landed)
                        on_landed();
                }
                if (got)
                    last = std::chrono::steady_clock::now();
            }
        }
    }

    std::array<udp_socket, destinations> sockets;
    std::vector<uint8_t> ring;
    std::vector<landed> arrivals;
    std::array<std::vector<uint32_t>, destinations> immediates;
    std::array<uint64_t, destinations> packets{};
    std::array<uint64_t, destinations> psn_gaps{}; // packets skipped in PSN order
    std::array<socket_address, destinations> peers;
    uint64_t ramp_mismatches = 0;
    uint64_t bad_packets = 0;

private:
    struct qp_state {
        uint32_t expected_psn = 0;
        bool in_message = false;
        uint64_t va = 0;
        uint32_t offset = 0;
    };

    void execute(unsigned d, const datagram& dg)
    {
        roce::packet p;
        if (roce::parse(dg.data, dg.length, p) != roce::parse_status::ok ||
            p.base.dest_qp != qpn[d]) {
            bad_packets++;
            return;
        }
        roce::ip_context ip;
        ip.src_ip = dg.peer.ip();
        ip.src_port = dg.peer.port();
        ip.dst_ip = sockets[d].local_address().ip();
        ip.dst_port = sockets[d].local_address().port();
        if (p.icrc != roce::compute_icrc(ip, dg.data, dg.length - 4)) {
            bad_packets++;
            return;
        }
        packets[d]++;
        peers[d] = dg.peer;
        qp_state& q = qp[d];
        const roce::opcode_info info = roce::describe(p.base.opcode);
        if (p.base.psn != q.expected_psn) { // a gap: UC drops the message it cut
            psn_gaps[d] += (p.base.psn - q.expected_psn) & 0xFFFFFF;
            q.in_message = false;
        }
        q.expected_psn = (p.base.psn + 1) & 0xFFFFFF;
        if (info.starts_message) {
            if (p.reth_hdr.rkey != rkey[d] || p.reth_hdr.va < va0 ||
                p.reth_hdr.va + p.reth_hdr.dma_length > va0 + ring.size()) {
                bad_packets++;
                return;
            }
            q.in_message = true;
            q.va = p.reth_hdr.va;
            q.offset = 0;
        } else if (!q.in_message) {
            return;
        }
        std::memcpy(ring.data() + (q.va - va0) + q.offset, p.payload, p.payload_len);
        q.offset += static_cast<uint32_t>(p.payload_len);
        if (info.has_imm)
            immediates[d].push_back(p.imm);
        if (info.ends_message) {
            q.in_message = false;
            landed_at(d, q.va - va0, q.offset);
        }
    }

    void landed_at(unsigned d, uint64_t offset, uint32_t bytes)
    {
        const uint64_t slot = offset / payload;
        // The message of this slot nearest the newest one: in its wrap, or one off.
        const uint64_t here = newest - newest % ring_messages + slot;
        uint64_t message = here;
        if (here > newest && here - newest > ring_messages / 2 && here >= ring_messages)
            message = here - ring_messages;
        else if (here < newest && newest - here > ring_messages / 2)
            message = here + ring_messages;
        newest = std::max(newest, message);
        ramp_errors e;
        check_ramp(sample_format::sc16,
                   message * spm,
                   ring.data() + slot * payload,
                   bytes / 4,
                   e);
        ramp_mismatches += e.mismatches;
        arrivals.push_back({ message, d });
    }

    std::array<qp_state, destinations> qp;
    uint64_t newest = 0;
};

class bench
{
public:
    bench() : dev(config()), axi(dev.control_address()) {}

    static emu::emulator_config config()
    {
        emu::emulator_config c;
        c.more_links.push_back(socket_address::parse("127.0.0.1:0"));
        return c;
    }

    //! Destination d on link d, with weights \p w, a burst of \p messages.
    void program(std::array<uint32_t, 2> w, uint64_t messages)
    {
        auto rx = [](uint32_t r) { return regs::rx_reg(0, r); };
        auto dst = [](unsigned d, uint32_t r) { return regs::rx_dest_reg(0, d, r); };
        for (unsigned d = 0; d < 2; d++) {
            const socket_address a = host.sockets[d].local_address();
            // Destination 0 through its alias: one register at two addresses.
            axi.write32(dst(d, regs::dst::ipv4), a.ip());
            axi.write32(dst(d, regs::dst::udp_port), a.port());
            axi.write32(dst(d, regs::dst::qpn), host.qpn[d]);
            axi.write32(dst(d, regs::dst::start_psn), host.start_psn[d]);
            axi.write32(dst(d, regs::dst::rkey), host.rkey[d]);
            axi.write64(dst(d, regs::dst::va_lo), va0);
            axi.write64(dst(d, regs::dst::ring_bytes_lo), ring_messages * payload);
            axi.write32(dst(d, regs::dst::link), d);
            axi.write32(dst(d, regs::dst::weight), w[d]);
        }
        CPPUNIT_ASSERT_EQUAL(host.sockets[0].local_address().ip(),
                             axi.read32(rx(regs::rx::dest_ipv4)));
        axi.write32(rx(regs::rx::link_mask), 3);
        axi.write32(rx(regs::rx::payload_bytes), payload);
        axi.write32(rx(regs::rx::path_mtu), mtu);
        axi.write32(rx(regs::rx::notify_interval), notify);
        axi.write32(rx(regs::rx::rate_num), rate);
        axi.write32(rx(regs::rx::rate_den), 1);
        axi.write32(rx(regs::rx::format), regs::format::sc16);
        axi.write64(rx(regs::rx::num_samples_lo), messages * spm);
    }

    void start()
    {
        axi.write32(regs::rx_reg(0, regs::rx::command), regs::command::start);
    }

    void wait_done()
    {
        uint32_t status = 0;
        for (int i = 0; i < 400 && !(status & regs::status::done); i++) {
            status = axi.read32(regs::rx_reg(0, regs::rx::status));
            std::this_thread::sleep_for(5ms);
        }
        CPPUNIT_ASSERT_EQUAL(regs::status::done, status);
    }

    uint64_t rx64(uint32_t r) { return axi.read64(regs::rx_reg(0, r)); }
    uint64_t dst64(unsigned d, uint32_t r)
    {
        return axi.read64(regs::rx_dest_reg(0, d, r));
    }
    uint64_t link64(unsigned n, uint32_t r) { return axi.read64(regs::link_reg(n, r)); }
    uint64_t emu64(unsigned n, uint32_t r)
    {
        return axi.read64(regs::emu_link_reg(n, r));
    }
    void emu32(unsigned n, uint32_t r, uint32_t v)
    {
        axi.write32(regs::emu_link_reg(n, r), v);
    }

    two_link_host host; // before the emulator: its sockets exist when it sends
    emu::emulator dev;
    axioe::client axi;
};

// Arrivals whose message is older than one already landed: reordered across links.
uint64_t reordered(const std::vector<landed>& arrivals)
{
    uint64_t count = 0, newest = 0;
    for (const landed& a : arrivals) {
        count += a.message < newest ? 1 : 0;
        newest = std::max(newest, a.message);
    }
    return count;
}

} // namespace

class qa_multi_link : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multi_link);
    CPPUNIT_TEST(test_weights_1_1_reordered_bit_exact);
    CPPUNIT_TEST(test_weights_3_1_reordered_bit_exact);
    CPPUNIT_TEST(test_cut_moves_the_share_and_attributes_the_loss);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_weights_1_1_reordered_bit_exact() { weights_case({ 1, 1 }, { 0, 1 }); }

    // SWRR 3:1 is 0 0 1 0 (docs/register-map.md, "Several links").
    void test_weights_3_1_reordered_bit_exact()
    {
        weights_case({ 3, 1 }, { 0, 0, 1, 0 });
    }

    void test_cut_moves_the_share_and_attributes_the_loss()
    {
        // 1:1 over two links; link 1 is cut mid-stream with frames held on it (a 2 ms
        // delay), then comes back and the host asks it back.
        bench b;
        const uint64_t messages = 12 * ring_messages;
        b.program({ 1, 1 }, messages);
        b.emu32(1, regs::emu_link::delay_us, 2000);
        bool cut = false, rejoined = false;
        b.start();
        b.host.receive(messages, 300ms, [&] {
            const size_t n = b.host.arrivals.size();
            if (!cut && n >= messages / 3) {
                b.emu32(1, regs::emu_link::down, 1);
                cut = true;
            } else if (cut && !rejoined && n >= 2 * messages / 3) {
                b.emu32(1, regs::emu_link::down, 0);
                b.axi.write32(regs::link_reg(1, regs::link::control),
                              regs::link_control::up);
                rejoined = true;
            }
        });
        b.wait_done();
        b.host.receive(messages, 100ms); // what the delay still held
        CPPUNIT_ASSERT(cut && rejoined);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.host.bad_packets);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.host.ramp_mismatches);

        // Three epochs: START, the cut (link 1 out), the rejoin (link 1 back).
        CPPUNIT_ASSERT_EQUAL(3u, b.axi.read32(regs::epoch_reg(0, regs::epoch::count)));
        uint32_t e[3][regs::epoch::entry_words];
        for (unsigned k = 0; k < 3; k++)
            b.axi.read(regs::epoch_entry_reg(0, k, 0), e[k], regs::epoch::entry_words);
        auto first = [&](unsigned k) { return regs::join_words(e[k][0], e[k][1]); };
        for (unsigned k = 0; k < 3; k++) {
            CPPUNIT_ASSERT_EQUAL(k, e[k][2]);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), first(k) % notify); // at a window boundary
        }
        namespace cause = regs::epoch::cause_code;
        CPPUNIT_ASSERT_EQUAL(cause::link_down | 1u << 8, e[1][3]);
        CPPUNIT_ASSERT_EQUAL(1u, e[1][4]); // destination 0 weight 1, destination 1 out
        CPPUNIT_ASSERT_EQUAL(cause::link_up | 1u << 8, e[2][3]);
        CPPUNIT_ASSERT_EQUAL(1u | 1u << 16, e[2][4]);
        const uint64_t f1 = first(1), f2 = first(2);
        CPPUNIT_ASSERT(f1 > 0 && f1 < f2 && f2 < messages);

        // Where each message was scheduled: 0 1 0 1 .., all on 0, 0 1 0 1 .. again.
        auto scheduled = [&](uint64_t m) -> unsigned {
            return m < f1 ? m % 2 : m < f2 ? 0 : (m - f2) % 2;
        };
        std::vector<bool> seen(messages, false);
        for (const landed& a : b.host.arrivals) {
            CPPUNIT_ASSERT(a.message < messages && !seen[a.message]);
            CPPUNIT_ASSERT_EQUAL(scheduled(a.message), a.destination);
            seen[a.message] = true;
        }
        // The loss: a run of link 1's last messages before the epoch, nothing else.
        std::vector<uint64_t> lost;
        for (uint64_t m = 0; m < messages; m++)
            if (!seen[m])
                lost.push_back(m);
        CPPUNIT_ASSERT(!lost.empty()); // the frames the link held at least
        for (uint64_t m : lost)
            CPPUNIT_ASSERT(m < f1 && scheduled(m) == 1);
        for (uint64_t m = lost.front(); m < f1; m += 2)
            CPPUNIT_ASSERT(!seen[m]);
        // The share moved within the target: 50 ms of stream from the first loss.
        CPPUNIT_ASSERT((f1 - lost.front()) * spm * 1000 <= 50ull * rate);
        // Counted by the link that lost them, the identity exact.
        CPPUNIT_ASSERT_EQUAL(uint64_t(lost.size() * spm),
                             b.emu64(1, regs::emu_link::samples_dropped_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.emu64(0, regs::emu_link::samples_dropped_lo));
        CPPUNIT_ASSERT_EQUAL(messages * spm, b.rx64(regs::rx::samples_emitted_lo));
        CPPUNIT_ASSERT_EQUAL((b.host.arrivals.size() + lost.size()) * spm,
                             b.rx64(regs::rx::samples_emitted_lo));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.rx64(regs::rx::samples_dropped_lo));
        CPPUNIT_ASSERT_EQUAL(1u,
                             b.axi.read32(regs::link_reg(1, regs::link::down_events)));
        CPPUNIT_ASSERT_EQUAL(0u,
                             b.axi.read32(regs::link_reg(0, regs::link::down_events)));
        // DST_MESSAGES: what the schedule gave each, lost ones included.
        uint64_t to1 = 0;
        for (uint64_t m = 0; m < messages; m++)
            to1 += scheduled(m);
        CPPUNIT_ASSERT_EQUAL(messages - to1, b.dst64(0, regs::dst::messages_lo));
        CPPUNIT_ASSERT_EQUAL(to1, b.dst64(1, regs::dst::messages_lo));
        // On the wire: each of link 1's PSNs arrived or was skipped; link 0 lost none.
        CPPUNIT_ASSERT_EQUAL(2 * to1, b.host.packets[1] + b.host.psn_gaps[1]);
        CPPUNIT_ASSERT(b.host.psn_gaps[1] > 0);
        CPPUNIT_ASSERT_EQUAL(2 * (messages - to1), b.host.packets[0]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.host.psn_gaps[0]);
        namespace bits = regs::dst::state_bits;
        CPPUNIT_ASSERT_EQUAL(bits::used | bits::active,
                             b.axi.read32(regs::rx_dest_reg(0, 1, regs::dst::state)));
    }

private:
    void weights_case(std::array<uint32_t, 2> w, std::vector<unsigned> pattern)
    {
        // Link 1 holds every frame 3 ms and up to 1 ms more: its messages land well
        // after later ones of link 0.
        bench b;
        const uint64_t messages = 10 * ring_messages;
        b.program(w, messages);
        b.emu32(1, regs::emu_link::delay_us, 3000);
        b.emu32(1, regs::emu_link::reorder_us, 1000);
        b.start();
        b.host.receive(messages, 1000ms);
        b.wait_done();
        b.host.receive(messages, 100ms);

        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.host.bad_packets);
        CPPUNIT_ASSERT_EQUAL(size_t(messages), b.host.arrivals.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.host.ramp_mismatches);
        CPPUNIT_ASSERT(reordered(b.host.arrivals) > 0);
        // Each message once, on the destination the schedule names; each link's
        // frames from the link's own address.
        std::vector<bool> seen(messages, false);
        std::array<uint64_t, 2> per{};
        for (const landed& a : b.host.arrivals) {
            CPPUNIT_ASSERT(a.message < messages && !seen[a.message]);
            seen[a.message] = true;
            CPPUNIT_ASSERT_EQUAL(pattern[a.message % pattern.size()], a.destination);
            per[a.destination]++;
        }
        for (unsigned d = 0; d < 2; d++) {
            CPPUNIT_ASSERT(b.host.peers[d] == b.dev.link_address(d));
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.host.psn_gaps[d]);
        }
        // The per-link counters match the weights (to the message: SWRR is exact
        // over every period; the issue asks 1 %).
        const double sum = w[0] + w[1];
        for (unsigned d = 0; d < 2; d++) {
            const uint64_t expect = messages * w[d] / (w[0] + w[1]);
            CPPUNIT_ASSERT_EQUAL(expect, per[d]);
            CPPUNIT_ASSERT_EQUAL(expect, b.dst64(d, regs::dst::messages_lo));
            CPPUNIT_ASSERT_EQUAL(2 * expect, b.link64(d, regs::link::tx_packets_lo));
            CPPUNIT_ASSERT_EQUAL(2 * expect, b.host.packets[d]);
            CPPUNIT_ASSERT(std::fabs(double(per[d]) / messages - w[d] / sum) <= 0.01);
        }
        CPPUNIT_ASSERT_EQUAL(2 * per[1], b.emu64(1, regs::emu_link::frames_delayed_lo));
        CPPUNIT_ASSERT_EQUAL(messages * spm, b.rx64(regs::rx::samples_emitted_lo));
        // Immediates: the last message each destination carries in each window.
        std::array<std::vector<uint32_t>, 2> imms;
        for (uint64_t wnd = 0; wnd < messages / notify; wnd++)
            for (unsigned d = 0; d < 2; d++)
                for (uint64_t m = (wnd + 1) * notify; m-- > wnd * notify;)
                    if (pattern[m % pattern.size()] == d) {
                        imms[d].push_back(uint32_t(m));
                        break;
                    }
        for (unsigned d = 0; d < 2; d++)
            CPPUNIT_ASSERT(imms[d] == b.host.immediates[d]);
        // Every slot of the ring was written once per wrap.
        std::vector<uint64_t> writes(ring_messages, 0);
        for (const landed& a : b.host.arrivals)
            writes[a.message % ring_messages]++;
        for (uint64_t x : writes)
            CPPUNIT_ASSERT_EQUAL(messages / ring_messages, x);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multi_link);
