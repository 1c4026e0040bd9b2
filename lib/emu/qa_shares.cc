/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One RX stream split between several hosts (docs/register-map.md, "Shares"), seen
// from the hosts: each share a ring of its own, each destination a UDP socket that
// executes its QP's WRITEs as a UC responder would (in PSN order, the VA from the
// message's first packet) into its share's ring. Where each message belongs (share,
// local index, destination, immediates) is written out here from the rules of the
// docs, not taken from regs::link_schedule (which the emulator itself uses). The
// registers of shares (layout, readiness, error 13, ownership) are in
// qa_shares_registers.cc.

#include "qa_shares.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <poll.h>
#include <algorithm>
#include <cstring>
#include <functional>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace qa_shares {

share_host::share_host(const std::vector<host_destination>& ds,
                       unsigned shares,
                       uint32_t block)
    : dests(ds), H(shares), B(block), rings(shares), received(shares, 0)
{
    for (size_t i = 0; i < dests.size(); i++) {
        sockets.emplace_back(socket_address::parse("127.0.0.1:0"));
        sockets.back().request_receive_buffer(16u << 20);
        qp.push_back({ dests[i].start_psn });
    }
    for (std::vector<uint8_t>& r : rings)
        r.assign(ring_messages * payload, 0);
    immediates.resize(dests.size());
    packets.assign(dests.size(), 0);
    psn_gaps.assign(dests.size(), 0);
    next_local.assign(dests.size(), 0);
}

void share_host::receive(uint64_t messages, std::chrono::milliseconds idle)
{
    std::vector<uint8_t> memory(64 * 2048);
    std::array<datagram, 64> slots;
    std::vector<pollfd> fds;
    for (const udp_socket& s : sockets)
        fds.push_back({ s.fd(), POLLIN, 0 });
    auto last = std::chrono::steady_clock::now();
    while (arrivals.size() < messages && std::chrono::steady_clock::now() - last < idle) {
        ::poll(fds.data(), fds.size(), 10);
        for (size_t d = 0; d < sockets.size(); d++) {
            for (size_t i = 0; i < slots.size(); i++) {
                slots[i].data = memory.data() + i * 2048;
                slots[i].capacity = 2048;
            }
            const size_t got = sockets[d].receive_batch(slots.data(), slots.size());
            for (size_t i = 0; i < got; i++)
                execute(d, slots[i]);
            if (got)
                last = std::chrono::steady_clock::now();
        }
    }
}

