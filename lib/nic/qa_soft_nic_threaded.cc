/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft NIC with its receive thread on a real UDP socket: a stream of writes, the
// thread's name and CPU accounting, and lifecycle (no leaked threads or descriptors,
// safe teardown under traffic, deregistered memory no longer reachable).

#include "qa_nic_fixture.h"
#include <gnuradio/rdma/cpu_accounting.h>
#include <cppunit/TestFixture.h>
#include <dirent.h>
#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

using namespace qa_nic;
using namespace std::chrono_literals;

namespace {
constexpr uint8_t write_only = roce::opcode::write_only;
constexpr uint8_t write_only_imm = roce::opcode::write_only_imm;

template <typename Predicate>
bool wait_until(Predicate done, std::chrono::milliseconds timeout = 5000ms)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(100us);
    }
    return true;
}

std::vector<std::string> directory(const char* path)
{
    std::vector<std::string> names;
    DIR* d = ::opendir(path);
    if (!d)
        return names;
    while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.')
            names.emplace_back(e->d_name);
    ::closedir(d);
    return names;
}

//! Thread ids of this process whose name is \p name.
std::set<std::string> threads_named(const std::string& name)
{
    std::set<std::string> tids;
    for (const auto& tid : directory("/proc/self/task")) {
        std::ifstream comm("/proc/self/task/" + tid + "/comm");
        std::string comm_name;
        std::getline(comm, comm_name);
        if (comm_name == name)
            tids.insert(tid);
    }
    return tids;
}

void send_all(udp_socket& tx,
              std::vector<std::vector<uint8_t>>& packets,
              const socket_address& to)
{
    std::vector<datagram> batch(packets.size());
    for (size_t i = 0; i < packets.size(); i++) {
        batch[i].data = packets[i].data();
        batch[i].length = packets[i].size();
        batch[i].peer = to;
    }
    size_t sent = 0;
    while (sent < batch.size()) {
        sent += tx.send_batch(batch.data() + sent, batch.size() - sent);
        if (sent < batch.size())
            std::this_thread::sleep_for(100us);
    }
}
} // namespace

