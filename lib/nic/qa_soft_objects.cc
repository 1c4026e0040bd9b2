/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft NIC's objects: QP state machine and receive queue, QPN and key numbering,
// registration rules, device properties, and receiving on a wildcard address.

#include "qa_nic_fixture.h"
#include <cppunit/TestFixture.h>
#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <thread>

using namespace qa_nic;
using namespace std::chrono_literals;

namespace {
bool throws_logic_error_naming(const std::function<void()>& f, const std::string& word)
{
    try {
        f();
    } catch (const std::logic_error& e) {
        return std::string(e.what()).find(word) != std::string::npos;
    }
    return false;
}
} // namespace

class qa_soft_objects : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_objects);
    CPPUNIT_TEST(test_qp_state_machine);
    CPPUNIT_TEST(test_receive_queue_bounds);
    CPPUNIT_TEST(test_reset_forgets_message);
    CPPUNIT_TEST(test_post_in_error_flushes);
    CPPUNIT_TEST(test_numbers_unique);
    CPPUNIT_TEST(test_numbers_unpredictable);
    CPPUNIT_TEST(test_register_memory_rules);
    CPPUNIT_TEST(test_device_properties);
    CPPUNIT_TEST(test_bound_to_any_address);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_qp_state_machine()
    {
        soft_nic_config config = test_config(false);
        config.max_path_mtu = 2048;
        soft_nic nic(config);
        auto pd = nic.alloc_pd();
        auto cq = nic.create_cq(8);
        auto qp = pd->create_qp(qp_type::rc, *cq, 4);
        const remote_peer peer{ socket_address::parse("10.0.0.2:4791"), 0x12 };
        CPPUNIT_ASSERT(qp->state() == qp_state::reset);
        CPPUNIT_ASSERT(qp->type() == qp_type::rc);
        CPPUNIT_ASSERT(
            throws_logic_error_naming([&] { qp->to_rtr(peer, 0, 1024); }, "RESET"));
        CPPUNIT_ASSERT(throws_logic_error_naming([&] { qp->to_rts(0); }, "RESET"));
        CPPUNIT_ASSERT(
            throws_logic_error_naming([&] { qp->post_receives(0, 1); }, "RESET"));
        CPPUNIT_ASSERT_THROW(qp->to_init(1u << 7), std::invalid_argument);
        qp->to_init(access_remote_read);
        qp->to_init(access_remote_write); // INIT -> INIT changes the access
        CPPUNIT_ASSERT(qp->state() == qp_state::init);
        CPPUNIT_ASSERT(throws_logic_error_naming([&] { qp->to_rts(0); }, "INIT"));
        // Bad attributes are refused and leave the state alone.
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 0, 1000), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 0, 4096),
                             std::invalid_argument); // > device max
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 1u << 24, 1024), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp->to_rtr({ socket_address(), 1 }, 0, 1024),
                             std::invalid_argument);
        CPPUNIT_ASSERT(qp->state() == qp_state::init);
        qp->to_rtr(peer, 0xFFFFFF, 2048);
        CPPUNIT_ASSERT(qp->state() == qp_state::rtr);
        CPPUNIT_ASSERT(
            throws_logic_error_naming([&] { qp->to_rtr(peer, 0, 1024); }, "RTR"));
        CPPUNIT_ASSERT(throws_logic_error_naming([&] { qp->to_init(0); }, "RTR"));
        qp->to_rts(5);
        qp->to_rts(6); // RTS -> RTS is legal
        CPPUNIT_ASSERT(qp->state() == qp_state::rts);
        qp->to_reset();
        CPPUNIT_ASSERT(qp->state() == qp_state::reset);
        qp->to_init(access_remote_write);
        qp->to_rtr(peer, 0, 256);
        CPPUNIT_ASSERT(qp->state() == qp_state::rtr);
    }

    void test_receive_queue_bounds()
    {
        soft_nic nic(test_config(false));
        auto pd = nic.alloc_pd();
        auto cq = nic.create_cq(8);
        CPPUNIT_ASSERT_THROW(pd->create_qp(qp_type::uc, *cq, -1), std::invalid_argument);
        auto qp = pd->create_qp(qp_type::uc, *cq, 4);
        qp->to_init(access_remote_write);
        qp->post_receives(0, 3);
        CPPUNIT_ASSERT_THROW(qp->post_receives(3, 2), std::length_error);
        CPPUNIT_ASSERT_EQUAL(3, qp->posted_receives()); // nothing of the refused post
        qp->post_receives(3, 1);
        CPPUNIT_ASSERT_EQUAL(4, qp->posted_receives());
        CPPUNIT_ASSERT_THROW(qp->post_receives(4, 1), std::length_error);
        qp->to_reset(); // drops them without completions
        CPPUNIT_ASSERT_EQUAL(0, qp->posted_receives());
        work_completion wc;
        CPPUNIT_ASSERT_EQUAL(0, cq->poll(&wc, 1));
        auto none = pd->create_qp(qp_type::uc, *cq, 0);
        none->to_init(access_remote_write);
        CPPUNIT_ASSERT_THROW(none->post_receives(0, 1), std::length_error);
    }

    void test_reset_forgets_message()
    {
        nic_fixture f(qp_type::uc);
        auto first = f.write(roce::opcode::write_first, 0, 0, pattern(1024, 1));
        first.dma_length = 4096;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        f.qp->to_reset();
        f.qp->to_init(access_remote_write);
        f.qp->to_rtr({ f.peer, 1 }, 1, 1024);
        f.ring.snapshot();
        auto middle = first;
        middle.opcode = roce::opcode::uc | roce::opcode::write_middle;
        middle.psn = 1;
        expect_drop(f, middle, rx_result::drop_missing_reth);
    }

    void test_post_in_error_flushes()
    {
        udp_socket peer(socket_address::parse("127.0.0.1:0"));
        nic_fixture f(qp_type::rc, peer.local_address());
        auto r = f.write(roce::opcode::write_only, 0, 0, pattern(64, 1));
        r.rkey = 0;
        CPPUNIT_ASSERT(rx_result::drop_bad_rkey == f.send(r));
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        f.qp->post_receives(50, 2);
        CPPUNIT_ASSERT_EQUAL(0, f.qp->posted_receives());
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(2), wcs.size());
        CPPUNIT_ASSERT(wcs[0].status == wc_status::flushed && wcs[0].wr_id == 50);
        CPPUNIT_ASSERT(wcs[1].status == wc_status::flushed && wcs[1].wr_id == 51);
        CPPUNIT_ASSERT_EQUAL(f.qp->qpn(), wcs[1].qpn);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("completions"));
    }

    void test_numbers_unique()
    {
        soft_nic nic(test_config(false));
        auto pd = nic.alloc_pd();
        auto cq = nic.create_cq(8);
        std::vector<std::unique_ptr<queue_pair>> qps;
        std::set<uint32_t> qpns;
        for (int i = 0; i < 5; i++) {
            qps.push_back(pd->create_qp(i % 2 ? qp_type::rc : qp_type::uc, *cq, 1));
            CPPUNIT_ASSERT(qps.back()->qpn() >= 0x11);
            CPPUNIT_ASSERT(qps.back()->qpn() <= 0xFFFFFF);
            CPPUNIT_ASSERT(qpns.insert(qps.back()->qpn()).second);
        }
        const uint32_t freed = qps[1]->qpn();
        qps[1].reset();
        auto again = pd->create_qp(qp_type::uc, *cq, 1);
        CPPUNIT_ASSERT(again->qpn() != freed); // not reused at once (2^-24 by chance)
        CPPUNIT_ASSERT(qpns.insert(again->qpn()).second);

        std::vector<uint8_t> mem(4096);
        std::vector<std::unique_ptr<memory_region>> mrs;
        std::set<uint32_t> keys;
        auto pd2 = nic.alloc_pd();
        for (int i = 0; i < 20; i++) {
            auto& p = i % 2 ? pd : pd2;
            mrs.push_back(p->register_memory(mem.data(), mem.size(), access_local_write));
            CPPUNIT_ASSERT_EQUAL(mrs.back()->lkey(), mrs.back()->rkey());
            CPPUNIT_ASSERT(mrs.back()->rkey() != 0);
            CPPUNIT_ASSERT(keys.insert(mrs.back()->rkey()).second);
        }
    }

    void test_numbers_unpredictable()
    {
        // A peer that learnt one QPN or key must not be able to name another: numbers
        // are random, not counted, and differ between NICs and runs. (Each check
        // below fails by chance once in more than 10^5 runs.)
        auto numbers = [] {
            soft_nic nic(test_config(false));
            auto pd = nic.alloc_pd();
            auto cq = nic.create_cq(8);
            std::vector<uint8_t> mem(4096);
            std::vector<uint32_t> qpns, keys;
            for (int i = 0; i < 4; i++) {
                qpns.push_back(pd->create_qp(qp_type::uc, *cq, 1)->qpn());
                keys.push_back(
                    pd->register_memory(mem.data(), mem.size(), access_local_write)
                        ->rkey());
            }
            return std::make_pair(qpns, keys);
        };
        const auto [qpns_a, keys_a] = numbers();
        const auto [qpns_b, keys_b] = numbers();
        CPPUNIT_ASSERT(qpns_a != qpns_b);
        CPPUNIT_ASSERT(keys_a != keys_b);
        // Not counted up: rxe-style keys are index << 8 | a random byte.
        int consecutive = 0, counted_keys = 0;
        for (size_t i = 1; i < 4; i++) {
            consecutive += qpns_a[i] == qpns_a[i - 1] + 1;
            counted_keys += (keys_a[i] >> 8) == (keys_a[i - 1] >> 8) + 1;
        }
        CPPUNIT_ASSERT(consecutive < 3);
        CPPUNIT_ASSERT(counted_keys < 3);
        // The whole range is used: 32 QPNs all below 2^20 would be a 2^-128 chance.
        uint32_t highest = 0;
        for (int i = 0; i < 8; i++)
            highest = std::max({ highest, numbers().first[0], numbers().first[1] });
        CPPUNIT_ASSERT(highest >= (1u << 20));
    }

    void test_register_memory_rules()
    {
        soft_nic nic(test_config(false));
        auto pd = nic.alloc_pd();
        std::vector<uint8_t> mem(100);
        const unsigned rw = access_local_write | access_remote_write;
        CPPUNIT_ASSERT_THROW(pd->register_memory(nullptr, 100, rw),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(pd->register_memory(mem.data(), 0, rw),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(pd->register_memory(mem.data(), 100, access_remote_write),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(pd->register_memory(mem.data(), 100, 1u << 9),
                             std::invalid_argument);
        auto mr = pd->register_memory(mem.data(), 100, rw);
        CPPUNIT_ASSERT(mr->addr() == mem.data());
        CPPUNIT_ASSERT_EQUAL(size_t(100), mr->length());
    }

    void test_device_properties()
    {
        soft_nic nic(test_config(false));
        const socket_address a = nic.roce_address();
        CPPUNIT_ASSERT_EQUAL(0x7F000001u, a.ip());
        CPPUNIT_ASSERT(a.port() != 0);
        CPPUNIT_ASSERT(nic.name().find(a.to_string()) != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(-1, nic.numa_node());
        CPPUNIT_ASSERT_EQUAL(4096u, nic.max_path_mtu());
        CPPUNIT_ASSERT(nic.socket_buffer_bytes() >=
                       test_config(false).socket_buffer_bytes / 2);
        const counters c = nic.read_counters();
        for (const char* name : { "rx_datagrams",
                                  "rx_packets",
                                  "rx_bytes",
                                  "completions",
                                  "cq_overflow",
                                  "acks_sent",
                                  "naks_sent",
                                  "psn_resync",
                                  "message_aborted",
                                  "duplicate",
                                  "drop_bad_rkey",
                                  "drop_truncated",
                                  "drop_bad_ip_header" })
            CPPUNIT_ASSERT_MESSAGE(name, c.count(name) == 1 && c.at(name) == 0);
        for (size_t i = 1; i < rx_result_count; i++)
            CPPUNIT_ASSERT(c.count(to_string(static_cast<rx_result>(i))) == 1);
        soft_nic_config bad = test_config(false);
        bad.max_path_mtu = 1500;
        CPPUNIT_ASSERT_THROW(soft_nic{ bad }, std::invalid_argument);
        // Two NICs on one host get their own ports.
        soft_nic second(test_config(false));
        CPPUNIT_ASSERT(second.roce_address() != nic.roce_address());
    }

    void test_bound_to_any_address()
    {
        // Bound to 0.0.0.0, the NIC learns from IP_PKTINFO which address the peer
        // used; that is what the peer's ICRC covers.
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        soft_nic_config config = test_config(true);
        config.bind_to = socket_address::parse("0.0.0.0:0");
        soft_nic nic(config);
        auto pd = nic.alloc_pd();
        auto cq = nic.create_cq(4);
        std::vector<uint8_t> mem(256, 0);
        auto mr = pd->register_memory(
            mem.data(), mem.size(), access_local_write | access_remote_write);
        auto qp = pd->create_qp(qp_type::uc, *cq, 1);
        qp->to_init(access_remote_write);
        qp->to_rtr({ tx.local_address(), 1 }, 0, 1024);
        const socket_address to(0x7F000001, nic.roce_address().port());
        request r;
        r.opcode = roce::opcode::uc | roce::opcode::write_only;
        r.qpn = qp->qpn();
        r.va = reinterpret_cast<uintptr_t>(mem.data());
        r.rkey = mr->rkey();
        r.payload = pattern(64, 9);
        r.dma_length = 64;
        const auto bytes = build_udp(r, tx.local_address(), to);
        tx.send_to(bytes.data(), bytes.size(), to);
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (nic.read_counters().at("rx_datagrams") == 0 &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), nic.read_counters().at("rx_packets"));
        CPPUNIT_ASSERT(std::equal(r.payload.begin(), r.payload.end(), mem.begin()));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_objects);
