/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// ack_receiver's queues (docs/links.md, "RC over several links"): an ACK/NAK reaches
// the queue of the RX stream destination whose device QP it names
// (rx_dest_source_qpn), destination 0 at the stream's own QPN; a QPN of nobody's, or
// destination 0's other number, is counted and dropped; clear() forgets every
// destination of its stream.

#include "../roce/roce_packet.h"
#include "../util/udp_socket.h"
#include "ack_receiver.h"
#include "rx_descriptor.h"
#include "udp_wire.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <thread>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_ack_receiver : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ack_receiver);
    CPPUNIT_TEST(test_each_destination_its_queue);
    CPPUNIT_TEST_SUITE_END();

    emu::udp_wire wire{ socket_address::parse("127.0.0.1:0") };
    udp_socket host{ socket_address::parse("127.0.0.1:0") };

    void ack(uint32_t qpn, uint32_t psn)
    {
        roce::bth b;
        b.opcode = roce::opcode::rc | roce::opcode::acknowledge;
        b.dest_qp = qpn;
        b.psn = psn;
        roce::aeth a;
        a.syndrome = roce::syndrome::ack_unlimited;
        uint8_t out[roce::bth_bytes + roce::aeth_bytes + roce::icrc_bytes];
        const size_t h = roce::write_headers(out, b, nullptr, nullptr, &a);
        const size_t n = roce::finish(out, h, 0);
        // Sealed for the datagram's own addresses, as a soft NIC does on UDP.
        roce::ip_context ip;
        ip.src_ip = host.local_address().ip();
        ip.src_port = host.local_address().port();
        ip.dst_ip = wire.local_address().ip();
        ip.dst_port = wire.local_address().port();
        roce::seal_udp(ip, out, n);
        host.send_to(out, n, wire.local_address());
    }

public:
    void test_each_destination_its_queue()
    {
        emu::ack_receiver acks(wire, 2);
        ack(emu::rx_dest_source_qpn(1, 3), 13);
        ack(emu::rx_dest_source_qpn(0, 1), 1);
        ack(emu::rx_dest_source_qpn(0, 0), 0);
        ack(emu::rx_dest_source_qpn(1, 7), 17);
        ack(emu::rx_dest_source_qpn(2, 1), 99);     // stream 2: the device has two
        ack(emu::rx_dest_source_qpn(0, 1) - 1, 98); // destination 0 of stream 0 twice
        std::this_thread::sleep_for(50ms);          // all six queued on loopback
        emu::rc_ack got[4];
        const auto one = [&](unsigned s, unsigned d) {
            const size_t n = acks.poll(s, got, 4, d);
            return n == 1 ? got[0].psn : n == 0 ? 0xFFFFFFFFu : 0xEEEEEEEEu;
        };
        CPPUNIT_ASSERT_EQUAL(0u, one(0, 0));
        CPPUNIT_ASSERT_EQUAL(1u, one(0, 1));
        CPPUNIT_ASSERT_EQUAL(13u, one(1, 3));
        CPPUNIT_ASSERT_EQUAL(0xFFFFFFFFu, one(1, 0)); // nothing for the others
        CPPUNIT_ASSERT_EQUAL(0xFFFFFFFFu, one(0, 2));
        CPPUNIT_ASSERT_EQUAL(size_t(0), acks.poll(0, got, 4, 8)); // no destination 8
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), acks.unknown_qp());
        // Stream 1's destination 7 still queued: a new run of stream 1 forgets it.
        acks.clear(1);
        CPPUNIT_ASSERT_EQUAL(0xFFFFFFFFu, one(1, 7));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ack_receiver);
