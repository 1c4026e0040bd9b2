/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RC on the soft NIC: ACKs, duplicate re-ACKs, PSN-sequence NAKs, RNR NAKs and class C
// errors, with the ACK/NAKs captured on a real UDP socket standing in for the peer.

#include "qa_nic_fixture.h"
#include <cppunit/TestFixture.h>
#include <chrono>

using namespace qa_nic;
using namespace std::chrono_literals;

namespace {
constexpr uint8_t write_first = roce::opcode::write_first;
constexpr uint8_t write_middle = roce::opcode::write_middle;
constexpr uint8_t write_last = roce::opcode::write_last;
constexpr uint8_t write_only = roce::opcode::write_only;
constexpr uint8_t write_only_imm = roce::opcode::write_only_imm;

//! The peer: a UDP socket that receives the NIC's ACK/NAKs.
struct rc_setup {
    rc_setup()
        : peer(socket_address::parse("127.0.0.1:0")), f(qp_type::rc, peer.local_address())
    {
    }
    udp_socket peer;
    nic_fixture f;
};

struct ack_packet {
    uint8_t bytes[64];
    roce::packet p;
};

//! Wait for one ACK/NAK and check that it is a well-formed, correctly sealed ACKNOWLEDGE
//! from the NIC to the peer QP.
bool receive_ack(rc_setup& s, ack_packet& out, std::chrono::microseconds timeout = 1s)
{
    datagram d;
    d.data = out.bytes;
    d.capacity = sizeof(out.bytes);
    if (!s.peer.receive(d, timeout))
        return false;
    CPPUNIT_ASSERT(d.peer == s.f.nic.roce_address());
    CPPUNIT_ASSERT(roce::parse(out.bytes, d.length, out.p) == roce::parse_status::ok);
    CPPUNIT_ASSERT_EQUAL(int(roce::opcode::rc | roce::opcode::acknowledge),
                         int(out.p.base.opcode));
    CPPUNIT_ASSERT_EQUAL(0x000ABCu, out.p.base.dest_qp); // the peer QPN given at RTR
    CPPUNIT_ASSERT(out.p.has_aeth);
    CPPUNIT_ASSERT_EQUAL(size_t(0), out.p.payload_len);
    roce::ip_context ip;
    ip.src_ip = d.peer.ip();
    ip.src_port = d.peer.port();
    ip.dst_ip = s.peer.local_address().ip();
    ip.dst_port = s.peer.local_address().port();
    CPPUNIT_ASSERT_EQUAL(roce::compute_icrc(ip, out.bytes, d.length - roce::icrc_bytes),
                         out.p.icrc);
    return true;
}

void expect_ack(rc_setup& s, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
    ack_packet a;
    CPPUNIT_ASSERT(receive_ack(s, a));
    CPPUNIT_ASSERT_EQUAL(int(syndrome), int(a.p.aeth_hdr.syndrome));
    CPPUNIT_ASSERT_EQUAL(psn, a.p.base.psn);
    CPPUNIT_ASSERT_EQUAL(msn, a.p.aeth_hdr.msn);
}

void expect_silence(rc_setup& s)
{
    ack_packet a;
    CPPUNIT_ASSERT(!receive_ack(s, a, 50ms));
}
} // namespace

