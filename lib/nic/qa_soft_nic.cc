/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft NIC's responder rules on UC, fed synchronously (no receive thread):
// accepted writes land bit-exact; every rejection is counted under its own reason and
// leaves memory (guard zones included), completions and other counters alone.

#include "qa_nic_fixture.h"
#include <cppunit/TestFixture.h>

using namespace qa_nic;

namespace {
constexpr uint8_t write_first = roce::opcode::write_first;
constexpr uint8_t write_middle = roce::opcode::write_middle;
constexpr uint8_t write_last = roce::opcode::write_last;
constexpr uint8_t write_last_imm = roce::opcode::write_last_imm;
constexpr uint8_t write_only = roce::opcode::write_only;
constexpr uint8_t write_only_imm = roce::opcode::write_only_imm;
} // namespace

class qa_soft_nic : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_nic);
    CPPUNIT_TEST(test_write_only_lands);
    CPPUNIT_TEST(test_write_only_imm_completes);
    CPPUNIT_TEST(test_multi_packet_message);
    CPPUNIT_TEST(test_psn_advances_and_resyncs);
    CPPUNIT_TEST(test_zero_length_write_imm);
    CPPUNIT_TEST(test_reject_out_of_bounds);
    CPPUNIT_TEST(test_reject_wrong_rkey);
    CPPUNIT_TEST(test_reject_wrong_qpn);
    CPPUNIT_TEST(test_reject_uc_psn_gap);
    CPPUNIT_TEST(test_reject_missing_reth);
    CPPUNIT_TEST(test_reject_truncated);
    CPPUNIT_TEST(test_reject_bad_icrc);
    CPPUNIT_TEST(test_reject_qp_not_ready);
    CPPUNIT_TEST(test_reject_transport_mismatch);
    CPPUNIT_TEST(test_reject_bad_source);
    CPPUNIT_TEST(test_reject_no_access);
    CPPUNIT_TEST(test_reject_no_receive_wr);
    CPPUNIT_TEST(test_reject_bad_length);
    CPPUNIT_TEST(test_reject_header_fields);
    CPPUNIT_TEST(test_uc_start_aborts_message);
    CPPUNIT_TEST(test_ipv4_frame);
    CPPUNIT_TEST(test_mr_deregistered);
    CPPUNIT_TEST(test_cq_overflow_counted);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_write_only_lands()
    {
        nic_fixture f(qp_type::uc);
        const auto data = pattern(1000, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(f.write(write_only, 0, 4096, data)));
        f.ring.expect(4096, data);
        CPPUNIT_ASSERT(f.ring.unchanged()); // exactly those bytes changed, nothing else
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), f.counter("rx_bytes"));
        CPPUNIT_ASSERT(f.poll_all().empty()); // plain writes complete nothing
    }

    void test_write_only_imm_completes()
    {
        nic_fixture f(qp_type::uc);
        f.qp->post_receives(100, 2);
        auto r = f.write(write_only_imm, 0, 0, pattern(512, 2));
        r.imm = 0xDEADBEEF;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        f.ring.expect(0, r.payload);
        CPPUNIT_ASSERT(f.ring.unchanged());
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(1), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), wcs[0].wr_id);
        CPPUNIT_ASSERT(wcs[0].status == wc_status::success);
        CPPUNIT_ASSERT_EQUAL(uint32_t(512), wcs[0].byte_len);
        CPPUNIT_ASSERT_EQUAL(0xDEADBEEFu, wcs[0].imm_data);
        CPPUNIT_ASSERT_EQUAL(f.qp->qpn(), wcs[0].qpn);
        CPPUNIT_ASSERT_EQUAL(1, f.qp->posted_receives());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("completions"));
    }

    void test_multi_packet_message()
    {
        nic_fixture f(qp_type::uc, socket_address::parse("10.0.0.2:49152"), 256);
        f.qp->post_receives(7, 1);
        const auto data = pattern(256 * 3 + 100, 3);
        const size_t at = 1000;
        auto first = f.write(write_first, 0, at, { data.begin(), data.begin() + 256 });
        first.dma_length = static_cast<uint32_t>(data.size());
        request middle = first, last = first;
        middle.opcode = roce::opcode::uc | write_middle;
        middle.psn = 1;
        middle.payload.assign(data.begin() + 256, data.begin() + 512);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        CPPUNIT_ASSERT(rx_result::accepted == f.send(middle));
        middle.psn = 2;
        middle.payload.assign(data.begin() + 512, data.begin() + 768);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(middle));
        last.opcode = roce::opcode::uc | write_last_imm;
        last.psn = 3;
        last.imm = 42;
        last.payload.assign(data.begin() + 768, data.end());
        CPPUNIT_ASSERT(rx_result::accepted == f.send(last));
        f.ring.expect(at, data);
        CPPUNIT_ASSERT(f.ring.unchanged());
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(1), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint32_t(data.size()), wcs[0].byte_len);
        CPPUNIT_ASSERT_EQUAL(42u, wcs[0].imm_data);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), f.counter("rx_packets"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("psn_resync"));
    }

    void test_psn_advances_and_resyncs()
    {
        nic_fixture f(qp_type::uc);
        for (uint32_t psn = 0; psn < 3; psn++)
            CPPUNIT_ASSERT(rx_result::accepted ==
                           f.send(f.write(write_only, psn, psn * 64, pattern(64, psn))));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.counter("psn_resync"));
        // PSN 3 and 4 lost: the ONLY with PSN 5 is a START and resynchronises.
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 5, 0, pattern(8, 9))));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("psn_resync"));
        // ... to 6: a FIRST at 6 is in sequence (no second resync).
        auto first = f.write(write_first, 6, 0, pattern(1024, 4));
        first.dma_length = 2048;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("psn_resync"));
        // PSN wraps at 2^24.
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0xFFFFFF, 0, pattern(8, 5))));
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0, 0, pattern(8, 6))));
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("psn_resync"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("message_aborted"));
    }

    void test_zero_length_write_imm()
    {
        nic_fixture f(qp_type::uc);
        f.qp->post_receives(1, 1);
        auto r = f.write(write_only_imm, 0, 0, {});
        r.rkey = 0; // a zero-length write names no memory (rxe skips the rkey check)
        r.va = 0;
        r.imm = 7;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        CPPUNIT_ASSERT(f.ring.unchanged());
        const auto wcs = f.poll_all();
        CPPUNIT_ASSERT_EQUAL(size_t(1), wcs.size());
        CPPUNIT_ASSERT_EQUAL(uint32_t(0), wcs[0].byte_len);
        CPPUNIT_ASSERT_EQUAL(7u, wcs[0].imm_data);
    }

    void test_reject_out_of_bounds()
    {
        nic_fixture f(qp_type::uc);
        const size_t size = f.ring.bytes;
        auto below = f.write(write_only, 0, 0, pattern(64, 1));
        below.va -= 1;
        expect_drop(f, below, rx_result::drop_out_of_bounds);
        auto far_below = f.write(write_only, 0, 0, pattern(64, 1));
        far_below.va -= guarded_buffer::guard;
        expect_drop(f, far_below, rx_result::drop_out_of_bounds);
        expect_drop(f,
                    f.write(write_only, 0, size, pattern(64, 2)),
                    rx_result::drop_out_of_bounds);
        expect_drop(f,
                    f.write(write_only, 0, size - 63, pattern(64, 3)),
                    rx_result::drop_out_of_bounds);
        // A FIRST whose message would run past the end, though this packet fits.
        auto first = f.write(write_first, 0, size - 1024, pattern(1024, 4));
        first.dma_length = 2048;
        expect_drop(f, first, rx_result::drop_out_of_bounds);
        // va + length wrapping around 2^64 must not pass.
        auto wrap = f.write(write_only, 0, 0, pattern(64, 5));
        wrap.va = ~uint64_t(0) - 10;
        expect_drop(f, wrap, rx_result::drop_out_of_bounds);
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), f.counter("drop_out_of_bounds"));
        // The last byte of the MR is still reachable.
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 0, size - 64, pattern(64, 6))));
    }

    void test_reject_wrong_rkey()
    {
        nic_fixture f(qp_type::uc);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        r.rkey ^= 0x01; // one bit off
        expect_drop(f, r, rx_result::drop_bad_rkey);
        r.rkey ^= 0x101; // another
        expect_drop(f, r, rx_result::drop_bad_rkey);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("drop_bad_rkey"));
    }

    void test_reject_wrong_qpn()
    {
        nic_fixture f(qp_type::uc);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        r.qpn = f.qp->qpn() + 1;
        expect_drop(f, r, rx_result::drop_unknown_qpn);
        r.qpn = 0;
        expect_drop(f, r, rx_result::drop_unknown_qpn);
        r.qpn = 1;
        expect_drop(f, r, rx_result::drop_unknown_qpn);
    }

    void test_reject_uc_psn_gap()
    {
        nic_fixture f(qp_type::uc);
        const auto data = pattern(3 * 1024, 1);
        auto first = f.write(write_first, 0, 0, { data.begin(), data.begin() + 1024 });
        first.dma_length = 3 * 1024;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        f.ring.expect(0, first.payload);
        request middle = first;
        middle.opcode = roce::opcode::uc | write_middle;
        middle.psn = 2; // PSN 1 was lost
        middle.payload.assign(data.begin() + 1024, data.begin() + 2048);
        expect_drop(f, middle, rx_result::drop_psn_sequence, { "message_aborted" });
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("drop_psn_sequence"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("message_aborted"));
        // The rest of the message goes too, even with the PSN that would now follow.
        request last = middle;
        last.opcode = roce::opcode::uc | write_last;
        last.psn = 1;
        last.payload.assign(data.begin() + 2048, data.end());
        expect_drop(f, last, rx_result::drop_psn_sequence);
        // A START resynchronises.
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.send(f.write(write_only, 9, 0, pattern(4, 1))));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("psn_resync"));
    }

    void test_reject_missing_reth()
    {
        nic_fixture f(qp_type::uc);
        request r = f.write(write_middle, 0, 0, pattern(1024, 1));
        expect_drop(f, r, rx_result::drop_missing_reth);
        // The drop put the QP in drop_msg: the next MIDDLE/LAST is rest-of-message.
        nic_fixture g(qp_type::uc);
        r = g.write(write_last, 0, 0, pattern(100, 1));
        expect_drop(g, r, rx_result::drop_missing_reth);
        r.opcode = roce::opcode::uc | write_last_imm;
        g.qp->post_receives(1, 1);
        expect_drop(g, r, rx_result::drop_psn_sequence);
        CPPUNIT_ASSERT_EQUAL(1, g.qp->posted_receives());
    }

    void test_reject_truncated()
    {
        nic_fixture f(qp_type::uc);
        f.qp->post_receives(1, 1);
        auto r = f.write(write_only_imm, 0, 0, pattern(64, 1));
        const auto full = build_udp(r, f.peer, f.nic.roce_address());
        // Cut inside the BTH, the RETH, the ImmDt, and too short for pad + ICRC.
        const size_t hdr = roce::bth_bytes + roce::reth_bytes + roce::immdt_bytes;
        for (size_t len : { size_t(0),
                            size_t(1),
                            size_t(11),
                            size_t(12),
                            size_t(27),
                            hdr - 1,
                            hdr,
                            hdr + 3 }) {
            std::vector<uint8_t> cut(full.begin(), full.begin() + len);
            expect_drop(f, cut, f.peer, rx_result::drop_truncated);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), f.counter("drop_truncated"));
    }

    void test_reject_bad_icrc()
    {
        nic_fixture f(qp_type::uc);
        auto bytes = build_udp(
            f.write(write_only, 0, 0, pattern(64, 1)), f.peer, f.nic.roce_address());
        auto flipped = bytes;
        flipped[roce::bth_bytes + roce::reth_bytes + 10] ^= 0x04; // one payload bit
        expect_drop(f, flipped, f.peer, rx_result::drop_bad_icrc);
        // The ICRC covers the addresses and ports: right bytes, wrong source port.
        expect_drop(
            f, bytes, f.peer.with_port(f.peer.port() + 1), rx_result::drop_bad_icrc);
        // The masked BTH byte (FECN/BECN) is not covered.
        auto marked = bytes;
        marked[4] = 0xC0;
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.nic.process_udp_payload(
                           marked.data(), marked.size(), f.peer, f.nic.roce_address()));
    }

    void test_reject_qp_not_ready()
    {
        nic_fixture f(qp_type::uc);
        auto cq = f.nic.create_cq(4);
        auto qp = f.pd->create_qp(qp_type::uc, *cq, 4);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        r.qpn = qp->qpn();
        expect_drop(f, r, rx_result::drop_qp_state); // RESET
        qp->to_init(access_remote_write);
        expect_drop(f, r, rx_result::drop_qp_state); // INIT
        qp->to_rtr({ f.peer, 1 }, 0, 1024);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r)); // RTR is enough
        qp->to_reset();
        r.psn = 1;
        f.ring.snapshot();
        expect_drop(f, r, rx_result::drop_qp_state);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), f.counter("drop_qp_state"));
    }

    void test_reject_transport_mismatch()
    {
        nic_fixture f(qp_type::uc);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        r.opcode = roce::opcode::rc | write_only;
        expect_drop(f, r, rx_result::drop_transport_mismatch);
    }

    void test_reject_bad_source()
    {
        nic_fixture f(qp_type::uc);
        const auto other = socket_address::parse("10.0.0.3:49152");
        const auto r = f.write(write_only, 0, 0, pattern(64, 1));
        expect_drop(f,
                    build_udp(r, other, f.nic.roce_address()),
                    other,
                    rx_result::drop_bad_source);
        // The source port is not checked (it carries the sender's flow hash).
        CPPUNIT_ASSERT(rx_result::accepted == f.send_from(r, f.peer.with_port(50000)));
    }

    void test_reject_no_access()
    {
        // The QP does not grant remote write.
        nic_fixture f(qp_type::uc,
                      socket_address::parse("10.0.0.2:49152"),
                      1024,
                      false,
                      access_remote_read);
        expect_drop(
            f, f.write(write_only, 0, 0, pattern(64, 1)), rx_result::drop_no_access);
        // The MR does not grant remote write: that is an rkey violation.
        nic_fixture g(qp_type::uc,
                      socket_address::parse("10.0.0.2:49152"),
                      1024,
                      false,
                      access_remote_write,
                      access_local_write | access_remote_read);
        expect_drop(
            g, g.write(write_only, 0, 0, pattern(64, 1)), rx_result::drop_bad_rkey);
        // An MR of another PD is out of reach.
        nic_fixture h(qp_type::uc);
        auto pd2 = h.nic.alloc_pd();
        auto mr2 = pd2->register_memory(
            h.ring.data(), h.ring.bytes, access_local_write | access_remote_write);
        auto r = h.write(write_only, 0, 0, pattern(64, 1));
        r.rkey = mr2->rkey();
        expect_drop(h, r, rx_result::drop_bad_rkey);
    }

    void test_reject_no_receive_wr()
    {
        nic_fixture f(qp_type::uc);
        auto r = f.write(write_only_imm, 0, 0, pattern(64, 1));
        expect_drop(f, r, rx_result::drop_no_receive_wr);
        f.qp->post_receives(5, 1);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        CPPUNIT_ASSERT_EQUAL(size_t(1), f.poll_all().size());
    }

    void test_reject_bad_length()
    {
        nic_fixture f(qp_type::uc, socket_address::parse("10.0.0.2:49152"), 256);
        // ONLY: payload != DMA length, both ways.
        auto r = f.write(write_only, 0, 0, pattern(100, 1));
        r.dma_length = 101;
        expect_drop(f, r, rx_result::drop_bad_length);
        r.dma_length = 99;
        expect_drop(f, r, rx_result::drop_bad_length);
        // ONLY longer than the path MTU.
        expect_drop(
            f, f.write(write_only, 0, 0, pattern(260, 2)), rx_result::drop_bad_length);
        // FIRST shorter than the MTU, and FIRST of a message that fits one packet.
        r = f.write(write_first, 0, 0, pattern(200, 3));
        r.dma_length = 1000;
        expect_drop(f, r, rx_result::drop_bad_length);
        r = f.write(write_first, 0, 0, pattern(256, 3));
        expect_drop(f, r, rx_result::drop_bad_length);
        // Right length, wrong pad: 8 bytes need none, this carries 3.
        r = f.write(write_only, 0, 0, pattern(8, 4));
        r.pad_count = 3;
        expect_drop(f, r, rx_result::drop_bad_length);
        // And 7 bytes need one pad byte, not none.
        r = f.write(write_only, 0, 0, pattern(7, 4));
        r.pad_count = 0;
        expect_drop(f, r, rx_result::drop_bad_length);
        // A MIDDLE shorter than the MTU.
        r = f.write(write_first, 0, 0, pattern(256, 5));
        r.dma_length = 1024;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        f.ring.expect(0, r.payload);
        auto middle = r;
        middle.opcode = roce::opcode::uc | write_middle;
        middle.psn = 1;
        middle.payload = pattern(128, 6);
        expect_drop(f, middle, rx_result::drop_bad_length, { "message_aborted" });
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), f.counter("drop_bad_length"));
    }

    void test_reject_header_fields()
    {
        nic_fixture f(qp_type::uc);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        r.pkey = 0x1234;
        expect_drop(f, r, rx_result::drop_bad_pkey);
        r.pkey = 0x7FFF; // the membership bit is not compared
        CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        f.ring.expect(0, r.payload);
        r.pkey = 0xFFFF;
        r.tver = 1;
        expect_drop(f, r, rx_result::drop_bad_version);
        r.tver = 0;
        r.opcode = 0x40 | write_only; // RD
        expect_drop(f, r, rx_result::drop_unknown_opcode);
        r.opcode = roce::opcode::uc | roce::opcode::read_request; // no READ on UC
        expect_drop(f, r, rx_result::drop_unknown_opcode);
    }

    void test_uc_start_aborts_message()
    {
        nic_fixture f(qp_type::uc);
        auto first = f.write(write_first, 0, 0, pattern(1024, 1));
        first.dma_length = 4096;
        CPPUNIT_ASSERT(rx_result::accepted == f.send(first));
        // Its LAST never comes: the next START abandons it and is itself executed (rxe
        // would drop it and stall; docs/soft-nic.md).
        const auto data = pattern(300, 2);
        CPPUNIT_ASSERT(rx_result::accepted == f.send(f.write(write_only, 5, 8192, data)));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), f.counter("message_aborted"));
        f.ring.expect(0, first.payload);
        f.ring.expect(8192, data);
        CPPUNIT_ASSERT(f.ring.unchanged());
        // And the old message's MIDDLE is now out of sequence.
        auto middle = first;
        middle.opcode = roce::opcode::uc | write_middle;
        middle.psn = 1;
        expect_drop(f, middle, rx_result::drop_psn_sequence);
    }

    void test_ipv4_frame()
    {
        nic_fixture f(qp_type::uc);
        const auto data = pattern(256, 1);
        roce::ip_context ip;
        ip.src_ip = f.peer.ip();
        ip.src_port = 0xC123;
        ip.dst_ip = f.nic.roce_address().ip();
        ip.dst_port = roce::udp_port;
        ip.ip_id = 0x4D2E;
        auto frame = build_frame(f.write(write_only, 0, 512, data), ip);
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.nic.process_ipv4_frame(frame.data(), frame.size()));
        f.ring.expect(512, data);
        CPPUNIT_ASSERT(f.ring.unchanged());

        auto feed = [&](const std::vector<uint8_t>& bytes, rx_result reason) {
            const auto before = f.counter(to_string(reason));
            CPPUNIT_ASSERT_EQUAL(std::string(to_string(reason)),
                                 std::string(to_string(f.nic.process_ipv4_frame(
                                     bytes.data(), bytes.size()))));
            CPPUNIT_ASSERT_EQUAL(before + 1, f.counter(to_string(reason)));
            CPPUNIT_ASSERT(f.ring.unchanged());
        };
        auto fix_ip_checksum = [](std::vector<uint8_t>& b) {
            b[10] = b[11] = 0;
            uint32_t sum = 0;
            for (size_t i = 0; i < 20; i += 2)
                sum += (b[i] << 8) | b[i + 1];
            while (sum >> 16)
                sum = (sum & 0xFFFF) + (sum >> 16);
            b[10] = static_cast<uint8_t>(~sum >> 8);
            b[11] = static_cast<uint8_t>(~sum);
        };
        frame = build_frame(f.write(write_only, 1, 0, data), ip);
        // The ICRC covers the IP ID: a header rewritten after sealing (checksum fixed,
        // as a kernel would) fails it.
        auto other_id = frame;
        other_id[5] ^= 0x01;
        fix_ip_checksum(other_id);
        feed(other_id, rx_result::drop_bad_icrc);
        // TTL and TOS are masked out of the ICRC.
        auto hop = frame;
        hop[8] = 3;
        hop[1] = 0x20;
        fix_ip_checksum(hop);
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.nic.process_ipv4_frame(hop.data(), hop.size()));
        f.ring.expect(0, data);

        frame = build_frame(f.write(write_only, 2, 0, data), ip);
        auto bad = frame;
        bad[5] ^= 0x01; // IP ID changed, checksum not fixed
        feed(bad, rx_result::drop_bad_ip_header);
        bad = frame;
        bad[9] = 6; // TCP
        fix_ip_checksum(bad);
        feed(bad, rx_result::drop_bad_ip_header);
        bad = frame;
        bad[0] = 0x44; // IHL 16 bytes
        fix_ip_checksum(bad);
        feed(bad, rx_result::drop_bad_ip_header);
        bad = frame;
        bad[0] = 0x65; // version 6
        feed(bad, rx_result::drop_bad_ip_header);
        bad = frame;
        bad[23] ^= 0x01; // UDP destination port neither ours nor 4791
        feed(bad, rx_result::drop_bad_ip_header);
        bad = frame;
        bad[26] = 0x12; // non-zero, wrong UDP checksum
        feed(bad, rx_result::drop_bad_ip_header);
        feed({ frame.begin(), frame.begin() + 19 }, rx_result::drop_truncated);
        feed({ frame.begin(), frame.end() - 1 }, rx_result::drop_truncated);
        // Ethernet padding after the IP datagram is ignored; our own port works too.
        ip.dst_port = f.nic.roce_address().port();
        frame = build_frame(f.write(write_only, 2, 0, data), ip);
        frame.resize(frame.size() + 6, 0);
        CPPUNIT_ASSERT(rx_result::accepted ==
                       f.nic.process_ipv4_frame(frame.data(), frame.size()));
    }

    void test_mr_deregistered()
    {
        nic_fixture f(qp_type::uc);
        auto r = f.write(write_only, 0, 0, pattern(64, 1));
        f.mr.reset();
        expect_drop(f, r, rx_result::drop_bad_rkey);
        // A new registration of the same memory gets another key.
        auto mr = f.pd->register_memory(
            f.ring.data(), f.ring.bytes, access_local_write | access_remote_write);
        CPPUNIT_ASSERT(mr->rkey() != r.rkey);
        expect_drop(f, r, rx_result::drop_bad_rkey);
    }

    void test_cq_overflow_counted()
    {
        nic_fixture f(qp_type::uc);
        auto small = f.nic.create_cq(2);
        auto qp = f.pd->create_qp(qp_type::uc, *small, 8);
        qp->to_init(access_remote_write);
        qp->to_rtr({ f.peer, 1 }, 0, 1024);
        qp->post_receives(0, 5);
        for (uint32_t psn = 0; psn < 5; psn++) {
            auto r = f.write(write_only_imm, psn, 0, pattern(16, 1));
            r.qpn = qp->qpn();
            r.imm = psn;
            CPPUNIT_ASSERT(rx_result::accepted == f.send(r));
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), f.counter("completions"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), f.counter("cq_overflow"));
        work_completion wc[4];
        CPPUNIT_ASSERT_EQUAL(2, small->poll(wc, 4));
        CPPUNIT_ASSERT_EQUAL(0u, wc[0].imm_data);
        CPPUNIT_ASSERT_EQUAL(1u, wc[1].imm_data);
        CPPUNIT_ASSERT_EQUAL(0, qp->posted_receives()); // consumed even when lost
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_nic);
