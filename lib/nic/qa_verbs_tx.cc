/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hardware suite: what tx_stream needs of the verbs backend (docs/transmit.md, "NICs"),
// through one device looped back to itself. The host side is made exactly as tx_stream
// makes it: an RC QP granting remote READ only, a ring MR registered for remote READ
// only. The other QP stands in for the SDR: it READs the ring and SENDs fetch
// notifications WITH IMMEDIATE.

#include "qa_verbs_hw.h"
#include <arpa/inet.h>
#include <system_error>
#include <algorithm>
#include <cstring>

using namespace qa_verbs;
using std::chrono::milliseconds;

namespace {

//! A TX ring stand-in: a pattern, registered with \p access (tx_stream: remote READ
//! only).
struct ring {
    std::vector<uint8_t> bytes;
    std::unique_ptr<memory_region> mr;
    ring(protection_domain& pd, size_t n, unsigned access) : bytes(pattern(n, 0x33))
    {
        mr = pd.register_memory(bytes.data(), bytes.size(), access);
    }
    uint64_t addr(size_t offset) const
    {
        return reinterpret_cast<uintptr_t>(bytes.data()) + offset;
    }
    bool intact() const { return bytes == pattern(bytes.size(), 0x33); }
};

//! Post one signaled RDMA READ of \p len bytes at \p remote_addr / \p rkey into
//! \p local (which \p local_mr covers with local write access).
void post_read(verbs_queue_pair& qp,
               const memory_region& local_mr,
               uint8_t* local,
               size_t len,
               uint64_t remote_addr,
               uint32_t rkey,
               uint64_t wr_id)
{
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uintptr_t>(local);
    sge.length = static_cast<uint32_t>(len);
    sge.lkey = local_mr.lkey();
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = rkey;
    ibv_send_wr* bad = nullptr;
    if (const int err = ibv_post_send(qp.native(), &wr, &bad))
        throw std::system_error(err, std::generic_category(), "ibv_post_send(READ)");
}

//! Post one signaled zero-length SEND WITH IMMEDIATE (the device's fetch notification).
void post_send_imm(verbs_queue_pair& qp, uint32_t imm, uint64_t wr_id)
{
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.num_sge = 0;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = htonl(imm);
    ibv_send_wr* bad = nullptr;
    if (const int err = ibv_post_send(qp.native(), &wr, &bad))
        throw std::system_error(err, std::generic_category(), "ibv_post_send(SEND)");
}

constexpr unsigned tx_ring_access = access_remote_read; // as tx_stream_setup.cc

} // namespace

