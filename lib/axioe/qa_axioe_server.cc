/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The AXIoE server: retransmissions answered from the response cache, clients kept
// apart and evicted, malformed, stale and reused requests, and shutdown.

#include "axioe_client.h"
#include "qa_axioe_helpers.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <dirent.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace qa_axioe;
using namespace std::chrono_literals;

namespace {

size_t thread_count()
{
    size_t n = 0;
    if (DIR* d = opendir("/proc/self/task")) {
        while (dirent* e = readdir(d))
            n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

bool thread_named(const std::string& name)
{
    bool found = false;
    if (DIR* d = opendir("/proc/self/task")) {
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] == '.')
                continue;
            std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
            std::string line;
            std::getline(comm, line);
            found = found || line == name;
        }
        closedir(d);
    }
    return found;
}

} // namespace

class qa_axioe_server : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_axioe_server);
    CPPUNIT_TEST(test_server_answers_retransmission_from_cache);
    CPPUNIT_TEST(test_server_keeps_clients_apart);
    CPPUNIT_TEST(test_server_evicts_least_recent_client);
    CPPUNIT_TEST(test_server_handles_malformed_requests);
    CPPUNIT_TEST(test_server_refuses_bursts_beyond_its_limit);
    CPPUNIT_TEST(test_server_drops_stale_and_refuses_reused_sequence);
    CPPUNIT_TEST(test_server_shutdown_joins_its_thread);
    CPPUNIT_TEST(test_server_names_the_client_and_passes_not_owner);
    CPPUNIT_TEST(test_server_ticks_while_nobody_talks);
    CPPUNIT_TEST(test_posted_read_is_executed_and_forgotten);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_server_answers_retransmission_from_cache()
    {
        test_registers regs;
        server srv(loopback(), regs);
        raw_peer peer;
        const bytes req =
            encode(make_request(opcode::write, 77, test_registers::command, 1), { 1 });
        bytes first;
        for (int i = 0; i < 5; i++) {
            peer.send(req, srv.address());
            const bytes answer = peer.receive(1s);
            CPPUNIT_ASSERT(!answer.empty());
            if (i == 0)
                first = answer;
            CPPUNIT_ASSERT(answer == first);
        }
        CPPUNIT_ASSERT(decode_ok(first).code == status::okay);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), regs.command_executions());
        const auto s = srv.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), s.requests);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.executed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), s.answered_from_cache);

        // Reads are cached too: a FIFO read retried must not pop again.
        const std::vector<uint32_t> pushed = { 5, 6 };
        peer.send(encode(make_request(opcode::write_fixed, 78, test_registers::fifo, 2),
                         pushed),
                  srv.address());
        CPPUNIT_ASSERT(!peer.receive(1s).empty());
        const bytes pop =
            encode(make_request(opcode::read_fixed, 79, test_registers::fifo, 1));
        peer.send(pop, srv.address());
        const bytes popped = peer.receive(1s);
        peer.send(pop, srv.address());
        CPPUNIT_ASSERT(peer.receive(1s) == popped);
        uint32_t value = 0;
        load_words(decode_ok(popped).payload, &value, 1);
        CPPUNIT_ASSERT_EQUAL(5u, value);
        client c(srv.address());
        CPPUNIT_ASSERT_EQUAL(6u, c.read32(test_registers::fifo));
    }

    void test_server_keeps_clients_apart()
    {
        test_registers regs;
        server srv(loopback(), regs);
        raw_peer a, b;
        const bytes req =
            encode(make_request(opcode::write, 77, test_registers::command, 1), { 1 });
        a.send(req, srv.address());
        CPPUNIT_ASSERT(!a.receive(1s).empty());
        b.send(req, srv.address()); // same sequence, other source port: a new request
        CPPUNIT_ASSERT(!b.receive(1s).empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), regs.command_executions());
        a.send(req, srv.address());
        CPPUNIT_ASSERT(!a.receive(1s).empty());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), regs.command_executions());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), srv.stats().executed);
    }

    void test_server_evicts_least_recent_client()
    {
        test_registers regs;
        server srv(loopback(), regs);
        const bytes req =
            encode(make_request(opcode::write, 1, test_registers::command, 1), { 1 });
        auto exchange = [&](raw_peer& p) {
            p.send(req, srv.address());
            CPPUNIT_ASSERT(!p.receive(1s).empty());
        };
        // Fill the cache: 64 clients, a first.
        std::vector<std::unique_ptr<raw_peer>> peers;
        for (size_t i = 0; i < response_cache::max_clients; i++) {
            peers.push_back(std::make_unique<raw_peer>());
            exchange(*peers.back());
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), regs.command_executions());
        // All 64 are remembered: a's retransmission is answered from the cache, and a
        // becomes the most recent client.
        exchange(*peers[0]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(64), regs.command_executions());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), srv.stats().evicted_clients);
        // A 65th client evicts the least recently heard one: peers[1], not a.
        raw_peer newcomer;
        exchange(newcomer);
        CPPUNIT_ASSERT_EQUAL(uint64_t(65), regs.command_executions());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), srv.stats().evicted_clients);
        exchange(*peers[0]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(65), regs.command_executions());
        exchange(*peers[1]); // forgotten: its retransmission executes again
        CPPUNIT_ASSERT_EQUAL(uint64_t(66), regs.command_executions());
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), srv.stats().evicted_clients);
    }

    void test_server_handles_malformed_requests()
    {
        test_registers regs;
        server srv(loopback(), regs);
        raw_peer peer;
        const bytes good = encode(make_request(opcode::write, 100, 0x40, 1), { 3 });
        auto variant = [&](uint32_t sequence, size_t at, uint8_t value) {
            bytes b = good;
            b[7] = static_cast<uint8_t>(sequence);
            b[at] = value;
            return b;
        };
        // Dropped silently: too short, not AXIoE, a response.
        peer.send(bytes(good.begin(), good.begin() + 8), srv.address());
        peer.send(variant(101, 0, 0x00), srv.address());
        peer.send(variant(102, 3, 0x82), srv.address());
        // Answered: other version, bad opcode, oversized, count 0.
        peer.send(variant(103, 2, 0x02), srv.address());
        peer.send(variant(104, 3, 0x07), srv.address());
        bytes oversized = variant(105, 3, 0x02);
        oversized.resize(max_datagram_bytes + 100);
        peer.send(oversized, srv.address());
        peer.send(encode(make_request(opcode::read, 106, 0x40, 0)), srv.address());

        std::vector<response> answers;
        for (bytes b = peer.receive(1s); !b.empty(); b = peer.receive(100ms))
            answers.push_back(decode_ok(b));
        CPPUNIT_ASSERT_EQUAL(size_t(4), answers.size());
        std::sort(answers.begin(), answers.end(), [](auto& x, auto& y) {
            return x.sequence < y.sequence;
        });
        CPPUNIT_ASSERT_EQUAL(103u, answers[0].sequence);
        CPPUNIT_ASSERT(answers[0].code == status::unsupported_version);
        CPPUNIT_ASSERT_EQUAL(protocol_version, answers[0].version);
        CPPUNIT_ASSERT_EQUAL(104u, answers[1].sequence);
        CPPUNIT_ASSERT(answers[1].code == status::bad_request);
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x07), answers[1].request_opcode);
        CPPUNIT_ASSERT_EQUAL(105u, answers[2].sequence);
        CPPUNIT_ASSERT(answers[2].code == status::bad_request);
        CPPUNIT_ASSERT_EQUAL(106u, answers[3].sequence);
        CPPUNIT_ASSERT(answers[3].code == status::bad_request);

        const auto s = srv.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), s.requests);
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), s.malformed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.executed);
        CPPUNIT_ASSERT_EQUAL(0u, regs.ram(0x40));
        // The server is still there.
        client c(srv.address());
        c.write32(0x40, 8);
        CPPUNIT_ASSERT_EQUAL(8u, regs.ram(0x40));
    }

    void test_server_refuses_bursts_beyond_its_limit()
    {
        // A device that takes at most 16 words per burst (ID_MAX_BURST_WORDS):
        // longer bursts are malformed (docs/axioe.md §5), answered, not executed.
        test_registers regs;
        server srv(loopback(), regs, 16);
        raw_peer peer;
        peer.send(encode(make_request(opcode::write, 7, 0x40, 17),
                         std::vector<uint32_t>(17, 9)),
                  srv.address());
        const response r = decode_ok(peer.receive(1s));
        CPPUNIT_ASSERT(r.code == status::bad_request);
        CPPUNIT_ASSERT_EQUAL(7u, r.sequence);
        CPPUNIT_ASSERT_EQUAL(uint16_t(17), r.count);
        CPPUNIT_ASSERT_EQUAL(0u, regs.ram(0x40));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), srv.stats().malformed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), srv.stats().executed);
        // Not recorded: the same sequence number with a valid burst executes.
        peer.send(encode(make_request(opcode::write, 7, 0x40, 16),
                         std::vector<uint32_t>(16, 9)),
                  srv.address());
        CPPUNIT_ASSERT(decode_ok(peer.receive(1s)).code == status::okay);
        CPPUNIT_ASSERT_EQUAL(9u, regs.ram(0x40));
        // A client that knows the limit splits at it.
        client_options o;
        o.max_burst_words = 16;
        client c(srv.address(), o);
        std::vector<uint32_t> out(40);
        c.read(0, out.data(), out.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(4), srv.stats().executed);
        CPPUNIT_ASSERT_THROW(server(loopback(), regs, 0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(server(loopback(), regs, 257), std::invalid_argument);
    }

    void test_server_drops_stale_and_refuses_reused_sequence()
    {
        test_registers regs;
        server srv(loopback(), regs);
        raw_peer peer;
        auto write_req = [](uint32_t sequence, uint32_t value) {
            return encode(make_request(opcode::write, sequence, 0x40, 1), { value });
        };
        peer.send(write_req(100, 1), srv.address());
        CPPUNIT_ASSERT(decode_ok(peer.receive(1s)).code == status::okay);
        // A copy of an older request the client gave up on must not undo newer state.
        peer.send(write_req(90, 2), srv.address());
        CPPUNIT_ASSERT(peer.receive(100ms).empty());
        CPPUNIT_ASSERT_EQUAL(1u, regs.ram(0x40));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), srv.stats().stale);
        // A cached sequence number with other content: refused, not executed.
        peer.send(write_req(100, 3), srv.address());
        CPPUNIT_ASSERT(decode_ok(peer.receive(1s)).code == status::bad_request);
        CPPUNIT_ASSERT_EQUAL(1u, regs.ram(0x40));
        // The next sequence, and one far away (a restarted client), execute.
        peer.send(write_req(101, 4), srv.address());
        CPPUNIT_ASSERT(decode_ok(peer.receive(1s)).code == status::okay);
        CPPUNIT_ASSERT_EQUAL(4u, regs.ram(0x40));
        peer.send(write_req(101 + 0x80000000u, 5), srv.address());
        CPPUNIT_ASSERT(decode_ok(peer.receive(1s)).code == status::okay);
        CPPUNIT_ASSERT_EQUAL(5u, regs.ram(0x40));
        const auto s = srv.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), s.executed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.malformed);
    }

    void test_server_shutdown_joins_its_thread()
    {
        const size_t before = thread_count();
        test_registers regs;
        auto srv = std::make_unique<server>(loopback(), regs);
        CPPUNIT_ASSERT_EQUAL(before + 1, thread_count());
        {
            client c(srv->address());
            c.write32(0, 1);
        }
        // It has answered, so it has named itself.
        CPPUNIT_ASSERT(thread_named("emu-axi"));
        std::this_thread::sleep_for(20ms); // let the thread go back to waiting
        const auto start = std::chrono::steady_clock::now();
        srv.reset();
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - start < 200ms);
        CPPUNIT_ASSERT_EQUAL(before, thread_count());
    }

    void test_server_names_the_client_and_passes_not_owner()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client owner(srv.address());
        client other(srv.address());
        // The client's socket is bound to any address; the server sees loopback.
        auto as_seen = [](const client& c) {
            return socket_address(0x7F000001, c.local_address().port());
        };
        regs.set_owner(as_seen(owner));
        owner.write32(test_registers::owned, 5);
        CPPUNIT_ASSERT(regs.last_client() == as_seen(owner));
        try {
            other.write32(test_registers::owned, 6);
            CPPUNIT_FAIL("a client that does not own the register wrote it");
        } catch (const axioe::error& e) {
            CPPUNIT_ASSERT(e.code() == status::not_owner);
            const std::string what = e.what();
            CPPUNIT_ASSERT(what.find("failed: NOT_OWNER (the stream belongs to another "
                                     "client; nothing was executed)") !=
                           std::string::npos);
            CPPUNIT_ASSERT(what.find("take-over claim") != std::string::npos);
        }
        CPPUNIT_ASSERT(regs.last_client() == as_seen(other));
        CPPUNIT_ASSERT_EQUAL(5u, owner.read32(test_registers::owned));
        CPPUNIT_ASSERT_THROW(other.read32(test_registers::owned), axioe::error);
    }

    void test_server_ticks_while_nobody_talks()
    {
        // The target's timers (an owner's lease) must run without requests: the
        // server calls tick() at least as often as the target asks.
        test_registers regs;
        server srv(loopback(), regs);
        const uint64_t before = regs.ticks();
        std::this_thread::sleep_for(200ms);
        const uint64_t ticks = regs.ticks() - before;
        CPPUNIT_ASSERT_MESSAGE(std::to_string(ticks) + " ticks in 200 ms at 5 ms",
                               ticks >= 10);
    }

    void test_posted_read_is_executed_and_forgotten()
    {
        // A read nobody waits for (an owner's lease renewal): the device executes it,
        // and its late answer does not confuse the client's next transaction.
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());
        c.write32(0x10, 7);
        const uint64_t executed = srv.stats().executed;
        CPPUNIT_ASSERT(c.post_read(0x10));
        const auto deadline = std::chrono::steady_clock::now() + 1s;
        while (srv.stats().executed == executed &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
        CPPUNIT_ASSERT_EQUAL(executed + 1, srv.stats().executed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.stats().posted);
        CPPUNIT_ASSERT_EQUAL(7u, c.read32(0x10));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.stats().discarded_responses);
        CPPUNIT_ASSERT_THROW(c.post_read(0x11), std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_axioe_server);
