/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hardware suite: opening the device, the objects' rules (registration, QP state
// machine, receive queue bounds, foreign CQs) and destruction in any order.

#include "qa_verbs_hw.h"
#include "soft_nic.h"
#include <algorithm>
#include <array>
#include <stdexcept>

using namespace qa_verbs;

class qa_verbs_device : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_device);
    CPPUNIT_TEST(test_open_by_address_and_interface);
    CPPUNIT_TEST(test_register_memory_rules);
    CPPUNIT_TEST(test_qp_state_machine);
    CPPUNIT_TEST(test_rc_qp_state_machine);
    CPPUNIT_TEST(test_receive_queue_bounds);
    CPPUNIT_TEST(test_foreign_cq_is_refused);
    CPPUNIT_TEST(test_destroy_in_any_order);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_open_by_address_and_interface()
    {
        verbs_device dev(test_device());
        const roce_gid_location& l = dev.location();
        CPPUNIT_ASSERT(dev.name().find(l.device) == 0);
        CPPUNIT_ASSERT_EQUAL(uint16_t(4791), dev.roce_address().port());
        CPPUNIT_ASSERT_EQUAL(l.ipv4, dev.roce_address().ip());
        CPPUNIT_ASSERT(valid_path_mtu(dev.max_path_mtu()));
        CPPUNIT_ASSERT(dev.numa_node() >= -1);
        const rdma_sysfs sysfs;
        CPPUNIT_ASSERT_EQUAL(sysfs.numa_node(l.device, l.netdev), dev.numa_node());
        const counters c = dev.read_counters();
        CPPUNIT_ASSERT(c.count("completions") && c.count("completion_errors"));
        CPPUNIT_ASSERT(c.count("wc_rem_access_err") && c.count("wc_wr_flush_err"));
        if (l.device.rfind("rxe", 0) == 0) // rxe has per-port hw_counters since 5.x
            CPPUNIT_ASSERT_MESSAGE("rxe without rcvd_pkts", c.count("rcvd_pkts"));

        // The same GID through its interface and through its address.
        CPPUNIT_ASSERT(!l.netdev.empty());
        verbs_device_config by_if;
        by_if.interface = l.netdev;
        verbs_device dev2(by_if);
        CPPUNIT_ASSERT_EQUAL(l.device, dev2.location().device);
        CPPUNIT_ASSERT_EQUAL(l.gid_index, dev2.location().gid_index);
        verbs_device_config by_ip;
        by_ip.ip = l.ipv4;
        CPPUNIT_ASSERT_EQUAL(l.gid_index, verbs_device(by_ip).location().gid_index);
    }

    void test_register_memory_rules()
    {
        verbs_device dev(test_device());
        auto pd = dev.alloc_pd();
        std::vector<uint8_t> buf(8192);
        CPPUNIT_ASSERT_THROW(pd->register_memory(nullptr, 64, access_local_write),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(pd->register_memory(buf.data(), 0, access_local_write),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(pd->register_memory(buf.data(), 64, access_remote_write),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(pd->register_memory(buf.data(), 64, 1u << 5),
                             std::invalid_argument);
        auto mr = pd->register_memory(
            buf.data(), buf.size(), access_local_write | access_remote_write);
        CPPUNIT_ASSERT_EQUAL(static_cast<void*>(buf.data()), mr->addr());
        CPPUNIT_ASSERT_EQUAL(buf.size(), mr->length());
        auto ro = pd->register_memory(buf.data(), 4096, access_remote_read);
        CPPUNIT_ASSERT(ro->rkey() != mr->rkey());
    }

    void check_state_machine(qp_type type)
    {
        verbs_device dev(test_device());
        auto pd = dev.alloc_pd();
        auto cq = dev.create_cq(16);
        CPPUNIT_ASSERT(cq->capacity() >= 16);
        auto qp = pd->create_qp(type, *cq, 4);
        CPPUNIT_ASSERT(qp->type() == type);
        CPPUNIT_ASSERT(qp->qpn() > 1 && qp->qpn() <= 0xFFFFFF);
        const remote_peer peer{ dev.roce_address(), 0x11 };
        const unsigned mtu = dev.max_path_mtu();
        CPPUNIT_ASSERT(qp->state() == qp_state::reset);
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 0, mtu), std::logic_error);
        CPPUNIT_ASSERT_THROW(qp->to_rts(0), std::logic_error);
        CPPUNIT_ASSERT_THROW(qp->to_init(access_local_write), std::invalid_argument);
        qp->to_init(access_remote_write);
        CPPUNIT_ASSERT(qp->state() == qp_state::init);
        qp->to_init(access_remote_write | access_remote_read); // INIT -> INIT
        CPPUNIT_ASSERT_THROW(qp->to_rts(0), std::logic_error);
        // Bad attributes leave the state as it was.
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 0, 8192), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 0, 1000), std::invalid_argument);
        if (mtu < 4096)
            CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 0, mtu * 2), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp->to_rtr(peer, 1u << 24, mtu), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp->to_rtr({ peer.address, 1u << 24 }, 0, mtu),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp->to_rtr({ socket_address(), 0x11 }, 0, mtu),
                             std::invalid_argument);
        CPPUNIT_ASSERT(qp->state() == qp_state::init);
        qp->post_receives(7, 2);
        qp->to_rtr(peer, 0x10, mtu);
        CPPUNIT_ASSERT(qp->state() == qp_state::rtr);
        // What the host tells a device that READs from it (TX_MAX_RD_ATOMIC).
        if (type == qp_type::rc)
            CPPUNIT_ASSERT(qp->max_dest_rd_atomic() >= 1 &&
                           qp->max_dest_rd_atomic() <= 16);
        CPPUNIT_ASSERT_THROW(qp->to_init(access_remote_write), std::logic_error);
        qp->to_rts(0x20);
        CPPUNIT_ASSERT(qp->state() == qp_state::rts);
        qp->to_rts(0x20); // RTS -> RTS with the same PSN: fine
        CPPUNIT_ASSERT_THROW(qp->to_rts(0x21), std::invalid_argument);
        CPPUNIT_ASSERT_EQUAL(2, qp->posted_receives());
        qp->to_reset();
        CPPUNIT_ASSERT(qp->state() == qp_state::reset);
        CPPUNIT_ASSERT_EQUAL(0, qp->posted_receives());
        // RESET drops receives without completions.
        work_completion wc;
        CPPUNIT_ASSERT_EQUAL(0, cq->poll(&wc, 1));
        // And the QP can be used again.
        qp->to_init(access_remote_write);
        qp->to_rtr(peer, 0, mtu);
        qp->to_rts(1);
        CPPUNIT_ASSERT(qp->state() == qp_state::rts);
    }
    void test_qp_state_machine() { check_state_machine(qp_type::uc); }
    void test_rc_qp_state_machine() { check_state_machine(qp_type::rc); }

    void test_receive_queue_bounds()
    {
        verbs_device dev(test_device());
        auto pd = dev.alloc_pd();
        auto cq = dev.create_cq(64);
        auto qp = pd->create_qp(qp_type::uc, *cq, 32);
        CPPUNIT_ASSERT_THROW(qp->post_receives(0, 1), std::logic_error); // RESET
        qp->to_init(access_remote_write);
        CPPUNIT_ASSERT_THROW(qp->post_receives(0, -1), std::invalid_argument);
        qp->post_receives(0, 0);
        CPPUNIT_ASSERT_EQUAL(0, qp->posted_receives());
        qp->post_receives(0, 20);
        qp->post_receives(20, 12); // exactly full, in one chained post each
        CPPUNIT_ASSERT_EQUAL(32, qp->posted_receives());
        CPPUNIT_ASSERT_THROW(qp->post_receives(32, 1), std::length_error);
        CPPUNIT_ASSERT_EQUAL(32, qp->posted_receives());
    }

    void test_foreign_cq_is_refused()
    {
        verbs_device dev(test_device());
        verbs_device other(test_device());
        auto pd = dev.alloc_pd();
        auto other_cq = other.create_cq(8);
        CPPUNIT_ASSERT_THROW(pd->create_qp(qp_type::uc, *other_cq, 4),
                             std::invalid_argument);
        soft_nic_config config;
        config.start_thread = false;
        soft_nic soft(config);
        auto soft_cq = soft.create_cq(8);
        CPPUNIT_ASSERT_THROW(pd->create_qp(qp_type::uc, *soft_cq, 4),
                             std::invalid_argument);
    }

    void test_destroy_in_any_order()
    {
        // Every order of dropping the five handles: the verbs objects must still be
        // destroyed children first (a parent kept alive by its children), without a
        // crash, a hang (unacknowledged CQ events) or EBUSY leaks.
        std::array<int, 5> order = { 0, 1, 2, 3, 4 };
        int orders = 0;
        do {
            std::unique_ptr<verbs_device> dev =
                std::make_unique<verbs_device>(test_device());
            std::unique_ptr<protection_domain> pd = dev->alloc_pd();
            std::unique_ptr<completion_queue> cq = dev->create_cq(8);
            std::vector<uint8_t> buf(4096);
            std::unique_ptr<memory_region> mr =
                pd->register_memory(buf.data(), buf.size(), access_local_write);
            std::unique_ptr<queue_pair> qp = pd->create_qp(qp_type::uc, *cq, 4);
            qp->to_init(access_remote_write);
            qp->post_receives(0, 4);
            // Leave an event taken but not yet acknowledged on some of them.
            if (orders % 2)
                cq->wait(std::chrono::microseconds(0));
            for (int which : order) {
                switch (which) {
                case 0:
                    dev.reset();
                    break;
                case 1:
                    pd.reset();
                    break;
                case 2:
                    cq.reset();
                    break;
                case 3:
                    mr.reset();
                    break;
                case 4:
                    // Still usable while the device and PD handles may be gone.
                    if (qp->state() != qp_state::reset)
                        qp->to_reset();
                    qp.reset();
                    break;
                }
            }
            orders++;
        } while (std::next_permutation(order.begin(), order.end()));
        CPPUNIT_ASSERT_EQUAL(120, orders);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_device);
