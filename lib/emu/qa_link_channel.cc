/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulated link (docs/register-map.md, "Emulated links") against a network that
// records what reaches it: what it passes, drops, holds, and what it counts.

#include "../util/hash.h"
#include "device_clock.h"
#include "link_channel.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::emu;

namespace {

// The network beyond the link: it keeps every frame's first payload byte (the test
// numbers frames there), its destination and when it came.
class recording_network : public wire
{
public:
    struct arrival {
        uint32_t tag = 0;
        socket_address to;
        int64_t at_ns = 0;
    };
    socket_address local_address() const override
    {
        return socket_address::parse("127.0.0.1:4000");
    }
    unsigned mtu() const override { return 9000; }
    size_t send(outgoing_packet* batch, size_t count, const socket_address& to) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        for (size_t i = 0; i < count; i++) {
            uint32_t tag;
            std::memcpy(&tag, batch[i].udp_payload + roce::bth_bytes, 4);
            d_arrivals.push_back({ tag, to, monotonic_ns() });
        }
        return count;
    }
    std::vector<arrival> arrivals() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_arrivals;
    }

private:
    mutable std::mutex d_mutex;
    std::vector<arrival> d_arrivals;
};

// Frames as an engine hands them over: a BTH with the destination QP, then the tag.
struct frames {
    std::vector<uint8_t> memory;
    std::vector<outgoing_packet> packets;
    static constexpr size_t slot = 256;

    //! \p count frames tagged first.., \p per_message frames a message of \p samples.
    frames(
        uint32_t first, size_t count, size_t per_message, uint32_t samples, uint32_t qpn)
        : memory(count * slot), packets(count)
    {
        for (size_t i = 0; i < count; i++) {
            uint8_t* p = memory.data() + i * slot + wire::headroom;
            p[5] = uint8_t(qpn >> 16);
            p[6] = uint8_t(qpn >> 8);
            p[7] = uint8_t(qpn);
            const uint32_t tag = first + uint32_t(i);
            std::memcpy(p + roce::bth_bytes, &tag, 4);
            outgoing_packet& o = packets[i];
            o.udp_payload = p;
            o.length = roce::bth_bytes + 64;
            o.ends_message = (i + 1) % per_message == 0;
            o.message_samples = o.ends_message ? samples : 0;
        }
    }
    size_t send(link_channel& link, const socket_address& to)
    {
        return link.send(packets.data(), packets.size(), to);
    }
};

const socket_address host = socket_address::parse("127.0.0.1:5000");

template <typename F>
bool eventually(F done, std::chrono::milliseconds limit = std::chrono::milliseconds(2000))
{
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > give_up)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

} // namespace