class qa_soft_nic_threaded : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_nic_threaded);
    CPPUNIT_TEST(test_udp_stream);
    CPPUNIT_TEST(test_thread_name_and_cpu_role);
    CPPUNIT_TEST(test_lifecycle_leaves_nothing);
    CPPUNIT_TEST(test_destroy_under_traffic);
    CPPUNIT_TEST(test_deregistered_mr_unreachable);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_udp_stream()
    {
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        nic_fixture f(qp_type::uc, tx.local_address(), 1024, true);
        const socket_address to = f.nic.roce_address();
        constexpr uint32_t total = 10000;
        constexpr uint32_t window = 32; // in flight: well inside a default socket buffer
        constexpr size_t slot = 1024;
        const size_t slots = f.ring.bytes / slot;
        f.qp->post_receives(0, 16);
        uint64_t next_wr = 16, expected_wr = 0;
        uint32_t expected_imm = 15, completions = 0;
        uint64_t sent = 0, bad_icrc = 0, bad_qpn = 0, bad_rkey = 0;

        for (uint32_t base = 0; base < total; base += window) {
            const uint32_t end = std::min(base + window, total);
            std::vector<std::vector<uint8_t>> packets;
            for (uint32_t i = base; i < end; i++) {
                const bool imm = i % 16 == 15;
                auto payload = pattern(slot, static_cast<uint8_t>(i));
                std::memcpy(payload.data(), &i, sizeof(i));
                auto r = f.write(imm ? write_only_imm : write_only,
                                 i & 0xFFFFFF,
                                 (i % slots) * slot,
                                 std::move(payload));
                r.imm = i;
                packets.push_back(build_udp(r, tx.local_address(), to));
                if (i % 97 == 0) {
                    // A bad packet that carries the next PSN but must not consume it.
                    auto bad = r;
                    bad.opcode = roce::opcode::uc | write_only;
                    bad.psn = (i + 1) & 0xFFFFFF;
                    bad.payload = pattern(slot, 0xEE);
                    switch ((i / 97) % 3) {
                    case 0:
                        packets.push_back(build_udp(bad, tx.local_address(), to));
                        packets.back()[40] ^= 0x10;
                        bad_icrc++;
                        break;
                    case 1:
                        bad.qpn = f.qp->qpn() + 100;
                        packets.push_back(build_udp(bad, tx.local_address(), to));
                        bad_qpn++;
                        break;
                    default:
                        bad.rkey ^= 0x55;
                        packets.push_back(build_udp(bad, tx.local_address(), to));
                        bad_rkey++;
                        break;
                    }
                }
            }
            if (base == window * 150) // one datagram too big for a receive slot
                packets.push_back(std::vector<uint8_t>(soft_nic::slot_bytes + 100, 0));
            send_all(tx, packets, to);
            sent += packets.size();
            CPPUNIT_ASSERT(wait_until([&] { return f.counter("rx_datagrams") == sent; }));

            for (uint32_t i = base; i < end; i++) {
                auto payload = pattern(slot, static_cast<uint8_t>(i));
                std::memcpy(payload.data(), &i, sizeof(i));
                f.ring.expect((i % slots) * slot, payload);
            }
            CPPUNIT_ASSERT(f.ring.unchanged());

            work_completion wc[16];
            const int n = f.cq->poll(wc, 16);
            for (int k = 0; k < n; k++) {
                CPPUNIT_ASSERT(wc[k].status == wc_status::success);
                CPPUNIT_ASSERT_EQUAL(expected_wr++, wc[k].wr_id);
                CPPUNIT_ASSERT_EQUAL(expected_imm, wc[k].imm_data);
                CPPUNIT_ASSERT_EQUAL(uint32_t(slot), wc[k].byte_len);
                expected_imm += 16;
            }
            completions += static_cast<uint32_t>(n);
            f.qp->post_receives(next_wr, n);
            next_wr += static_cast<uint64_t>(n);
        }
        const counters c = f.nic.read_counters();
        CPPUNIT_ASSERT_EQUAL(uint32_t(total / 16), completions);
        CPPUNIT_ASSERT_EQUAL(uint64_t(total / 16), c.at("completions"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(total), c.at("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(total) * slot, c.at("rx_bytes"));
        CPPUNIT_ASSERT_EQUAL(bad_icrc, c.at("drop_bad_icrc"));
        CPPUNIT_ASSERT_EQUAL(bad_qpn, c.at("drop_unknown_qpn"));
        CPPUNIT_ASSERT_EQUAL(bad_rkey, c.at("drop_bad_rkey"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.at("drop_truncated"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("psn_resync"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("cq_overflow"));
        CPPUNIT_ASSERT_EQUAL(sent, c.at("rx_datagrams"));
        // The sender segments runs of equal-length packets and the NIC's socket takes
        // them coalesced (GRO): the bad packets above sat inside such runs, and were
        // each judged on their own.
        CPPUNIT_ASSERT(f.nic.coalescing());
        CPPUNIT_ASSERT(c.at("rx_coalesced") > 0);
    }

    void test_thread_name_and_cpu_role()
    {
        // Thread ids, not counts: a thread joined by an earlier test may still be
        // listed for a moment.
        const auto before = threads_named("nic-rx");
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        nic_fixture f(qp_type::uc, tx.local_address(), 4096, true);
        CPPUNIT_ASSERT(wait_until([&] {
            for (const auto& tid : threads_named("nic-rx"))
                if (!before.count(tid))
                    return true;
            return false;
        }));

        const auto cpu_before = process_cpu_by_role();
        // The same ONLY over and over: each is a START and is executed (a resync).
        auto bytes = build_udp(f.write(write_only, 0, 0, pattern(4096, 1)),
                               tx.local_address(),
                               f.nic.roce_address());
        std::vector<std::vector<uint8_t>> burst(16, bytes);
        for (int i = 0; i < 400; i++) {
            send_all(tx, burst, f.nic.roce_address());
            const uint64_t want = static_cast<uint64_t>(i + 1) * burst.size();
            CPPUNIT_ASSERT(wait_until([&] { return f.counter("rx_datagrams") == want; }));
        }
        const auto used = process_cpu_by_role() - cpu_before;
        CPPUNIT_ASSERT_EQUAL(uint64_t(6400), f.counter("rx_packets"));
        // 6400 ICRCs and copies of 4 KiB: milliseconds of NIC time, charged to the NIC.
        CPPUNIT_ASSERT(used.nic > 0.001);
        CPPUNIT_ASSERT(used.device == 0.0);
    }

    void test_lifecycle_leaves_nothing()
    {
        const size_t threads = directory("/proc/self/task").size();
        const size_t fds = directory("/proc/self/fd").size();
        for (int i = 0; i < 50; i++) {
            soft_nic nic(test_config(true));
            auto pd = nic.alloc_pd();
            auto cq = nic.create_cq(16);
            auto qp = pd->create_qp(qp_type::uc, *cq, 4);
            CPPUNIT_ASSERT(qp->qpn() >= 0x11);
        }
        // A joined thread leaves /proc a moment after join() returns.
        CPPUNIT_ASSERT(wait_until(
            [&] { return directory("/proc/self/task").size() == threads; }, 2000ms));
        CPPUNIT_ASSERT_EQUAL(fds, directory("/proc/self/fd").size());
    }

    void test_destroy_under_traffic()
    {
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        for (int round = 0; round < 5; round++) {
            auto f = std::make_unique<nic_fixture>(
                qp_type::uc, tx.local_address(), 1024, true);
            const socket_address to = f->nic.roce_address();
            const auto bytes = build_udp(
                f->write(write_only, 0, 0, pattern(1024, 1)), tx.local_address(), to);
            std::atomic<bool> stop{ false };
            std::thread sender([&] {
                while (!stop.load()) {
                    tx.send_to(bytes.data(), bytes.size(), to);
                    std::this_thread::yield();
                }
            });
            const bool busy = wait_until([&] { return f->counter("rx_packets") > 100; });
            // Children go first (QP, MR, then the memory), the NIC and its thread last.
            f.reset();
            stop.store(true);
            sender.join();
            CPPUNIT_ASSERT(busy);
        }
    }

    void test_deregistered_mr_unreachable()
    {
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        nic_fixture f(qp_type::uc, tx.local_address(), 1024, true);
        const socket_address to = f.nic.roce_address();
        std::vector<std::vector<uint8_t>> one{ build_udp(
            f.write(write_only, 0, 0, pattern(512, 1)), tx.local_address(), to) };
        send_all(tx, one, to);
        CPPUNIT_ASSERT(wait_until([&] { return f.counter("rx_packets") == 1; }));
        std::vector<std::vector<uint8_t>> later{ build_udp(
            f.write(write_only, 1, 0, pattern(512, 2)), tx.local_address(), to) };
        f.mr.reset();
        f.ring.snapshot();
        send_all(tx, later, to);
        CPPUNIT_ASSERT(wait_until([&] { return f.counter("drop_bad_rkey") == 1; }));
        CPPUNIT_ASSERT(f.ring.unchanged());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("rx_packets"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_nic_threaded);
