/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft NIC as receiver of the device's fetch notifications (docs/transmit.md): RC
// SEND ONLY (WITH IMMEDIATE), zero-length, on a QP that grants remote READ only. A fake
// requester (a UDP socket) sends them and checks the ACK/NAKs and the completions.

#include "qa_nic_fixture.h"
#include <cppunit/TestFixture.h>
#include <chrono>

using namespace qa_nic;
using namespace std::chrono_literals;

namespace {
constexpr uint8_t rc = roce::opcode::rc;
constexpr uint8_t send_imm = rc | roce::opcode::send_only_imm;
constexpr uint8_t send_plain = rc | roce::opcode::send_only;
constexpr unsigned mtu = 1024;

//! A TX QP: RC, remote READ only, over a READ-only ring; its peer a UDP socket.
struct send_setup {
    send_setup()
        : peer(socket_address::parse("127.0.0.1:0")),
          f(qp_type::rc,
            peer.local_address(),
            mtu,
            false,
            access_remote_read,
            access_remote_read)
    {
    }

    request send(uint8_t op, uint32_t psn, uint32_t imm, bool ack_req = true)
    {
        request r;
        r.opcode = op;
        r.qpn = f.qp->qpn();
        r.psn = psn;
        r.imm = imm;
        r.ack_req = ack_req;
        return r;
    }

    //! The next ACK/NAK from the NIC: syndrome, PSN, MSN as expected.
    void expect_ack(uint8_t syndrome, uint32_t psn, uint32_t msn)
    {
        uint8_t bytes[256];
        datagram d;
        d.data = bytes;
        d.capacity = sizeof(bytes);
        CPPUNIT_ASSERT(peer.receive(d, 1s));
        roce::packet p;
        CPPUNIT_ASSERT(roce::parse(bytes, d.length, p) == roce::parse_status::ok);
        CPPUNIT_ASSERT_EQUAL(int(rc | roce::opcode::acknowledge), int(p.base.opcode));
        CPPUNIT_ASSERT_EQUAL(int(syndrome), int(p.aeth_hdr.syndrome));
        CPPUNIT_ASSERT_EQUAL(psn, p.base.psn);
        CPPUNIT_ASSERT_EQUAL(msn, p.aeth_hdr.msn);
    }

    void expect_silence()
    {
        uint8_t bytes[256];
        datagram d;
        d.data = bytes;
        d.capacity = sizeof(bytes);
        CPPUNIT_ASSERT(!peer.receive(d, 50ms));
    }

    udp_socket peer;
    nic_fixture f;
};
} // namespace