class qa_soft_nic_rc : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_nic_rc);
    CPPUNIT_TEST(test_ack_on_ack_req);
    CPPUNIT_TEST(test_multi_packet_acked_at_end);
    CPPUNIT_TEST(test_duplicate_reacked_not_executed);
    CPPUNIT_TEST(test_gap_naked_once);
    CPPUNIT_TEST(test_bad_rkey_is_class_c);
    CPPUNIT_TEST(test_bad_length_with_imm_is_class_c);
    CPPUNIT_TEST(test_opcode_sequence_is_class_c);
    CPPUNIT_TEST(test_rnr_nak_then_retry);
    CPPUNIT_TEST(test_unsupported_opcodes);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_ack_on_ack_req()
    {
        rc_setup s;
        auto& f = s.f;
        // Without AckReq, nothing is sent.
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0, 0, pattern(64, 1))));
        expect_silence(s);
        auto r = f.write(write_only, 1, 64, pattern(64, 2));
        r.ack_req = true;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        expect_ack(s, roce::syndrome::ack_unlimited, 1, 2);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("acks_sent"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("naks_sent"));
    }

    void test_multi_packet_acked_at_end()
    {
        rc_setup s;
        auto& f = s.f;
        const auto data = pattern(2048 + 5, 3);
        auto first = f.write(write_first, 0, 100, { data.begin(), data.begin() + 1024 });
        first.dma_length = static_cast<uint32_t>(data.size());
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        auto middle = first;
        middle.opcode = roce::opcode::rc | write_middle;
        middle.psn = 1;
        middle.payload.assign(data.begin() + 1024, data.begin() + 2048);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(middle));
        auto last = middle;
        last.opcode = roce::opcode::rc | write_last;
        last.psn = 2;
        last.ack_req = true;
        last.payload.assign(data.begin() + 2048, data.end());
        CPPUNIT_ASSERT(rx_result::accepted == f.send(last));
        expect_ack(s, roce::syndrome::ack_unlimited, 2, 1); // one message done
        f.ring.expect(100, data);
        CPPUNIT_ASSERT(f.ring.unchanged());
    }

    void test_duplicate_reacked_not_executed()
    {
        rc_setup s;
        auto& f = s.f;
        const auto a = pattern(128, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(f.write(write_only, 0, 0, a)));
        CPPUNIT_ASSERT(rx_result::accepted == f.send(f.write(write_only, 1, 256, a)));
        f.ring.expect(0, a);
        f.ring.expect(256, a);
        // A retransmission of PSN 0 with other content: re-ACKed (without AckReq, with
        // the last PSN executed), not written.
        const auto b = pattern(128, 2);
        expect_drop(
            f, f.write(write_only, 0, 0, b), rx_result::duplicate, { "acks_sent" });
        expect_ack(s, roce::syndrome::ack_unlimited, 1, 2);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("duplicate"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("acks_sent"));
        // The expected PSN did not move.
        CPPUNIT_ASSERT(rx_result::accepted == f.send(f.write(write_only, 2, 512, b)));
    }

    void test_gap_naked_once()
    {
        rc_setup s;
        auto& f = s.f;
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0, 0, pattern(64, 1))));
        f.ring.snapshot();
        // PSN 1 lost: one NAK with the expected PSN ...
        expect_drop(f,
                    f.write(write_only, 2, 64, pattern(64, 2)),
                    rx_result::drop_psn_sequence,
                    { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_psn_sequence, 1, 1);
        // ... then silence until it arrives.
        expect_drop(
            f, f.write(write_only, 3, 128, pattern(64, 3)), rx_result::drop_psn_sequence);
        expect_silence(s);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("naks_sent"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("drop_psn_sequence"));
        // The requester goes back to 1; a later gap is NAKed again.
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 1, 64, pattern(64, 4))));
        f.ring.snapshot();
        expect_drop(f,
                    f.write(write_only, 5, 64, pattern(64, 5)),
                    rx_result::drop_psn_sequence,
                    { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_psn_sequence, 2, 2);
    }

    void test_bad_rkey_is_class_c()
    {
        rc_setup s;
        auto& f = s.f;
        f.qp->post_receives(10, 3);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        r.rkey ^= 0x80;
        expect_drop(f, r, rx_result::drop_bad_rkey, { "naks_sent", "completions" });
        expect_ack(s, roce::syndrome::nak_remote_access, 0, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        // Verbs flush the posted receives when a QP enters ERROR.
        work_completion wc[4];
        CPPUNIT_ASSERT_EQUAL(3, f.cq->poll(wc, 4));
        for (int i = 0; i < 3; i++) {
            CPPUNIT_ASSERT(wc[i].status == wc_status::flushed);
            CPPUNIT_ASSERT_EQUAL(uint64_t(10 + i), wc[i].wr_id);
        }
        CPPUNIT_ASSERT_EQUAL(0, f.qp->posted_receives());
        // Every later request drops, good or not, until the host resets the QP.
        expect_drop(
            f, f.write(write_only, 0, 0, pattern(64, 2)), rx_result::drop_qp_state);
        expect_drop(
            f, f.write(write_only, 1, 0, pattern(64, 2)), rx_result::drop_qp_state);
        CPPUNIT_ASSERT_THROW(f.qp->to_rtr({ s.peer.local_address(), 1 }, 0, 1024),
                             std::logic_error);
        f.qp->to_reset();
        f.qp->to_init(access_remote_write);
        f.qp->to_rtr({ s.peer.local_address(), 0xABC }, 0, 1024);
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0, 0, pattern(64, 3))));
    }

    void test_bad_length_with_imm_is_class_c()
    {
        rc_setup s;
        auto& f = s.f;
        f.qp->post_receives(20, 2);
        auto r = f.write(write_only_imm, 0, 0, pattern(64, 1));
        r.dma_length = 65;
        expect_drop(f, r, rx_result::drop_bad_length, { "naks_sent", "completions" });
        expect_ack(s, roce::syndrome::nak_invalid_request, 0, 0);
        // The WR the request took completes in error; the other one is flushed.
        work_completion wc[4];
        CPPUNIT_ASSERT_EQUAL(2, f.cq->poll(wc, 4));
        CPPUNIT_ASSERT(wc[0].status == wc_status::remote_error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(20), wc[0].wr_id);
        CPPUNIT_ASSERT(wc[1].status == wc_status::flushed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(21), wc[1].wr_id);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        // Out of bounds is a remote access error, like a bad rkey.
        rc_setup t;
        expect_drop(t.f,
                    t.f.write(write_only, 0, t.f.ring.bytes - 8, pattern(64, 1)),
                    rx_result::drop_out_of_bounds,
                    { "naks_sent" });
        expect_ack(t, roce::syndrome::nak_remote_access, 0, 0);
        CPPUNIT_ASSERT(t.f.qp->state() == qp_state::error);
    }

    void test_opcode_sequence_is_class_c()
    {
        rc_setup s;
        auto& f = s.f;
        auto first = f.write(write_first, 0, 0, pattern(1024, 1));
        first.dma_length = 4096;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        f.ring.snapshot();
        // A new message before the old one ended.
        expect_drop(f,
                    f.write(write_only, 1, 8192, pattern(64, 2)),
                    rx_result::drop_opcode_sequence,
                    { "naks_sent", "message_aborted" });
        expect_ack(s, roce::syndrome::nak_invalid_request, 1, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("message_aborted"));
        // A MIDDLE without a FIRST is a class C error on RC too.
        rc_setup t;
        expect_drop(t.f,
                    t.f.write(write_middle, 0, 0, pattern(1024, 3)),
                    rx_result::drop_missing_reth,
                    { "naks_sent" });
        expect_ack(t, roce::syndrome::nak_invalid_request, 0, 0);
        CPPUNIT_ASSERT(t.f.qp->state() == qp_state::error);
        // So is a QP without remote write access.
        udp_socket peer(socket_address::parse("127.0.0.1:0"));
        nic_fixture g(qp_type::rc, peer.local_address(), 1024, false, access_remote_read);
        expect_drop(g,
                    g.write(write_only, 0, 0, pattern(64, 1)),
                    rx_result::drop_no_access,
                    { "naks_sent" });
        CPPUNIT_ASSERT(g.qp->state() == qp_state::error);
    }

    void test_rnr_nak_then_retry()
    {
        rc_setup s;
        auto& f = s.f;
        auto first = f.write(write_first, 0, 0, pattern(1024, 1));
        first.dma_length = 1024 + 16;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        auto last = first;
        last.opcode = roce::opcode::rc | roce::opcode::write_last_imm;
        last.psn = 1;
        last.imm = 0x1234;
        last.payload = pattern(16, 2);
        f.ring.snapshot();
        expect_drop(f, last, rx_result::drop_no_receive_wr, { "naks_sent" });
        expect_ack(s, uint8_t(roce::syndrome::rnr_nak | 12), 1, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::rts); // RNR is not an error
        // The requester retries the same packet once a receive is posted.
        f.qp->post_receives(99, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(last));
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(1), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(99), wcs[0].wr_id);
        CPPUNIT_ASSERT_EQUAL(uint32_t(1040), wcs[0].byte_len);
        CPPUNIT_ASSERT_EQUAL(0x1234u, wcs[0].imm_data);
    }

    void test_unsupported_opcodes()
    {
        rc_setup s;
        auto& f = s.f;
        // A READ RESPONSE addressed to us (we have no requester): dropped, silently,
        // before the PSN check (qa_soft_nic_read covers READ REQUESTs).
        request response;
        response.opcode = roce::opcode::rc | roce::opcode::read_response_only;
        response.qpn = f.qp->qpn();
        response.payload = pattern(8, 1);
        expect_drop(f, response, rx_result::drop_unsupported);
        expect_silence(s);
        // Nor may an ACK touch the PSN.
        request ack;
        ack.opcode = roce::opcode::rc | roce::opcode::acknowledge;
        ack.qpn = f.qp->qpn();
        ack.psn = 7;
        expect_drop(f, ack, rx_result::drop_unsupported);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::rts);
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0, 0, pattern(8, 1))));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_nic_rc);