void share_host::execute(size_t d, const datagram& dg)
{
    roce::packet p;
    if (roce::parse(dg.data, dg.length, p) != roce::parse_status::ok ||
        p.base.dest_qp != dests[d].qpn) {
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
    qp_state& q = qp[d];
    const roce::opcode_info info = roce::describe(p.base.opcode);
    if (p.base.psn != q.expected_psn) { // a gap: UC drops the message it cut
        psn_gaps[d] += (p.base.psn - q.expected_psn) & 0xFFFFFF;
        q.in_message = false;
    }
    q.expected_psn = (p.base.psn + 1) & 0xFFFFFF;
    std::vector<uint8_t>& ring = rings[dests[d].share];
    if (info.starts_message) {
        if (p.reth_hdr.rkey != dests[d].rkey || p.reth_hdr.va < va0 ||
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

void share_host::landed_at(size_t d, uint64_t offset, uint32_t bytes)
{
    // One QP's messages land in order: the local index of this slot is the first at or
    // after the destination's next one that has it (nothing here loses a whole ring).
    const unsigned h = dests[d].share;
    const uint64_t slot = offset / payload;
    const uint64_t next = next_local[d];
    const uint64_t i =
        next + (slot + ring_messages - next % ring_messages) % ring_messages;
    next_local[d] = i + 1;
    const uint64_t m = i / B * B * H + h * B + i % B; // the docs' inverse
    ramp_errors e;
    check_ramp(
        sample_format::sc16, m * spm, rings[h].data() + slot * payload, bytes / 4, e);
    ramp_mismatches += e.mismatches;
    received[h] += bytes / 4;
    arrivals.push_back({ h, i, static_cast<unsigned>(d) });
}

namespace {
emu::emulator_config config()
{
    // A deep FIFO: on a loaded machine the emulator's thread may be late by far more
    // than a converter's FIFO, and these tests count every message (nothing lost).
    emu::emulator_config c;
    c.fifo_us = 2000000;
    return c;
}
} // namespace

bench::bench() : dev(config()), axi(dev.control_address()) {}

void bench::layout(unsigned shares, uint32_t block)
{
    H = shares;
    B = block;
    axi.write32(rx(regs::rx::shares), shares);
    axi.write32(rx(regs::rx::share_block), block);
}

void bench::program_stream(uint64_t samples, uint32_t notify_interval)
{
    axi.write32(rx(regs::rx::payload_bytes), payload);
    axi.write32(rx(regs::rx::path_mtu), mtu);
    axi.write32(rx(regs::rx::notify_interval), notify_interval);
    axi.write32(rx(regs::rx::rate_num), rate);
    axi.write32(rx(regs::rx::rate_den), 1);
    axi.write32(rx(regs::rx::format), regs::format::sc16);
    axi.write64(rx(regs::rx::num_samples_lo), samples);
}

void bench::program_destination(axioe::client& c,
                                const share_host& host,
                                size_t k,
                                uint32_t weight)
{
    const host_destination& hd = host.dests[k];
    auto dst = [&](uint32_t r) { return regs::rx_dest_reg(0, hd.index, r); };
    const socket_address a = host.sockets[k].local_address();
    c.write32(dst(regs::dst::ipv4), a.ip());
    c.write32(dst(regs::dst::udp_port), a.port());
    c.write32(dst(regs::dst::start_psn), hd.start_psn);
    c.write32(dst(regs::dst::rkey), hd.rkey);
    c.write64(dst(regs::dst::va_lo), va0);
    c.write64(dst(regs::dst::ring_bytes_lo), ring_messages * payload);
    c.write32(dst(regs::dst::weight), weight);
    c.write32(dst(regs::dst::qpn), hd.qpn); // last: the share is ready only now
}

uint32_t bench::start()
{
    try { // a refused START answers SLVERR; RX_STATUS says why
        axi.write32(rx(regs::rx::command), regs::command::start);
    } catch (const axioe::error& e) {
        CPPUNIT_ASSERT(e.code() == axioe::status::slverr);
    }
    return axi.read32(rx(regs::rx::status));
}

void bench::wait_done()
{
    uint32_t status = 0;
    for (int i = 0; i < 600 && !(status & regs::status::done); i++) {
        status = axi.read32(rx(regs::rx::status));
        std::this_thread::sleep_for(5ms);
    }
    CPPUNIT_ASSERT_EQUAL(regs::status::done, status);
}

} // namespace qa_shares

using namespace qa_shares;

namespace {

// The messages of a burst of n stream messages, by share: share h has the messages m
// with floor(m / B) mod H = h, in stream order (docs/register-map.md, "Shares").
std::vector<uint64_t> messages_of(unsigned h, unsigned H, uint32_t B, uint64_t n)
{
    std::vector<uint64_t> out;
    for (uint64_t m = 0; m < n; m++)
        if ((m / B) % H == h)
            out.push_back(m);
    return out;
}

} // namespace

// What a test streams, and what it expects: patterns[e][h] is share h's SWRR pattern
// over its local indices in epoch e (indexes into ds), from the epoch's first local
// message on; midway runs once a third of the messages landed.
struct scenario {
    std::vector<host_destination> ds;
    std::vector<uint32_t> weights; // per entry of ds
    uint32_t block = 16;
    uint64_t messages = 0;
    uint64_t short_by = 0; // samples the burst's last message lacks
    uint32_t notify_interval = notify;
    std::vector<uint64_t> drops; // stream messages the device drops (its fault table)
    std::vector<std::vector<std::vector<unsigned>>> patterns;
    std::function<void(bench&)> midway;
};

class qa_shares_wire : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_shares_wire);
    CPPUNIT_TEST(test_two_shares_block_16);
    CPPUNIT_TEST(test_two_shares_block_3);
    CPPUNIT_TEST(test_a_burst_ends_in_each_share_without_windows);
    CPPUNIT_TEST(test_losses_are_counted_by_their_share);
    CPPUNIT_TEST(test_a_share_over_two_destinations_3_1_finite_burst);
    CPPUNIT_TEST(test_an_epoch_is_common_to_the_shares);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_two_shares_block_16() { run(two_shares(16, 12 * 2 * ring_messages, 0)); }

    // A block that divides neither the ring nor the window, and a burst that ends
    // inside a block with a short last message.
    void test_two_shares_block_3()
    {
        run(two_shares(3, 12 * 2 * ring_messages + 7, 100));
    }

    // Without notification windows only the last message of each destination carries
    // an immediate: the burst's end counted in each share's own messages.
    void test_a_burst_ends_in_each_share_without_windows()
    {
        scenario c = two_shares(3, 12 * 2 * ring_messages + 4, 10);
        c.notify_interval = 0;
        run(c);
    }

    // Dropped messages: lost to the share they belong to, its emitted count still
    // theirs (emitted = delivered + lost per share), their PSNs skipped.
    void test_losses_are_counted_by_their_share()
    {
        scenario c = two_shares(3, 12 * 2 * ring_messages + 7, 100);
        c.drops = { 5, 6, 200, 401, 402 }; // shares 1, 0, 0, 1, 1
        run(c);
    }

    void test_a_share_over_two_destinations_3_1_finite_burst()
    {
        // Share 0 over destinations 0 and 1 at 3:1 (SWRR: 0 0 1 0), share 1 over
        // destination 4 (D = 8 / 2 = 4); B = 5.
        scenario c;
        c.ds = { { 0, 0, 0x111, 0xA0A0, 0xFFFFF0 },
                 { 0, 1, 0x122, 0xA1A1, 0x000010 },
                 { 1, 4, 0x333, 0xB0B0, 0x123456 } };
        c.weights = { 3, 1, 1 };
        c.block = 5;
        c.messages = 10 * 2 * ring_messages + 11;
        c.short_by = 200;
        c.patterns = { { { 0, 0, 1, 0 }, { 2 } } };
        run(c);
    }

    void test_an_epoch_is_common_to_the_shares()
    {
        // Each share over two destinations at 1:1; midway share 1's host weighs its
        // second destination 3 (SWRR 1:3: 5 4 5 5). One epoch, from one local index
        // on in both shares: share 0's pattern restarts there, share 1's changes.
        scenario c;
        c.ds = { { 0, 0, 0x111, 0xA0A0, 0 },
                 { 0, 1, 0x122, 0xA1A1, 0 },
                 { 1, 4, 0x444, 0xB0B0, 0 },
                 { 1, 5, 0x455, 0xB1B1, 0 } };
        c.weights = { 1, 1, 1, 1 };
        c.block = 7;
        c.messages = 12 * 2 * ring_messages;
        c.patterns = { { { 0, 1 }, { 2, 3 } }, { { 0, 1 }, { 3, 2, 3, 3 } } };
        c.midway = [](bench& b) {
            b.axi.write32(regs::rx_dest_reg(0, 5, regs::dst::weight), 3);
        };
        run(c);
    }

private:
    static scenario two_shares(uint32_t block, uint64_t n, uint64_t short_by)
    {
        scenario c;
        c.ds = { { 0, 0, 0x111, 0xA0A0, 0xFFFFF8 }, { 1, 4, 0x444, 0xB1B1, 0x000100 } };
        c.weights = { 1, 1 };
        c.block = block;
        c.messages = n;
        c.short_by = short_by;
        c.patterns = { { { 0 }, { 1 } } };
        return c;
    }

    void run(const scenario& c)
    {
        const unsigned H = static_cast<unsigned>(c.patterns[0].size());
        const uint64_t n = c.messages;
        bench b;
        share_host host(c.ds, H, c.block);
        b.layout(H, c.block);
        const uint64_t samples = n * spm - c.short_by;
        b.program_stream(samples, c.notify_interval);
        for (size_t k = 0; k < c.ds.size(); k++)
            b.program_destination(b.axi, host, k, c.weights[k]);
        for (size_t j = 0; j < c.drops.size(); j++) {
            const uint32_t entry[3] = { regs::low_word(c.drops[j]),
                                        regs::high_word(c.drops[j]),
                                        regs::fault::drop };
            b.axi.write(regs::emu_reg(
                            0, regs::emu::fault_table + j * regs::emu::fault_entry_bytes),
                        entry,
                        3);
        }
        b.axi.write32(regs::emu_reg(0, regs::emu::fault_count),
                      static_cast<uint32_t>(c.drops.size()));
        CPPUNIT_ASSERT_EQUAL((1u << H) - 1, b.axi.read32(b.rx(regs::rx::share_ready)));
        CPPUNIT_ASSERT_EQUAL(regs::status::running, b.start());
        if (c.midway) {
            host.receive(n / 3, 1000ms);
            c.midway(b);
        }
        host.receive(n, 1000ms);
        b.wait_done();
        host.receive(n, 100ms);

        CPPUNIT_ASSERT_EQUAL(uint64_t(0), host.bad_packets);
        CPPUNIT_ASSERT_EQUAL(size_t(n - c.drops.size()), host.arrivals.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), host.ramp_mismatches);
        // The epochs: as many as the test made, at window boundaries of local indices.
        const uint32_t epochs = b.axi.read32(regs::epoch_reg(0, regs::epoch::count));
        CPPUNIT_ASSERT_EQUAL(uint32_t(c.patterns.size()), epochs);
        std::vector<uint64_t> first(epochs, 0);
        const uint32_t N = c.notify_interval;
        for (unsigned e = 0; e < epochs; e++) {
            first[e] = b.axi.read64(regs::epoch_entry_reg(0, e, regs::epoch::first_lo));
            CPPUNIT_ASSERT(N == 0 || first[e] % N == 0);
        }
        // Where local message i of share h goes: its epoch's pattern from its first.
        auto expected = [&](unsigned h, uint64_t i) {
            unsigned e = 0;
            while (e + 1 < epochs && i >= first[e + 1])
                e++;
            const std::vector<unsigned>& p = c.patterns[e][h];
            return p[(i - first[e]) % p.size()];
        };
        uint64_t emitted_sum = 0, lost_sum = 0;
        for (unsigned h = 0; h < H; h++) {
            const std::vector<uint64_t> mine = messages_of(h, H, c.block, n);
            const uint64_t L = mine.size();
            // The share's dropped messages, by local index, and their samples.
            std::vector<bool> dropped(L, false);
            uint64_t lost = 0;
            for (uint64_t m : c.drops) {
                if ((m / c.block) % H != h)
                    continue;
                dropped[m / (c.block * H) * c.block + m % c.block] = true;
                lost += m == n - 1 ? spm - c.short_by : spm;
            }
            CPPUNIT_ASSERT(L / ring_messages >= 10); // >= 10 wraps of each ring
            if (epochs > 1) // the change lies inside every share's messages
                CPPUNIT_ASSERT(first[1] > 0 && first[1] < L);
            // Each local message once, on the destination its share's schedule names.
            std::vector<bool> seen(L, false);
            std::vector<uint64_t> per(c.ds.size(), 0);
            for (const landed& a : host.arrivals) {
                if (a.share != h)
                    continue;
                CPPUNIT_ASSERT(a.local < L && !seen[a.local]);
                seen[a.local] = true;
                CPPUNIT_ASSERT_EQUAL(expected(h, a.local), a.destination);
                per[a.destination]++;
            }
            for (uint64_t i = 0; i < L; i++)
                CPPUNIT_ASSERT_EQUAL(!dropped[i], bool(seen[i]));
            // Samples: the share's messages, the burst's last one short if it is this
            // share's; the device's count is what the host got and what it lost.
            uint64_t expect = L * spm;
            if (mine.back() == n - 1)
                expect -= c.short_by;
            CPPUNIT_ASSERT_EQUAL(expect - lost, host.received[h]);
            lost_sum += lost;
            const uint64_t emitted =
                b.axi.read64(regs::rx_share_reg(0, h, regs::share::samples_emitted_lo));
            CPPUNIT_ASSERT_EQUAL(expect, emitted);
            emitted_sum += emitted;
            // Immediates: the last message each destination carries in each window of
            // the share's local indices, and its last one of the burst (without
            // windows: that one only).
            for (unsigned k = 0; k < c.ds.size(); k++) {
                if (c.ds[k].share != h)
                    continue;
                std::vector<uint32_t> imms;
                uint64_t dropped_here = 0;
                for (uint64_t i = 0; i < L; i++) {
                    if (expected(h, i) == k && dropped[i]) {
                        dropped_here++;
                        continue; // scheduled there, its immediate lost with it
                    }
                    if (expected(h, i) != k)
                        continue;
                    bool last_in_window = true;
                    for (uint64_t j = i + 1; j < L && (N == 0 || j / N == i / N); j++)
                        if (expected(h, j) == k)
                            last_in_window = false;
                    if (last_in_window)
                        imms.push_back(uint32_t(i));
                }
                CPPUNIT_ASSERT(imms == host.immediates[k]);
                CPPUNIT_ASSERT_EQUAL(per[k] + dropped_here,
                                     b.axi.read64(regs::rx_dest_reg(
                                         0, c.ds[k].index, regs::dst::messages_lo)));
                // A dropped message's two packets are a gap in its QP's PSNs.
                CPPUNIT_ASSERT_EQUAL(2 * dropped_here, host.psn_gaps[k]);
                CPPUNIT_ASSERT_EQUAL(
                    h,
                    b.axi.read32(regs::rx_dest_reg(0, c.ds[k].index, regs::dst::share)));
            }
            CPPUNIT_ASSERT_EQUAL(
                b.axi.read64(b.rx(regs::rx::start_time_lo)),
                b.axi.read64(regs::rx_share_reg(0, h, regs::share::start_time_lo)));
            if (h == 0) // EPOCH_SCHEDULED: share 0's local count, the largest
                CPPUNIT_ASSERT_EQUAL(
                    L, b.axi.read64(regs::epoch_reg(0, regs::epoch::scheduled_lo)));
        }
        CPPUNIT_ASSERT_EQUAL(samples, emitted_sum);
        CPPUNIT_ASSERT_EQUAL(lost_sum, b.axi.read64(b.rx(regs::rx::samples_dropped_lo)));
        CPPUNIT_ASSERT_EQUAL(samples, b.axi.read64(b.rx(regs::rx::samples_emitted_lo)));
        // Shares the stream does not have count nothing.
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(0),
            b.axi.read64(regs::rx_share_reg(0, H, regs::share::samples_emitted_lo)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_shares_wire);
