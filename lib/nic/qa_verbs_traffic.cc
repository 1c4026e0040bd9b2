/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hardware suite: real RDMA WRITE WITH IMMEDIATE through one device looped back to
// itself (UC and RC), MR and QP access enforced as asked, CQ wait / interrupt, and
// the counters.

#include "qa_verbs_hw.h"
#include <atomic>
#include <cstring>
#include <future>
#include <thread>

using namespace qa_verbs;
using std::chrono::milliseconds;
using clock_type = std::chrono::steady_clock;

namespace {

//! A registered destination buffer with guard zones: bytes nobody wrote stay 0xEE.
struct target {
    std::vector<uint8_t> bytes;
    std::unique_ptr<memory_region> mr;
    target(protection_domain& pd, size_t n, unsigned access) : bytes(n, 0xEE)
    {
        mr = pd.register_memory(bytes.data(), bytes.size(), access);
    }
    uint64_t addr(size_t offset) const
    {
        return reinterpret_cast<uintptr_t>(bytes.data()) + offset;
    }
    bool untouched(size_t from, size_t to) const
    {
        return std::all_of(bytes.begin() + from, bytes.begin() + to, [](uint8_t b) {
            return b == 0xEE;
        });
    }
};

constexpr unsigned rw = access_local_write | access_remote_write;

} // namespace

class qa_verbs_traffic : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_traffic);
    CPPUNIT_TEST(test_uc_write_with_imm);
    CPPUNIT_TEST(test_rc_write_with_imm);
    CPPUNIT_TEST(test_mr_without_remote_write_rc);
    CPPUNIT_TEST(test_mr_without_remote_write_uc);
    CPPUNIT_TEST(test_qp_without_remote_write_uc);
    CPPUNIT_TEST(test_wait_wakes_on_completion);
    CPPUNIT_TEST(test_wait_returns_for_queued_completion);
    CPPUNIT_TEST(test_wait_timeout_and_interrupt);
    CPPUNIT_TEST_SUITE_END();