class qa_link_channel : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_link_channel);
    CPPUNIT_TEST(test_unimpaired_passes_everything);
    CPPUNIT_TEST(test_cut_drops_and_counts_messages);
    CPPUNIT_TEST(test_loss_follows_the_seeded_generator);
    CPPUNIT_TEST(test_delay_holds_frames_in_order);
    CPPUNIT_TEST(test_reorder_spreads_delays_keeping_order);
    CPPUNIT_TEST(test_rate_paces_and_a_full_queue_drops);
    CPPUNIT_TEST(test_cut_drops_what_is_held);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_unimpaired_passes_everything()
    {
        recording_network net;
        link_channel link(net, 0);
        frames f(0, 100, 1, 256, 0x11);
        CPPUNIT_ASSERT_EQUAL(size_t(100), f.send(link, host));
        CPPUNIT_ASSERT_EQUAL(size_t(100), net.arrivals().size());
        const regs::emu_link_counters c = link.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), c.frames_passed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.frames_dropped + c.frames_delayed);
        CPPUNIT_ASSERT(!link.down());
        CPPUNIT_ASSERT(host == net.arrivals()[0].to);
    }

    void test_cut_drops_and_counts_messages()
    {
        recording_network net;
        link_channel link(net, 0);
        regs::emu_link_values v;
        v.down = 1;
        link.configure(v);
        CPPUNIT_ASSERT(link.down());
        // 10 messages of 3 frames each, 100 samples a message: all cut, each once.
        frames f(0, 30, 3, 100, 0x22);
        CPPUNIT_ASSERT_EQUAL(size_t(30), f.send(link, host)); // the device sent them
        CPPUNIT_ASSERT(net.arrivals().empty());
        regs::emu_link_counters c = link.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(30), c.frames_dropped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_dropped);
        // Back up: frames pass again, and the counters go on from there.
        link.configure(regs::emu_link_values{});
        frames g(100, 6, 3, 100, 0x22);
        g.send(link, host);
        CPPUNIT_ASSERT_EQUAL(size_t(6), net.arrivals().size());
        c = link.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), c.frames_passed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_dropped);
    }

    void test_loss_follows_the_seeded_generator()
    {
        recording_network net;
        link_channel link(net, 3);
        regs::emu_link_values v;
        v.loss_ppm = 100000; // 10 %
        v.seed = 7;
        link.configure(v);
        // Messages of 2 frames: a message is cut when either frame is lost.
        const size_t n = 20000;
        frames f(0, n, 2, 50, 0x33);
        f.send(link, host);
        std::vector<bool> arrived(n, false);
        for (const auto& a : net.arrivals())
            arrived[a.tag] = true;
        uint64_t dropped = 0, cut_samples = 0;
        for (size_t i = 0; i < n; i++) {
            const bool lost = splitmix64((uint64_t(7) << 32) ^ i) % 1000000u < 100000;
            CPPUNIT_ASSERT_EQUAL(!lost, bool(arrived[i]));
            dropped += lost;
        }
        for (size_t m = 0; m < n / 2; m++)
            cut_samples += (!arrived[2 * m] || !arrived[2 * m + 1]) ? 50 : 0;
        const regs::emu_link_counters c = link.counters();
        CPPUNIT_ASSERT_EQUAL(dropped, c.frames_dropped);
        CPPUNIT_ASSERT_EQUAL(cut_samples, c.samples_dropped);
        CPPUNIT_ASSERT(dropped > n / 20 && dropped < n / 5);
        // The same seed on another link loses the same frames.
        recording_network net2;
        link_channel again(net2, 3);
        again.configure(v);
        frames g(0, n, 2, 50, 0x33);
        g.send(again, host);
        CPPUNIT_ASSERT_EQUAL(net.arrivals().size(), net2.arrivals().size());
    }

    void test_delay_holds_frames_in_order()
    {
        recording_network net;
        link_channel link(net, 1);
        regs::emu_link_values v;
        v.delay_us = 5000;
        link.configure(v);
        const int64_t sent_at = monotonic_ns();
        frames f(0, 200, 1, 10, 0x44);
        CPPUNIT_ASSERT_EQUAL(size_t(200), f.send(link, host));
        CPPUNIT_ASSERT(net.arrivals().size() < 200); // held
        CPPUNIT_ASSERT(eventually([&] { return net.arrivals().size() == 200; }));
        const auto a = net.arrivals();
        for (size_t i = 0; i < a.size(); i++) {
            CPPUNIT_ASSERT_EQUAL(uint32_t(i), a[i].tag);
            CPPUNIT_ASSERT(a[i].at_ns - sent_at >= 5000000);
        }
        const regs::emu_link_counters c = link.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), c.frames_delayed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(200), c.frames_passed);
        CPPUNIT_ASSERT_EQUAL(size_t(0), link.held());
    }

    void test_reorder_spreads_delays_keeping_order()
    {
        recording_network net;
        link_channel link(net, 1);
        regs::emu_link_values v;
        v.reorder_us = 20000;
        v.seed = 3;
        link.configure(v);
        // One frame a millisecond: the random extra delays reach past the next ones,
        // yet the link never lets a frame overtake an earlier one.
        const int64_t t0 = monotonic_ns();
        std::vector<int64_t> sent(40);
        for (uint32_t i = 0; i < 40; i++) {
            frames f(i, 1, 1, 10, 0x55);
            sent[i] = monotonic_ns();
            f.send(link, host);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        CPPUNIT_ASSERT(eventually([&] { return net.arrivals().size() == 40; }));
        const auto a = net.arrivals();
        int64_t longest = 0, shortest = INT64_MAX;
        for (size_t i = 0; i < a.size(); i++) {
            CPPUNIT_ASSERT_EQUAL(uint32_t(i), a[i].tag);
            longest = std::max(longest, a[i].at_ns - sent[i]);
            shortest = std::min(shortest, a[i].at_ns - sent[i]);
        }
        CPPUNIT_ASSERT(longest > 5000000); // some waited well past the next frames
        CPPUNIT_ASSERT(longest < 21000000 + (monotonic_ns() - t0)); // bounded
        CPPUNIT_ASSERT(shortest < longest - 2000000);               // not one delay
    }

    void test_rate_paces_and_a_full_queue_drops()
    {
        recording_network net;
        link_channel link(net, 2);
        regs::emu_link_values v;
        // 100 frames of 12 + 64 + 28 = 104 IPv4 bytes at 104000 B/s: 1 ms each.
        v.rate = 104000;
        v.queue_us = 50000; // 50 of them wait, the rest are dropped
        link.configure(v);
        const int64_t t0 = monotonic_ns();
        frames f(0, 100, 1, 10, 0x66);
        f.send(link, host);
        CPPUNIT_ASSERT(eventually([&] { return link.held() == 0; }));
        const auto a = net.arrivals();
        const regs::emu_link_counters c = link.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), c.frames_passed + c.frames_dropped);
        CPPUNIT_ASSERT(c.frames_passed >= 50 && c.frames_passed <= 52);
        CPPUNIT_ASSERT_EQUAL(c.frames_passed, uint64_t(a.size()));
        // Paced: the last passed left about its queue time after the first.
        CPPUNIT_ASSERT(a.back().at_ns - t0 >= 49000000);
        for (size_t i = 1; i < a.size(); i++)
            CPPUNIT_ASSERT(a[i].tag > a[i - 1].tag);
    }

    void test_cut_drops_what_is_held()
    {
        recording_network net;
        link_channel link(net, 1);
        regs::emu_link_values v;
        v.delay_us = 50000;
        link.configure(v);
        // 5 messages of 2 frames, 30 samples each, held; then the cable is cut.
        frames f(0, 10, 2, 30, 0x77);
        f.send(link, host);
        CPPUNIT_ASSERT_EQUAL(size_t(10), link.held());
        v.down = 1;
        link.configure(v);
        CPPUNIT_ASSERT(eventually([&] { return link.held() == 0; }));
        CPPUNIT_ASSERT(net.arrivals().empty());
        const regs::emu_link_counters c = link.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), c.frames_dropped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(150), c.samples_dropped);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), c.frames_delayed);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_link_channel);