class qa_soft_nic_send : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_nic_send);
    CPPUNIT_TEST(test_send_with_immediate_completes);
    CPPUNIT_TEST(test_send_without_immediate_completes);
    CPPUNIT_TEST(test_send_without_receive_is_rnr_naked);
    CPPUNIT_TEST(test_send_with_payload_is_refused);
    CPPUNIT_TEST(test_duplicate_send_not_executed_twice);
    CPPUNIT_TEST(test_send_ahead_naked);
    CPPUNIT_TEST(test_send_inside_write_message);
    CPPUNIT_TEST(test_send_between_reads);
    CPPUNIT_TEST(test_write_to_tx_qp_refused);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_send_with_immediate_completes()
    {
        send_setup s;
        auto& f = s.f;
        f.qp->post_receives(100, 3);
        // SEND needs no remote access right: the QP grants remote READ only.
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.send(send_imm, 0, 16)));
        s.expect_ack(roce::syndrome::ack_unlimited, 0, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.send(send_imm, 1, 32, false)));
        s.expect_silence(); // no AckReq, no ACK
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(2), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), wcs[0].wr_id);
        CPPUNIT_ASSERT_EQUAL(uint32_t(16), wcs[0].imm_data);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), wcs[0].byte_len);
        CPPUNIT_ASSERT(wcs[0].status == wc_status::success);
        CPPUNIT_ASSERT_EQUAL(f.qp->qpn(), wcs[0].qpn);
        CPPUNIT_ASSERT_EQUAL(uint64_t(101), wcs[1].wr_id);
        CPPUNIT_ASSERT_EQUAL(uint32_t(32), wcs[1].imm_data);
        CPPUNIT_ASSERT_EQUAL(1, f.qp->posted_receives());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("rx_bytes"));
        CPPUNIT_ASSERT(f.ring.unchanged());
        // The next ACK covers both messages (MSN 2).
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.send(send_imm, 2, 48)));
        s.expect_ack(roce::syndrome::ack_unlimited, 2, 3);
    }

    void test_send_without_immediate_completes()
    {
        send_setup s;
        s.f.qp->post_receives(7, 1);
        CPPUNIT_ASSERT(rx_result::accepted == s.f.send(s.send(send_plain, 0, 0)));
        s.expect_ack(roce::syndrome::ack_unlimited, 0, 1);
        const auto wcs = s.f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(1), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), wcs[0].wr_id);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), wcs[0].imm_data);
    }

    void test_send_without_receive_is_rnr_naked()
    {
        send_setup s;
        auto& f = s.f;
        expect_drop(
            f, s.send(send_imm, 0, 16), rx_result::drop_no_receive_wr, { "naks_sent" });
        s.expect_ack(roce::syndrome::rnr_nak | 12, 0, 0);
        // Not an error: the requester retries the same PSN once a receive is posted.
        CPPUNIT_ASSERT(f.qp->state() == qp_state::rts);
        f.qp->post_receives(1, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.send(send_imm, 0, 16)));
        s.expect_ack(roce::syndrome::ack_unlimited, 0, 1);
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.poll_all().size());
    }

    void test_send_with_payload_is_refused()
    {
        // The soft NIC's receive WRs have no buffer: a SEND with payload overflows it,
        // class C as in rxe (NAK invalid request, the WR completes in error, QP ERROR).
        send_setup s;
        auto& f = s.f;
        f.qp->post_receives(1, 2);
        auto r = s.send(send_imm, 0, 16);
        r.payload = pattern(8, 3);
        expect_drop(f, r, rx_result::drop_bad_length, { "naks_sent", "completions" });
        s.expect_ack(roce::syndrome::nak_invalid_request, 0, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(2), wcs.size());
        CPPUNIT_ASSERT(wcs[0].status == wc_status::remote_error);
        CPPUNIT_ASSERT(wcs[1].status == wc_status::flushed);
    }

    void test_duplicate_send_not_executed_twice()
    {
        send_setup s;
        auto& f = s.f;
        f.qp->post_receives(1, 4);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.send(send_imm, 0, 16)));
        s.expect_ack(roce::syndrome::ack_unlimited, 0, 1);
        // A go-back-N requester sends it again: re-ACKed, no second completion.
        CPPUNIT_ASSERT(rx_result::duplicate == f.send(s.send(send_imm, 0, 16)));
        s.expect_ack(roce::syndrome::ack_unlimited, 0, 1);
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.poll_all().size());
        CPPUNIT_ASSERT_EQUAL(3, f.qp->posted_receives());
    }

    void test_send_ahead_naked()
    {
        send_setup s;
        auto& f = s.f;
        f.qp->post_receives(1, 4);
        expect_drop(
            f, s.send(send_imm, 2, 16), rx_result::drop_psn_sequence, { "naks_sent" });
        s.expect_ack(roce::syndrome::nak_psn_sequence, 0, 0);
        CPPUNIT_ASSERT_EQUAL(4, f.qp->posted_receives());
    }

    void test_send_inside_write_message()
    {
        // A QP with remote write: a SEND between FIRST and LAST breaks the sequence.
        nic_fixture f(qp_type::rc,
                      socket_address::parse("10.0.0.2:49152"),
                      mtu,
                      false,
                      access_remote_write);
        f.qp->post_receives(1, 2);
        auto first = f.write(roce::opcode::write_first, 0, 0, pattern(mtu, 1));
        first.dma_length = 2 * mtu;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        f.ring.expect(0, first.payload);
        request r;
        r.opcode = send_imm;
        r.qpn = f.qp->qpn();
        r.psn = 1;
        expect_drop(f,
                    r,
                    rx_result::drop_opcode_sequence,
                    { "naks_sent", "completions", "message_aborted", "tx_errors" });
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
    }

    void test_send_between_reads()
    {
        // The device's PSN sequence: READ, SEND, READ share one PSN space.
        send_setup s;
        auto& f = s.f;
        f.qp->post_receives(1, 1);
        request read;
        read.opcode = rc | roce::opcode::read_request;
        read.qpn = f.qp->qpn();
        read.va = f.ring.va(0);
        read.rkey = f.mr->rkey();
        read.dma_length = 2 * mtu; // PSNs 0, 1
        CPPUNIT_ASSERT(rx_result::accepted == f.send(read));
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.send(send_imm, 2, 1)));
        read.psn = 3;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(read));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("reads"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), f.counter("read_responses_sent"));
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(1), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint32_t(1), wcs[0].imm_data);
    }

    void test_write_to_tx_qp_refused()
    {
        // The TX QP grants remote READ only: a WRITE to it is an invalid request, and
        // the TX ring (remote READ only) is never written.
        send_setup s;
        auto& f = s.f;
        expect_drop(f,
                    f.write(roce::opcode::write_only, 0, 0, pattern(64, 1)),
                    rx_result::drop_no_access,
                    { "naks_sent" });
        s.expect_ack(roce::syndrome::nak_invalid_request, 0, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        CPPUNIT_ASSERT(f.ring.unchanged());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_nic_send);