public:
    void check_write_with_imm(qp_type type)
    {
        loopback lb;
        lb.connect(type);
        target t(*lb.pd, 64 * 1024, rw);
        const counters before = lb.dev->read_counters();
        // Three messages, each several packets at small MTUs, then a plain WRITE.
        const size_t len = 8192;
        for (uint32_t m = 0; m < 3; m++)
            lb.write(*t.mr, t.addr(4096 + m * len), len, 0xC0DE0000 + m, m);
        lb.write(*t.mr, t.addr(4096 + 3 * len), 512, std::nullopt, 3);
        for (uint32_t m = 0; m < 4; m++) {
            const work_completion s = lb.sender_completion();
            CPPUNIT_ASSERT(s.status == wc_status::success);
            CPPUNIT_ASSERT_EQUAL(uint64_t(m), s.wr_id);
            CPPUNIT_ASSERT_EQUAL(lb.sender->qpn(), s.qpn);
        }
        for (uint32_t m = 0; m < 3; m++) {
            const auto wc = next_completion(*lb.recv_cq, milliseconds(5000));
            CPPUNIT_ASSERT_MESSAGE("no receive completion", wc.has_value());
            CPPUNIT_ASSERT(wc->status == wc_status::success);
            CPPUNIT_ASSERT_EQUAL(uint64_t(1000 + m), wc->wr_id);
            CPPUNIT_ASSERT_EQUAL(uint32_t(len), wc->byte_len);  // the whole message
            CPPUNIT_ASSERT_EQUAL(0xC0DE0000 + m, wc->imm_data); // host byte order
            CPPUNIT_ASSERT_EQUAL(lb.receiver->qpn(), wc->qpn);
        }
        // The plain WRITE consumed no receive WR and made no completion.
        CPPUNIT_ASSERT(!next_completion(*lb.recv_cq, milliseconds(100)));
        CPPUNIT_ASSERT_EQUAL(loopback::receives - 3, lb.receiver->posted_receives());
        for (size_t m = 0; m < 3; m++)
            CPPUNIT_ASSERT(std::memcmp(&t.bytes[4096 + m * len], lb.src.data(), len) ==
                           0);
        CPPUNIT_ASSERT(std::memcmp(&t.bytes[4096 + 3 * len], lb.src.data(), 512) == 0);
        CPPUNIT_ASSERT(t.untouched(0, 4096));
        CPPUNIT_ASSERT(t.untouched(4096 + 3 * len + 512, t.bytes.size()));

        // The kernel serves hw_counters from a cache: wait until it has expired.
        std::this_thread::sleep_for(lb.dev->hw_counters_lifespan() + milliseconds(20));
        const counters after = lb.dev->read_counters();
        CPPUNIT_ASSERT_EQUAL(before.at("completions") + 7, after.at("completions"));
        CPPUNIT_ASSERT_EQUAL(before.at("completion_errors"),
                             after.at("completion_errors"));
        if (before.count("rcvd_pkts")) {
            const uint64_t packets = 3 * (len / lb.dev->max_path_mtu()) + 1;
            // rxe counts requests and, on RC, the ACKs it receives as the sender.
            CPPUNIT_ASSERT(after.at("rcvd_pkts") - before.at("rcvd_pkts") >= packets);
        }
    }
    void test_uc_write_with_imm() { check_write_with_imm(qp_type::uc); }
    void test_rc_write_with_imm() { check_write_with_imm(qp_type::rc); }

    void test_mr_without_remote_write_rc()
    {
        // RC makes the refusal visible to the sender: a remote access error.
        loopback lb;
        lb.connect(qp_type::rc);
        target t(*lb.pd, 16384, access_local_write); // exactly what was asked: no remote
        const counters before = lb.dev->read_counters();
        lb.write(*t.mr, t.addr(0), 1024, 7, 9);
        const work_completion s = lb.sender_completion();
        CPPUNIT_ASSERT(s.status == wc_status::remote_error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(9), s.wr_id);
        CPPUNIT_ASSERT(t.untouched(0, t.bytes.size()));
        // The responder QP went to ERROR (class C): its receive WR completes in error
        // (rxe: with IBV_WC_REM_ACCESS_ERR too), the others are flushed.
        const auto r = next_completion(*lb.recv_cq, milliseconds(2000));
        CPPUNIT_ASSERT(r.has_value() && r->status != wc_status::success);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), r->wr_id);
        CPPUNIT_ASSERT(lb.receiver->state() == qp_state::error);
        const auto flushed = next_completion(*lb.recv_cq, milliseconds(2000));
        CPPUNIT_ASSERT(flushed.has_value() && flushed->status == wc_status::flushed);
        const counters after = lb.dev->read_counters();
        CPPUNIT_ASSERT(after.at("wc_rem_access_err") >=
                       before.at("wc_rem_access_err") + 1);
        CPPUNIT_ASSERT_EQUAL(before.at("wc_wr_flush_err") + 1,
                             after.at("wc_wr_flush_err"));
        CPPUNIT_ASSERT_EQUAL(before.at("completion_errors") + 3,
                             after.at("completion_errors"));
        // Flushed receives count as consumed.
        CPPUNIT_ASSERT_EQUAL(loopback::receives - 2, lb.receiver->posted_receives());
    }

    void test_mr_without_remote_write_uc()
    {
        // UC: dropped silently; the same QP then still accepts a good WRITE.
        loopback lb;
        lb.connect(qp_type::uc);
        target bad(*lb.pd, 16384, access_local_write);
        target good(*lb.pd, 16384, rw);
        lb.write(*bad.mr, bad.addr(0), 1024, 1, 1);
        CPPUNIT_ASSERT(lb.sender_completion().status == wc_status::success); // UC: local
        CPPUNIT_ASSERT(!next_completion(*lb.recv_cq, milliseconds(300)));
        CPPUNIT_ASSERT(bad.untouched(0, bad.bytes.size()));
        lb.write(*good.mr, good.addr(0), 1024, 2, 2);
        lb.sender_completion();
        const auto wc = next_completion(*lb.recv_cq, milliseconds(5000));
        CPPUNIT_ASSERT(wc.has_value() && wc->status == wc_status::success);
        CPPUNIT_ASSERT_EQUAL(2u, wc->imm_data);
        CPPUNIT_ASSERT(std::memcmp(good.bytes.data(), lb.src.data(), 1024) == 0);
    }

    void test_qp_without_remote_write_uc()
    {
        // The QP's access (to_init) is enforced as well as the MR's.
        loopback lb;
        lb.connect(qp_type::uc, access_remote_read);
        target t(*lb.pd, 16384, rw);
        lb.write(*t.mr, t.addr(0), 1024, 1, 1);
        lb.sender_completion();
        CPPUNIT_ASSERT(!next_completion(*lb.recv_cq, milliseconds(300)));
        CPPUNIT_ASSERT(t.untouched(0, t.bytes.size()));
    }

    void test_wait_wakes_on_completion()
    {
        loopback lb;
        lb.connect(qp_type::uc);
        target t(*lb.pd, 16384, rw);
        work_completion wc;
        CPPUNIT_ASSERT_EQUAL(0, lb.recv_cq->poll(&wc, 1));
        std::atomic<bool> waiting{ false };
        auto woke = std::async(std::launch::async, [&] {
            waiting = true;
            const auto t0 = clock_type::now();
            const bool r = lb.recv_cq->wait(std::chrono::seconds(20));
            return std::make_pair(r, clock_type::now() - t0);
        });
        while (!waiting)
            std::this_thread::yield();
        std::this_thread::sleep_for(milliseconds(200)); // let it block in poll()
        lb.write(*t.mr, t.addr(0), 256, 42, 1);
        const auto [result, took] = woke.get();
        CPPUNIT_ASSERT(result);
        CPPUNIT_ASSERT(took < std::chrono::seconds(10));
        CPPUNIT_ASSERT_EQUAL(1, lb.recv_cq->poll(&wc, 1)); // and it is there to poll
        CPPUNIT_ASSERT_EQUAL(42u, wc.imm_data);
        // Many wait/poll rounds: every completion wakes a wait (no lost wake-ups, and
        // the events are acknowledged in batches without blocking).
        for (uint32_t i = 0; i < 3 * loopback::receives; i++) {
            if (lb.receiver->posted_receives() == 0)
                lb.receiver->post_receives(2000 + i, loopback::receives);
            lb.write(*t.mr, t.addr(0), 64, i, 10 + i);
            CPPUNIT_ASSERT(lb.recv_cq->wait(std::chrono::seconds(10)));
            CPPUNIT_ASSERT_EQUAL(1, lb.recv_cq->poll(&wc, 1));
            CPPUNIT_ASSERT_EQUAL(i, wc.imm_data);
            lb.sender_completion();
        }
    }

    void test_wait_returns_for_queued_completion()
    {
        // Not polled before wait(): the arm-then-poll in wait() finds it (no event
        // would come for it), and poll() hands it out afterwards.
        loopback lb;
        lb.connect(qp_type::uc);
        target t(*lb.pd, 16384, rw);
        lb.write(*t.mr, t.addr(0), 256, 5, 1);
        lb.sender_completion();
        std::this_thread::sleep_for(milliseconds(200));
        CPPUNIT_ASSERT(lb.recv_cq->wait(milliseconds(50)));
        work_completion wc[4];
        CPPUNIT_ASSERT_EQUAL(1, lb.recv_cq->poll(wc, 4));
        CPPUNIT_ASSERT_EQUAL(5u, wc[0].imm_data);
        CPPUNIT_ASSERT_EQUAL(0, lb.recv_cq->poll(wc, 4));
    }

    void test_wait_timeout_and_interrupt()
    {
        verbs_device dev(test_device());
        auto cq = dev.create_cq(8);
        auto t0 = clock_type::now();
        CPPUNIT_ASSERT(!cq->wait(milliseconds(100)));
        CPPUNIT_ASSERT(clock_type::now() - t0 >= milliseconds(100));
        // interrupt() wakes a waiting thread promptly.
        auto woke = std::async(std::launch::async, [&] {
            const auto start = clock_type::now();
            const bool r = cq->wait(std::chrono::seconds(30));
            return std::make_pair(r, clock_type::now() - start);
        });
        std::this_thread::sleep_for(milliseconds(200));
        cq->interrupt();
        const auto [result, took] = woke.get();
        CPPUNIT_ASSERT(!result);
        CPPUNIT_ASSERT(took < std::chrono::seconds(10));
        // Latched: an interrupt with no waiter makes the next wait return at once,
        // and only that one.
        cq->interrupt();
        t0 = clock_type::now();
        CPPUNIT_ASSERT(!cq->wait(std::chrono::seconds(30)));
        CPPUNIT_ASSERT(clock_type::now() - t0 < std::chrono::seconds(5));
        t0 = clock_type::now();
        CPPUNIT_ASSERT(!cq->wait(milliseconds(100)));
        CPPUNIT_ASSERT(clock_type::now() - t0 >= milliseconds(100));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_traffic);
