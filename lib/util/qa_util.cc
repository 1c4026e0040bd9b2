/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "event_notifier.h"
#include "parse_number.h"
#include "socket_address.h"
#include "thread_role.h"
#include "udp_socket.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

class qa_util : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_util);
    CPPUNIT_TEST(test_parse_address);
    CPPUNIT_TEST(test_parse_rejects_garbage);
    CPPUNIT_TEST(test_resolve_names);
    CPPUNIT_TEST(test_parse_number);
    CPPUNIT_TEST(test_udp_batch_round_trip);
    CPPUNIT_TEST(test_segmented_batch_arrives_as_datagrams);
    CPPUNIT_TEST(test_truncated_datagram_flagged);
    CPPUNIT_TEST(test_coalesced_receive_splits_into_datagrams);
    CPPUNIT_TEST(test_for_each_segment_tiles_the_buffer);
    CPPUNIT_TEST(test_event_notifier);
    CPPUNIT_TEST(test_cpu_by_role);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_parse_address()
    {
        const auto a = socket_address::parse("192.0.2.7:4791");
        CPPUNIT_ASSERT_EQUAL(0xC0000207u, a.ip());
        CPPUNIT_ASSERT_EQUAL(uint16_t(4791), a.port());
        CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7:4791"), a.to_string());
        const auto b = socket_address::parse("10.1.2.3", 50100);
        CPPUNIT_ASSERT_EQUAL(uint16_t(50100), b.port());
    }

    void test_resolve_names()
    {
        // A dotted quad needs no lookup; a name resolves to IPv4 (/etc/hosts).
        CPPUNIT_ASSERT_EQUAL(std::string("10.1.2.3:50100"),
                             socket_address::resolve("10.1.2.3", 50100).to_string());
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:5"),
                             socket_address::resolve("localhost:5", 50100).to_string());
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:50100"),
                             socket_address::resolve("localhost", 50100).to_string());
        // .invalid never resolves (RFC 6761): the error names the name.
        std::string why;
        try {
            socket_address::resolve("nonexistent.invalid", 1);
        } catch (const std::invalid_argument& e) {
            why = e.what();
        }
        CPPUNIT_ASSERT_MESSAGE(why,
                               why.find("'nonexistent.invalid'") != std::string::npos);
        CPPUNIT_ASSERT_THROW(socket_address::resolve("localhost:70000"),
                             std::invalid_argument);
    }

    void test_parse_rejects_garbage()
    {
        CPPUNIT_ASSERT_THROW(socket_address::parse("localhost"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4:"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4:70000"),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4:12x"), std::invalid_argument);
        // strtoul would take these: a sign wraps, a space is skipped.
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4:-1"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4:18446744073709551615"),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4: 80"), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(socket_address::parse("1.2.3.4:+80"), std::invalid_argument);
    }

    void test_parse_number()
    {
        CPPUNIT_ASSERT_EQUAL(uint64_t(42), parse_uint("42").value());
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), parse_uint("010").value()); // not octal
        CPPUNIT_ASSERT_EQUAL(uint64_t(255), parse_uint("0xfF").value());
        CPPUNIT_ASSERT_EQUAL(UINT64_MAX, parse_uint("18446744073709551615").value());
        for (const char* bad : { "",
                                 "-1",
                                 "+1",
                                 " 1",
                                 "1 ",
                                 "18446744073709551616",
                                 "0x",
                                 "0xg",
                                 "0x-1",
                                 "1e3",
                                 "1.0",
                                 "nan",
                                 "abc",
                                 "1x" })
            CPPUNIT_ASSERT_MESSAGE(bad, !parse_uint(bad));

        CPPUNIT_ASSERT_EQUAL(0.25, parse_double("0.25").value());
        CPPUNIT_ASSERT_EQUAL(-1e6, parse_double("-1e6").value());
        CPPUNIT_ASSERT_EQUAL(0.5, parse_double(".5").value());
        CPPUNIT_ASSERT_EQUAL(5.0, parse_double("5.").value());
        CPPUNIT_ASSERT_EQUAL(1.5e300, parse_double("1.5e300").value());
        for (const char* bad : { "",
                                 "nan",
                                 "NaN",
                                 "inf",
                                 "-inf",
                                 "infinity",
                                 "1e400",
                                 "-1e400",
                                 "0x10",
                                 "0x1p3",
                                 "+1",
                                 " 1",
                                 "1 ",
                                 "1,5",
                                 "1e",
                                 "e5",
                                 "abc",
                                 "1.2.3",
                                 "-" })
            CPPUNIT_ASSERT_MESSAGE(bad, !parse_double(bad));

        CPPUNIT_ASSERT_EQUAL(std::string("4294967295"), format_number(4294967295.0));
        CPPUNIT_ASSERT_EQUAL(std::string("-10000000"), format_number(-1e7));
        CPPUNIT_ASSERT_EQUAL(std::string("0.001"), format_number(0.001));
        CPPUNIT_ASSERT_EQUAL(std::string("0"), format_number(-0.0));
        CPPUNIT_ASSERT_EQUAL(std::string("1e+300"), format_number(1e300));
        CPPUNIT_ASSERT_EQUAL(std::string("0.035"), format_number(0.03 + 0.005));
    }

    void test_udp_batch_round_trip()
    {
        udp_socket rx(socket_address::parse("127.0.0.1:0"));
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        uint8_t out[3][16];
        datagram batch[3];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 16; j++)
                out[i][j] = static_cast<uint8_t>(i * 16 + j);
            batch[i].data = out[i];
            batch[i].length = 10 + i;
            batch[i].peer = rx.local_address();
        }
        CPPUNIT_ASSERT_EQUAL(size_t(3), tx.send_batch(batch, 3));
        uint8_t in[3][64];
        datagram slots[3];
        for (int i = 0; i < 3; i++) {
            slots[i].data = in[i];
            slots[i].capacity = sizeof(in[i]);
        }
        CPPUNIT_ASSERT(rx.wait_readable(1s));
        size_t got = 0;
        for (int tries = 0; got < 3 && tries < 100; tries++) {
            got += rx.receive_batch(slots + got, 3 - got);
            if (got < 3)
                rx.wait_readable(10ms);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(3), got);
        for (int i = 0; i < 3; i++) {
            CPPUNIT_ASSERT_EQUAL(size_t(10 + i), slots[i].length);
            CPPUNIT_ASSERT(!slots[i].truncated);
            CPPUNIT_ASSERT(slots[i].peer == tx.local_address());
            CPPUNIT_ASSERT_EQUAL(0x7F000001u, slots[i].local_ip);
            CPPUNIT_ASSERT_EQUAL(int(out[i][9]), int(in[i][9]));
        }
    }

    void test_segmented_batch_arrives_as_datagrams()
    {
        // Runs of one length to one peer go out segmented; the receivers must see every
        // datagram on its own, in order, whatever the grouping: 70 of 1000 bytes (more
        // than one send carries), a shorter one that ends a run, 3 to another peer.
        udp_socket a(socket_address::parse("127.0.0.1:0"));
        udp_socket b(socket_address::parse("127.0.0.1:0"));
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        a.request_receive_buffer(1 << 20);
        std::vector<size_t> lengths(70, 1000);
        lengths.push_back(123);
        lengths.insert(lengths.end(), { 1000, 1000, 1000 });
        std::vector<std::vector<uint8_t>> payloads;
        std::vector<datagram> batch(lengths.size());
        for (size_t i = 0; i < lengths.size(); i++) {
            payloads.emplace_back(lengths[i], static_cast<uint8_t>(i));
            payloads.back()[0] = static_cast<uint8_t>(i >> 8);
            batch[i].data = payloads.back().data();
            batch[i].length = lengths[i];
            batch[i].peer = i < 71 ? a.local_address() : b.local_address();
        }
        CPPUNIT_ASSERT_EQUAL(batch.size(), tx.send_batch(batch.data(), batch.size()));
        const int off = 0;
        if (::setsockopt(tx.fd(), IPPROTO_UDP, UDP_SEGMENT, &off, sizeof(off)) == 0)
            CPPUNIT_ASSERT(tx.segmented_sends() >= 3); // 64 + 6 (+ the short one), 3
        else
            std::printf("\n[kernel without UDP_SEGMENT: sent datagram by datagram]\n");

        auto receive_all = [](udp_socket& rx,
                              size_t first,
                              size_t count,
                              const std::vector<size_t>& lengths) {
            std::vector<uint8_t> buffer(2000);
            for (size_t i = first; i < first + count; i++) {
                datagram slot;
                slot.data = buffer.data();
                slot.capacity = buffer.size();
                CPPUNIT_ASSERT(rx.receive(slot, 1s));
                CPPUNIT_ASSERT_EQUAL(lengths[i], slot.length);
                CPPUNIT_ASSERT_EQUAL(int(i >> 8), int(buffer[0]));
                CPPUNIT_ASSERT_EQUAL(int(i & 0xFF), int(buffer[slot.length - 1]));
            }
            datagram extra;
            extra.data = buffer.data();
            extra.capacity = buffer.size();
            CPPUNIT_ASSERT(!rx.receive(extra, 10ms));
        };
        receive_all(a, 0, 71, lengths);
        receive_all(b, 71, 3, lengths);

        // A socket the kernel will not segment for (here: UDP checksums off, which
        // segmentation refuses with EINVAL) sends datagram by datagram instead.
        udp_socket plain(socket_address::parse("127.0.0.1:0"));
        const int on = 1;
        CPPUNIT_ASSERT_EQUAL(
            0, ::setsockopt(plain.fd(), SOL_SOCKET, SO_NO_CHECK, &on, sizeof(on)));
        for (size_t i = 71; i < batch.size(); i++)
            batch[i].peer = a.local_address();
        CPPUNIT_ASSERT_EQUAL(batch.size(), plain.send_batch(batch.data(), batch.size()));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), plain.segmented_sends());
        receive_all(a, 0, lengths.size(), lengths);
    }

    void test_truncated_datagram_flagged()
    {
        udp_socket rx(socket_address::parse("127.0.0.1:0"));
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        uint8_t big[100] = {};
        tx.send_to(big, sizeof(big), rx.local_address());
        uint8_t small[40];
        datagram slot;
        slot.data = small;
        slot.capacity = sizeof(small);
        CPPUNIT_ASSERT(rx.receive(slot, 1s));
        CPPUNIT_ASSERT(slot.truncated);
        CPPUNIT_ASSERT_EQUAL(sizeof(small), slot.length);
    }

    void test_coalesced_receive_splits_into_datagrams()
    {
        // A segmenting sender's run arrives at a GRO socket as one buffer that holds
        // the run's datagrams back to back (on loopback the kernel never splits it);
        // for_each_segment() gives back each datagram whole, the short last one too.
        udp_socket rx(socket_address::parse("127.0.0.1:0"));
        udp_socket tx(socket_address::parse("127.0.0.1:0"));
        CPPUNIT_ASSERT(rx.enable_gro()); // Linux >= 5.0, as every machine here
        std::vector<size_t> lengths(9, 1400);
        lengths.push_back(321);
        std::vector<std::vector<uint8_t>> payloads;
        std::vector<datagram> batch(lengths.size());
        for (size_t i = 0; i < lengths.size(); i++) {
            payloads.emplace_back(lengths[i], static_cast<uint8_t>(0xA0 + i));
            batch[i].data = payloads.back().data();
            batch[i].length = lengths[i];
            batch[i].peer = rx.local_address();
        }
        CPPUNIT_ASSERT_EQUAL(batch.size(), tx.send_batch(batch.data(), batch.size()));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), tx.segmented_sends());

        std::vector<uint8_t> buffer(65536);
        std::vector<std::vector<uint8_t>> got;
        size_t coalesced = 0;
        while (got.size() < lengths.size()) {
            datagram slot;
            slot.data = buffer.data();
            slot.capacity = buffer.size();
            CPPUNIT_ASSERT(rx.receive(slot, 1s));
            CPPUNIT_ASSERT(!slot.truncated);
            CPPUNIT_ASSERT_EQUAL(tx.local_address().to_string(), slot.peer.to_string());
            coalesced += slot.segment > 0 && slot.segment < slot.length;
            for_each_segment(slot, [&](const uint8_t* p, size_t n) {
                got.emplace_back(p, p + n);
            });
        }
        CPPUNIT_ASSERT(coalesced >= 1);
        CPPUNIT_ASSERT(payloads == got);
    }

    void test_for_each_segment_tiles_the_buffer()
    {
        uint8_t bytes[10] = {};
        auto parts = [&](size_t length, size_t segment) {
            datagram d;
            d.data = bytes;
            d.length = length;
            d.segment = segment;
            std::vector<std::pair<size_t, size_t>> out; // (offset, length)
            for_each_segment(d, [&](const uint8_t* p, size_t n) {
                out.emplace_back(static_cast<size_t>(p - bytes), n);
            });
            return out;
        };
        using parts_t = std::vector<std::pair<size_t, size_t>>;
        CPPUNIT_ASSERT(parts(10, 4) == (parts_t{ { 0, 4 }, { 4, 4 }, { 8, 2 } }));
        CPPUNIT_ASSERT(parts(8, 4) == (parts_t{ { 0, 4 }, { 4, 4 } }));
        CPPUNIT_ASSERT(parts(10, 0) == (parts_t{ { 0, 10 } }));  // not coalesced
        CPPUNIT_ASSERT(parts(10, 10) == (parts_t{ { 0, 10 } })); // one datagram
        CPPUNIT_ASSERT(parts(10, 64) == (parts_t{ { 0, 10 } }));
        CPPUNIT_ASSERT(parts(0, 4) == (parts_t{ { 0, 0 } }));    // an empty datagram
    }

    void test_event_notifier()
    {
        event_notifier n;
        CPPUNIT_ASSERT(!n.wait(1ms));
        std::thread t([&] {
            std::this_thread::sleep_for(5ms);
            n.notify();
        });
        CPPUNIT_ASSERT(n.wait(5s));
        t.join();
        CPPUNIT_ASSERT(!n.wait(0us));
    }

    void test_cpu_by_role()
    {
        const auto before = process_cpu_by_role();
        auto burn = [](std::chrono::milliseconds how_long) {
            const auto end = std::chrono::steady_clock::now() + how_long;
            volatile uint64_t x = 0;
            while (std::chrono::steady_clock::now() < end)
                x = x + 1;
        };
        std::thread nic([&] {
            thread_role_scope role(thread_role::nic, "qa-nic");
            burn(60ms);
        });
        nic.join();
        const auto after = process_cpu_by_role();
        const auto used = after - before;
        // The NIC thread's CPU is charged to the NIC, not to the host; it spun for 60 ms
        // of wall time, so it used at least some and no more than that much CPU.
        CPPUNIT_ASSERT(used.nic > 0.005);
        CPPUNIT_ASSERT(used.nic < 0.2);
        CPPUNIT_ASSERT(used.device == 0.0);
        CPPUNIT_ASSERT(used.host >= 0.0);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_util);
