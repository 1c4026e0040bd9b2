/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft NIC as RC READ responder (docs/transmit.md): a fake requester, a UDP socket
// building READ REQUESTs with lib/roce, reads a ramp from a READ-only region and checks
// every response packet (opcode, PSN, AETH, payload, ICRC) and every refusal.

#include "qa_nic_fixture.h"
#include "soft_queue_pair.h"
#include <cppunit/TestFixture.h>
#include <chrono>

using namespace qa_nic;
using namespace std::chrono_literals;

namespace {
constexpr uint8_t rc = roce::opcode::rc;
constexpr uint8_t first_op = rc | roce::opcode::read_response_first;
constexpr uint8_t middle_op = rc | roce::opcode::read_response_middle;
constexpr uint8_t last_op = rc | roce::opcode::read_response_last;
constexpr uint8_t only_op = rc | roce::opcode::read_response_only;
constexpr unsigned mtu = 1024;
constexpr uint32_t peer_qpn = 0x000ABC;

//! The requester: a UDP socket, and a soft NIC whose RC QP grants remote read over a
//! READ-only MR holding a ramp (unless told otherwise).
struct read_setup {
    explicit read_setup(unsigned qp_access = access_remote_write | access_remote_read,
                        unsigned mr_access = access_remote_read)
        : peer(socket_address::parse("127.0.0.1:0")),
          f(qp_type::rc, peer.local_address(), mtu, false, qp_access, mr_access)
    {
        for (size_t i = 0; i < f.ring.bytes; i++)
            f.ring.data()[i] = static_cast<uint8_t>(i ^ (i >> 8));
        f.ring.snapshot();
    }

    request read(uint32_t psn, size_t offset, uint32_t length)
    {
        request r;
        r.opcode = rc | roce::opcode::read_request;
        r.qpn = f.qp->qpn();
        r.psn = psn;
        r.va = f.ring.va(offset);
        r.rkey = f.mr->rkey();
        r.dma_length = length;
        return r;
    }

    std::vector<uint8_t> ramp(size_t offset, size_t length)
    {
        return { f.ring.data() + offset, f.ring.data() + offset + length };
    }

    udp_socket peer;
    nic_fixture f;
};

struct response {
    uint8_t bytes[mtu + 64];
    roce::packet p;
};

//! Wait for one packet from the NIC and check that it is well formed and sealed for
//! the peer QP.
bool receive(read_setup& s, response& out, std::chrono::microseconds timeout = 1s)
{
    datagram d;
    d.data = out.bytes;
    d.capacity = sizeof(out.bytes);
    if (!s.peer.receive(d, timeout))
        return false;
    CPPUNIT_ASSERT(d.peer == s.f.nic.roce_address());
    CPPUNIT_ASSERT(roce::parse(out.bytes, d.length, out.p) == roce::parse_status::ok);
    CPPUNIT_ASSERT_EQUAL(peer_qpn, out.p.base.dest_qp);
    CPPUNIT_ASSERT_EQUAL(int(roce::pad_for(out.p.payload_len)),
                         int(out.p.base.pad_count));
    for (size_t i = 0; i < out.p.base.pad_count; i++)
        CPPUNIT_ASSERT_EQUAL(0, int(out.p.payload[out.p.payload_len + i]));
    roce::ip_context ip;
    ip.src_ip = d.peer.ip();
    ip.src_port = d.peer.port();
    ip.dst_ip = s.peer.local_address().ip();
    ip.dst_port = s.peer.local_address().port();
    CPPUNIT_ASSERT_EQUAL(roce::compute_icrc(ip, out.bytes, d.length - roce::icrc_bytes),
                         out.p.icrc);
    return true;
}

/*!
 * Receive the \p packets responses of one READ (or replay) starting at \p psn, check
 * opcodes, PSNs and AETH (syndrome 0x1F, \p msn), and return the bytes they carried.
 */
std::vector<uint8_t> receive_read(
    read_setup& s, uint32_t psn, size_t packets, uint32_t msn, bool from_start = true)
{
    std::vector<uint8_t> data;
    for (size_t i = 0; i < packets; i++) {
        response r;
        CPPUNIT_ASSERT(receive(s, r));
        const bool last = i + 1 == packets;
        uint8_t want = last ? last_op : middle_op;
        if (i == 0 && from_start)
            want = last ? only_op : first_op;
        CPPUNIT_ASSERT_EQUAL(int(want), int(r.p.base.opcode));
        CPPUNIT_ASSERT_EQUAL((psn + uint32_t(i)) & 0xFFFFFFu, r.p.base.psn);
        CPPUNIT_ASSERT_EQUAL(want != middle_op, r.p.has_aeth);
        if (r.p.has_aeth) {
            CPPUNIT_ASSERT_EQUAL(int(roce::syndrome::ack_unlimited),
                                 int(r.p.aeth_hdr.syndrome));
            CPPUNIT_ASSERT_EQUAL(msn, r.p.aeth_hdr.msn);
        }
        // Every packet but the last is exactly one path MTU.
        if (!last)
            CPPUNIT_ASSERT_EQUAL(size_t(mtu), r.p.payload_len);
        else
            CPPUNIT_ASSERT(r.p.payload_len <= mtu);
        data.insert(data.end(), r.p.payload, r.p.payload + r.p.payload_len);
    }
    return data;
}

void expect_ack(read_setup& s, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
    response r;
    CPPUNIT_ASSERT(receive(s, r));
    CPPUNIT_ASSERT_EQUAL(int(rc | roce::opcode::acknowledge), int(r.p.base.opcode));
    CPPUNIT_ASSERT_EQUAL(int(syndrome), int(r.p.aeth_hdr.syndrome));
    CPPUNIT_ASSERT_EQUAL(psn, r.p.base.psn);
    CPPUNIT_ASSERT_EQUAL(msn, r.p.aeth_hdr.msn);
}

void expect_silence(read_setup& s)
{
    response r;
    CPPUNIT_ASSERT(!receive(s, r, 50ms));
}

soft_queue_pair& soft_qp(nic_fixture& f) { return dynamic_cast<soft_queue_pair&>(*f.qp); }
} // namespace