class qa_verbs_tx : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_tx);
    CPPUNIT_TEST(test_read_only_ring_is_read);
    CPPUNIT_TEST(test_reads_in_flight_up_to_max_dest_rd_atomic);
    CPPUNIT_TEST(test_write_into_read_only_ring_refused_by_mr);
    CPPUNIT_TEST(test_write_refused_by_read_only_qp);
    CPPUNIT_TEST(test_send_with_imm_notifications);
    CPPUNIT_TEST(test_max_dest_rd_atomic_read_back);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_read_only_ring_is_read()
    {
        loopback lb;
        lb.connect(qp_type::rc, access_remote_read);
        ring r(*lb.pd, 64 * 1024, tx_ring_access);
        std::vector<uint8_t> got(3 * 8192, 0);
        auto got_mr = lb.pd->register_memory(got.data(), got.size(), access_local_write);
        // Messages of several packets (READ RESPONSE FIRST, MIDDLE, LAST), and one that
        // ends at the ring's last byte.
        const size_t len = 8192;
        post_read(*lb.sender, *got_mr, got.data(), len, r.addr(4096), r.mr->rkey(), 1);
        post_read(
            *lb.sender, *got_mr, got.data() + len, len, r.addr(20000), r.mr->rkey(), 2);
        post_read(*lb.sender,
                  *got_mr,
                  got.data() + 2 * len,
                  len,
                  r.addr(r.bytes.size() - len),
                  r.mr->rkey(),
                  3);
        for (uint64_t id = 1; id <= 3; id++) {
            const work_completion s = lb.sender_completion();
            CPPUNIT_ASSERT(s.status == wc_status::success);
            CPPUNIT_ASSERT_EQUAL(id, s.wr_id);
        }
        CPPUNIT_ASSERT(std::memcmp(got.data(), &r.bytes[4096], len) == 0);
        CPPUNIT_ASSERT(std::memcmp(got.data() + len, &r.bytes[20000], len) == 0);
        CPPUNIT_ASSERT(
            std::memcmp(got.data() + 2 * len, &r.bytes[r.bytes.size() - len], len) == 0);
        CPPUNIT_ASSERT(r.intact());
        // The responder made no completion: READs consume no receive WR.
        CPPUNIT_ASSERT(!next_completion(*lb.recv_cq, milliseconds(100)));
        CPPUNIT_ASSERT_EQUAL(loopback::receives, lb.receiver->posted_receives());
        CPPUNIT_ASSERT(lb.receiver->state() == qp_state::rts);
    }

    void test_reads_in_flight_up_to_max_dest_rd_atomic()
    {
        // The device keeps up to TX_MAX_RD_ATOMIC = max_dest_rd_atomic READs
        // outstanding: all of them are answered.
        loopback lb;
        lb.connect(qp_type::rc, access_remote_read);
        ring r(*lb.pd, 64 * 1024, tx_ring_access);
        const unsigned depth = std::min(lb.receiver->max_dest_rd_atomic(), 16u);
        CPPUNIT_ASSERT(depth >= 1);
        const size_t len = 1024;
        std::vector<uint8_t> got(depth * len, 0);
        auto got_mr = lb.pd->register_memory(got.data(), got.size(), access_local_write);
        for (unsigned i = 0; i < depth; i++)
            post_read(*lb.sender,
                      *got_mr,
                      got.data() + i * len,
                      len,
                      r.addr(i * 2 * len),
                      r.mr->rkey(),
                      100 + i);
        for (unsigned i = 0; i < depth; i++) {
            const work_completion s = lb.sender_completion();
            CPPUNIT_ASSERT(s.status == wc_status::success);
            CPPUNIT_ASSERT_EQUAL(uint64_t(100 + i), s.wr_id); // in order
        }
        for (unsigned i = 0; i < depth; i++)
            CPPUNIT_ASSERT(
                std::memcmp(got.data() + i * len, &r.bytes[i * 2 * len], len) == 0);
    }

    void test_write_into_read_only_ring_refused_by_mr()
    {
        // The QP would allow a WRITE here; the ring's MR alone refuses it (RC: the
        // writer sees a remote access error, nothing lands).
        loopback lb;
        lb.connect(qp_type::rc, access_remote_read | access_remote_write);
        ring r(*lb.pd, 16384, tx_ring_access);
        const counters before = lb.dev->read_counters();
        lb.write(*r.mr, r.addr(0), 1024, std::nullopt, 5);
        const work_completion s = lb.sender_completion();
        CPPUNIT_ASSERT(s.status == wc_status::remote_error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), s.wr_id);
        CPPUNIT_ASSERT(r.intact());
        CPPUNIT_ASSERT(lb.receiver->state() == qp_state::error);
        const counters after = lb.dev->read_counters();
        CPPUNIT_ASSERT(after.at("wc_rem_access_err") >=
                       before.at("wc_rem_access_err") + 1);
    }

    void test_write_refused_by_read_only_qp()
    {
        // tx_stream's QP grants remote READ only: a WRITE is refused even into an MR
        // that would take it.
        loopback lb;
        lb.connect(qp_type::rc, access_remote_read);
        ring r(
            *lb.pd, 16384, access_local_write | access_remote_write | access_remote_read);
        lb.write(*r.mr, r.addr(0), 1024, std::nullopt, 6);
        const work_completion s = lb.sender_completion();
        CPPUNIT_ASSERT(s.status == wc_status::remote_error);
        CPPUNIT_ASSERT(r.intact());
        CPPUNIT_ASSERT(lb.receiver->state() == qp_state::error);
    }

    void test_send_with_imm_notifications()
    {
        // The device's fetch notifications: zero-length SEND WITH IMMEDIATE, each
        // consuming one zero-length receive WR, completed with its immediate in host
        // byte order.
        loopback lb;
        lb.connect(qp_type::rc, access_remote_read);
        const uint32_t imms[] = { 15, 31, 0xFEDCBA98 };
        for (uint32_t i = 0; i < 3; i++)
            post_send_imm(*lb.sender, imms[i], 50 + i);
        for (uint32_t i = 0; i < 3; i++) {
            const work_completion s = lb.sender_completion();
            CPPUNIT_ASSERT(s.status == wc_status::success);
        }
        for (uint32_t i = 0; i < 3; i++) {
            const auto wc = next_completion(*lb.recv_cq, milliseconds(5000));
            CPPUNIT_ASSERT_MESSAGE("no receive completion", wc.has_value());
            CPPUNIT_ASSERT(wc->status == wc_status::success);
            CPPUNIT_ASSERT_EQUAL(uint64_t(1000 + i), wc->wr_id);
            CPPUNIT_ASSERT_EQUAL(imms[i], wc->imm_data);
            CPPUNIT_ASSERT_EQUAL(0u, wc->byte_len);
            CPPUNIT_ASSERT_EQUAL(lb.receiver->qpn(), wc->qpn);
        }
        CPPUNIT_ASSERT_EQUAL(loopback::receives - 3, lb.receiver->posted_receives());
        // Posted again as tx_stream does when half are used.
        lb.receiver->post_receives(2000, 3);
        CPPUNIT_ASSERT_EQUAL(loopback::receives, lb.receiver->posted_receives());
    }

    void test_max_dest_rd_atomic_read_back()
    {
        loopback lb;
        lb.connect(qp_type::rc, access_remote_read);
        auto* qp = dynamic_cast<verbs_queue_pair*>(lb.receiver.get());
        CPPUNIT_ASSERT(qp != nullptr);
        ibv_qp_attr attr{};
        ibv_qp_init_attr init{};
        CPPUNIT_ASSERT_EQUAL(
            0, ibv_query_qp(qp->native(), &attr, IBV_QP_MAX_DEST_RD_ATOMIC, &init));
        CPPUNIT_ASSERT(attr.max_dest_rd_atomic >= 1);
        CPPUNIT_ASSERT_EQUAL(unsigned(attr.max_dest_rd_atomic), qp->max_dest_rd_atomic());
        // UC has no READ responder.
        loopback uc;
        uc.connect(qp_type::uc);
        CPPUNIT_ASSERT_EQUAL(0u, uc.receiver->max_dest_rd_atomic());
        // Back in RESET, the value is what the next RTR asks for again.
        qp->to_reset();
        CPPUNIT_ASSERT(qp->max_dest_rd_atomic() >= 1);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_tx);