class qa_soft_nic_read : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_nic_read);
    CPPUNIT_TEST(test_read_lengths_bit_exact);
    CPPUNIT_TEST(test_read_across_end_refused);
    CPPUNIT_TEST(test_lost_response_replayed);
    CPPUNIT_TEST(test_read_ahead_naked);
    CPPUNIT_TEST(test_wrong_rkey);
    CPPUNIT_TEST(test_rx_ring_without_read_access);
    CPPUNIT_TEST(test_qp_without_read_access);
    CPPUNIT_TEST(test_write_to_read_only_mr);
    CPPUNIT_TEST(test_length_over_2g);
    CPPUNIT_TEST(test_read_during_write_message);
    CPPUNIT_TEST(test_replay_window);
    CPPUNIT_TEST(test_replay_must_be_a_tail);
    CPPUNIT_TEST(test_max_dest_rd_atomic_attribute);
    CPPUNIT_TEST(test_read_on_uc);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_read_lengths_bit_exact()
    {
        read_setup s;
        auto& f = s.f;
        const uint32_t lengths[] = { 0, 1, mtu - 1, mtu, mtu + 1, 10 * mtu + 3 };
        uint32_t psn = 0;
        uint32_t msn = 0;
        size_t offset = 5;
        uint64_t packets_total = 0;
        uint64_t bytes_total = 0;
        for (uint32_t length : lengths) {
            CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(psn, offset, length)));
            const uint32_t packets = length == 0 ? 1 : (length + mtu - 1) / mtu;
            msn++; // a READ is a message; its responses carry the MSN counting it
            const auto got = receive_read(s, psn, packets, msn);
            CPPUNIT_ASSERT(s.ramp(offset, length) == got);
            psn += packets; // the next request's PSN: req_psn + N
            packets_total += packets;
            bytes_total += length;
            offset += length + 3;
        }
        expect_silence(s);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), f.counter("reads"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), f.counter("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(packets_total, f.counter("read_responses_sent"));
        CPPUNIT_ASSERT_EQUAL(bytes_total, f.counter("tx_bytes"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("rx_bytes"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("acks_sent"));
        CPPUNIT_ASSERT(f.ring.unchanged());
        // The PSN moved by N per READ: a WRITE-less QP still expects the next PSN.
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(psn, 0, 4)));
        CPPUNIT_ASSERT(s.ramp(0, 4) == receive_read(s, psn, 1, msn + 1));
    }

    void test_read_across_end_refused()
    {
        read_setup s;
        auto& f = s.f;
        // Ends one byte past the MR: class C, NAK remote access, QP in ERROR.
        expect_drop(f,
                    s.read(0, f.ring.bytes - 100, 101),
                    rx_result::drop_out_of_bounds,
                    { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_remote_access, 0, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        expect_drop(f, s.read(0, 0, 8), rx_result::drop_qp_state);
        expect_silence(s);
        // Starting before the MR is refused the same way.
        read_setup t;
        auto before = t.read(0, 0, 8);
        before.va -= 1;
        expect_drop(t.f, before, rx_result::drop_out_of_bounds, { "naks_sent" });
        expect_ack(t, roce::syndrome::nak_remote_access, 0, 0);
        // The last byte of the MR is readable.
        read_setup u;
        CPPUNIT_ASSERT(rx_result::accepted == u.f.send(u.read(0, u.f.ring.bytes - 1, 1)));
        CPPUNIT_ASSERT(u.ramp(u.f.ring.bytes - 1, 1) == receive_read(u, 0, 1, 1));
    }

    void test_lost_response_replayed()
    {
        read_setup s;
        auto& f = s.f;
        const uint32_t length = 3 * mtu + 5; // PSNs 10..13
        const size_t offset = 64;
        auto req = s.read(10, offset, length);
        // Start at PSN 10: move the QP there with a one-packet READ first.
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(0, 0, 10 * mtu)));
        receive_read(s, 0, 10, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(req));
        const auto original = receive_read(s, 10, 4, 2);
        CPPUNIT_ASSERT(s.ramp(offset, length) == original);

        // Responses 12 and 13 "lost": the requester re-requests from PSN 12 for what
        // it misses; the replay starts inside the message (MIDDLE, LAST).
        auto again = s.read(12, offset + 2 * mtu, mtu + 5);
        CPPUNIT_ASSERT(rx_result::duplicate == f.send(again));
        CPPUNIT_ASSERT(s.ramp(offset + 2 * mtu, mtu + 5) ==
                       receive_read(s, 12, 2, 2, false));
        // Only the LAST lost: the replay is one LAST.
        auto tail = s.read(13, offset + 3 * mtu, 5);
        CPPUNIT_ASSERT(rx_result::duplicate == f.send(tail));
        CPPUNIT_ASSERT(s.ramp(offset + 3 * mtu, 5) == receive_read(s, 13, 1, 2, false));
        // The whole READ again: FIRST .. LAST, the same bytes.
        CPPUNIT_ASSERT(rx_result::duplicate == f.send(req));
        CPPUNIT_ASSERT(original == receive_read(s, 10, 4, 2));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), f.counter("read_replays"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), f.counter("duplicate"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("reads"));
        // Replays neither move the PSN nor count as messages.
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(14, 0, 1)));
        CPPUNIT_ASSERT(s.ramp(0, 1) == receive_read(s, 14, 1, 3));
        CPPUNIT_ASSERT(f.ring.unchanged());
    }

    void test_read_ahead_naked()
    {
        read_setup s;
        auto& f = s.f;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(0, 0, 8)));
        receive_read(s, 0, 1, 1);
        // PSN 1 expected; a request at 3: NAK sequence error with PSN 1, once.
        expect_drop(f, s.read(3, 0, 8), rx_result::drop_psn_sequence, { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_psn_sequence, 1, 1);
        expect_drop(f, s.read(4, 0, 8), rx_result::drop_psn_sequence);
        expect_silence(s);
        // The requester goes back to PSN 1 and is served.
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(1, 8, 8)));
        CPPUNIT_ASSERT(s.ramp(8, 8) == receive_read(s, 1, 1, 2));
    }

    void test_wrong_rkey()
    {
        read_setup s;
        auto& f = s.f;
        auto r = s.read(0, 0, 8);
        r.rkey ^= 0x100;
        expect_drop(f, r, rx_result::drop_bad_rkey, { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_remote_access, 0, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("read_responses_sent"));
    }

    void test_rx_ring_without_read_access()
    {
        // An RX ring: registered for remote write only.
        read_setup s(access_remote_write | access_remote_read,
                     access_local_write | access_remote_write);
        expect_drop(s.f, s.read(0, 0, 8), rx_result::drop_bad_rkey, { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_remote_access, 0, 0);
        CPPUNIT_ASSERT(s.f.qp->state() == qp_state::error);
    }

    void test_qp_without_read_access()
    {
        // check_op_valid: rxe NAKs a READ on a QP without remote read "invalid request".
        read_setup s(access_remote_write);
        expect_drop(s.f, s.read(0, 0, 8), rx_result::drop_no_access, { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_invalid_request, 0, 0);
        CPPUNIT_ASSERT(s.f.qp->state() == qp_state::error);
    }

    void test_write_to_read_only_mr()
    {
        read_setup s;
        auto& f = s.f;
        expect_drop(f,
                    f.write(roce::opcode::write_only, 0, 0, pattern(64, 1)),
                    rx_result::drop_bad_rkey,
                    { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_remote_access, 0, 0);
        CPPUNIT_ASSERT(f.qp->state() == qp_state::error);
        CPPUNIT_ASSERT(f.ring.unchanged());
    }

    void test_length_over_2g()
    {
        read_setup s;
        auto r = s.read(0, 0, 0);
        r.dma_length = (1u << 31) + 1;
        expect_drop(s.f, r, rx_result::drop_bad_length, { "naks_sent" });
        expect_ack(s, roce::syndrome::nak_invalid_request, 0, 0);
        // A READ REQUEST carrying a payload is malformed the same way.
        read_setup t;
        auto p = t.read(0, 0, 4);
        p.payload = pattern(4, 1);
        expect_drop(t.f, p, rx_result::drop_bad_length, { "naks_sent" });
        expect_ack(t, roce::syndrome::nak_invalid_request, 0, 0);
    }

    void test_read_during_write_message()
    {
        // A READ between a WRITE FIRST and its LAST breaks the opcode sequence (class C).
        read_setup s(access_remote_write | access_remote_read,
                     access_local_write | access_remote_write | access_remote_read);
        auto& f = s.f;
        auto first = f.write(roce::opcode::write_first, 0, 0, pattern(mtu, 1));
        first.dma_length = 2 * mtu;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        f.ring.expect(0, first.payload);
        expect_drop(f,
                    s.read(1, 0, 8),
                    rx_result::drop_opcode_sequence,
                    { "naks_sent", "message_aborted" });
        expect_ack(s, roce::syndrome::nak_invalid_request, 1, 0);
    }

    void test_replay_window()
    {
        read_setup s;
        auto& f = s.f;
        f.qp->to_reset();
        soft_qp(f).set_max_dest_rd_atomic(2);
        f.qp->to_init(access_remote_read);
        f.qp->to_rtr({ s.peer.local_address(), peer_qpn }, 0, mtu);
        f.qp->to_rts(0);
        for (uint32_t psn = 0; psn < 3; psn++) {
            CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(psn, psn * 16, 16)));
            receive_read(s, psn, 1, psn + 1);
        }
        // PSN 0 fell out of a window of two: dropped, counted, no answer at all.
        expect_drop(f, s.read(0, 0, 16), rx_result::drop_stale_read);
        expect_silence(s);
        // PSN 1 and 2 are still remembered, with their own MSNs.
        CPPUNIT_ASSERT(rx_result::duplicate == f.send(s.read(1, 16, 16)));
        CPPUNIT_ASSERT(s.ramp(16, 16) == receive_read(s, 1, 1, 2));
        CPPUNIT_ASSERT(rx_result::duplicate == f.send(s.read(2, 32, 16)));
        CPPUNIT_ASSERT(s.ramp(32, 16) == receive_read(s, 2, 1, 3));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("drop_stale_read"));
        CPPUNIT_ASSERT(f.qp->state() == qp_state::rts);
        CPPUNIT_ASSERT(f.ring.unchanged());
    }

    void test_replay_must_be_a_tail()
    {
        read_setup s;
        auto& f = s.f;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(s.read(0, 1000, 2 * mtu)));
        receive_read(s, 0, 2, 1);
        // Another rkey, bytes before or beyond the original, or more packets than the
        // PSNs left: not the READ that was served; dropped without an answer.
        auto other_key = s.read(1, 1000 + mtu, mtu);
        other_key.rkey ^= 1;
        expect_drop(f, other_key, rx_result::drop_stale_read);
        expect_drop(f, s.read(1, 999, mtu), rx_result::drop_stale_read);
        expect_drop(f, s.read(1, 1000 + mtu, mtu + 1), rx_result::drop_stale_read);
        expect_drop(f, s.read(1, 1000, 2 * mtu), rx_result::drop_stale_read);
        expect_silence(s);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), f.counter("drop_stale_read"));
        CPPUNIT_ASSERT(f.qp->state() == qp_state::rts);
    }

    void test_max_dest_rd_atomic_attribute()
    {
        read_setup s;
        auto& qp = soft_qp(s.f);
        CPPUNIT_ASSERT_EQUAL(16u, qp.max_dest_rd_atomic());
        CPPUNIT_ASSERT_THROW(qp.set_max_dest_rd_atomic(4), std::logic_error); // RTS
        qp.to_reset();
        CPPUNIT_ASSERT_THROW(qp.set_max_dest_rd_atomic(0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(qp.set_max_dest_rd_atomic(129), std::invalid_argument);
        qp.set_max_dest_rd_atomic(128);
        CPPUNIT_ASSERT_EQUAL(128u, qp.max_dest_rd_atomic());
    }

    void test_read_on_uc()
    {
        // READ is RC only: an RC READ REQUEST to a UC QP is a transport mismatch, and
        // the UC opcode 0x2C does not exist (the codec refuses it).
        nic_fixture f(qp_type::uc,
                      socket_address::parse("10.0.0.2:49152"),
                      mtu,
                      false,
                      access_remote_write | access_remote_read,
                      access_remote_read);
        request r;
        r.opcode = rc | roce::opcode::read_request;
        r.qpn = f.qp->qpn();
        r.va = f.ring.va(0);
        r.rkey = f.mr->rkey();
        r.dma_length = 8;
        expect_drop(f, r, rx_result::drop_transport_mismatch);
        r.opcode = roce::opcode::uc | roce::opcode::read_request;
        expect_drop(f, r, rx_result::drop_unknown_opcode);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("read_responses_sent"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_nic_read);
