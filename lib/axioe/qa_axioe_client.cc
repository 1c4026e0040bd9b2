/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The AXIoE client against a server on loopback, a silent port, a scripted device and
// a lossy relay: bursts, errors, timeouts, invalid responses, loss and reordering.

#include "axioe_client.h"
#include "qa_axioe_helpers.h"
#include "util/event_notifier.h"
#include "util/poll_wait.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace qa_axioe;
using namespace std::chrono_literals;

namespace {

/*
 * A bad network between client and server: drops request_loss_percent of the
 * requests and response_loss_percent of the responses, delays delay_percent of the
 * responses by `delay` (past the client's timeout, so that the client retries and the
 * late one arrives stale), and sends every response that gets through twice, the copy
 * right after the next response: the copy arrives reordered and stale. Decisions come
 * from a seeded PRNG.
 */
class lossy_relay
{
public:
    static constexpr int request_loss_percent = 30;
    static constexpr int response_loss_percent = 10;
    static constexpr int delay_percent = 3;

    lossy_relay(const socket_address& server,
                std::chrono::microseconds delay,
                uint64_t seed)
        : d_front(loopback()),
          d_back(loopback()),
          d_server(server),
          d_delay(delay),
          d_rng(seed)
    {
        d_thread = std::thread([this] { run(); });
    }
    ~lossy_relay()
    {
        d_stop = true;
        d_wake.notify();
        d_thread.join();
    }
    //! Where the client sends its requests.
    socket_address address() const { return d_front.local_address(); }

    std::atomic<uint64_t> requests_dropped{ 0 };
    std::atomic<uint64_t> responses_dropped{ 0 };
    std::atomic<uint64_t> responses_delayed{ 0 };
    std::atomic<uint64_t> responses_duplicated{ 0 };

private:
    using clock_type = std::chrono::steady_clock;
    struct delayed {
        clock_type::time_point due;
        bytes datagram;
    };

    bool chance(int percent) { return static_cast<int>(d_rng() % 100) < percent; }

    void forward_response(const bytes& b)
    {
        d_front.send_to(b.data(), b.size(), d_client);
        if (!d_held.empty()) {
            d_front.send_to(d_held.data(), d_held.size(), d_client);
            responses_duplicated++;
        }
        d_held = b;
    }

    void run()
    {
        uint8_t buf[2048];
        while (!d_stop) {
            auto timeout = std::chrono::microseconds(100000);
            if (!d_delayed.empty())
                timeout = std::max(std::chrono::microseconds(0),
                                   std::chrono::ceil<std::chrono::microseconds>(
                                       d_delayed.front().due - clock_type::now()));
            pollfd fds[3] = { { d_front.fd(), POLLIN, 0 },
                              { d_back.fd(), POLLIN, 0 },
                              { d_wake.fd(), POLLIN, 0 } };
            poll_wait(fds, 3, timeout);
            datagram d;
            d.data = buf;
            d.capacity = sizeof(buf);
            while (d_front.receive_batch(&d, 1) == 1) {
                d_client = d.peer;
                if (chance(request_loss_percent))
                    requests_dropped++;
                else
                    d_back.send_to(buf, d.length, d_server);
            }
            while (d_back.receive_batch(&d, 1) == 1) {
                bytes b(buf, buf + d.length);
                if (chance(response_loss_percent)) {
                    responses_dropped++;
                } else if (chance(delay_percent)) {
                    responses_delayed++;
                    d_delayed.push_back({ clock_type::now() + d_delay, std::move(b) });
                } else {
                    forward_response(b);
                }
            }
            while (!d_delayed.empty() && d_delayed.front().due <= clock_type::now()) {
                forward_response(d_delayed.front().datagram);
                d_delayed.pop_front();
            }
        }
    }

    udp_socket d_front; // faces the client
    udp_socket d_back;  // faces the server, which sees the relay as its client
    socket_address d_server;
    socket_address d_client;
    std::chrono::microseconds d_delay;
    std::mt19937_64 d_rng;
    bytes d_held;
    std::deque<delayed> d_delayed;
    event_notifier d_wake;
    std::atomic<bool> d_stop{ false };
    std::thread d_thread;
};

/*
 * A fake device that answers the first request it receives with the datagrams
 * \p script returns (each sent from the device's address unless it says otherwise).
 */
struct scripted_reply {
    bytes datagram;
    bool from_elsewhere = false;
};
class scripted_device
{
public:
    using script_fn = std::function<std::vector<scripted_reply>(const request&)>;
    explicit scripted_device(script_fn script) : d_script(std::move(script))
    {
        d_thread = std::thread([this] {
            socket_address client;
            const bytes req = d_device.receive(5s, &client);
            request r;
            if (req.empty() ||
                decode_request(req.data(), req.size(), r) != parse_status::ok)
                return;
            for (const auto& reply : d_script(r))
                (reply.from_elsewhere ? d_elsewhere : d_device)
                    .send(reply.datagram, client);
        });
    }
    ~scripted_device() { d_thread.join(); }
    socket_address address() const { return d_device.address(); }

private:
    script_fn d_script;
    raw_peer d_device;
    raw_peer d_elsewhere;
    std::thread d_thread;
};

} // namespace

class qa_axioe_client : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_axioe_client);
    CPPUNIT_TEST(test_client_reads_and_writes);
    CPPUNIT_TEST(test_client_fixed_bursts_use_one_address);
    CPPUNIT_TEST(test_client_splits_long_bursts);
    CPPUNIT_TEST(test_atomic_bursts_are_never_split);
    CPPUNIT_TEST(test_device_errors_raise_axioe_error);
    CPPUNIT_TEST(test_client_rejects_bad_arguments_locally);
    CPPUNIT_TEST(test_timeout_names_the_device);
    CPPUNIT_TEST(test_client_discards_invalid_responses);
    CPPUNIT_TEST(test_client_reports_unsupported_version);
    CPPUNIT_TEST(test_survives_loss_duplication_and_reordering);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_client_reads_and_writes()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());

        c.write32(0x10, 0xDEADBEEF);
        CPPUNIT_ASSERT_EQUAL(0xDEADBEEFu, c.read32(0x10));
        CPPUNIT_ASSERT_EQUAL(0xDEADBEEFu, regs.ram(0x10));
        CPPUNIT_ASSERT(c.last_round_trip() > 0ns);
        CPPUNIT_ASSERT(c.last_round_trip() < 1s);
        CPPUNIT_ASSERT_EQUAL(1, c.last_attempts());

        std::vector<uint32_t> burst(10), back(10);
        for (size_t i = 0; i < burst.size(); i++)
            burst[i] = 0x1000u + i;
        c.write(0x100, burst.data(), burst.size());
        c.read(0x100, back.data(), back.size());
        CPPUNIT_ASSERT(back == burst);
        CPPUNIT_ASSERT_EQUAL(0x1009u, regs.ram(0x100 + 9 * 4));

        // 64-bit values: one 2-word burst, low word at the lower address.
        const uint64_t executed = srv.stats().executed;
        c.write64(0x200, 0x0123456789ABCDEFull);
        CPPUNIT_ASSERT_EQUAL(size_t(2), regs.last_count());
        CPPUNIT_ASSERT_EQUAL(0x89ABCDEFu, regs.ram(0x200));
        CPPUNIT_ASSERT_EQUAL(0x01234567u, regs.ram(0x204));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0x0123456789ABCDEFull), c.read64(0x200));
        CPPUNIT_ASSERT_EQUAL(size_t(2), regs.last_count());
        CPPUNIT_ASSERT_EQUAL(executed + 2, srv.stats().executed);

        const auto cs = c.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), cs.transactions);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), cs.retries);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), cs.timeouts);
        CPPUNIT_ASSERT(c.device() == srv.address());
    }

    void test_client_fixed_bursts_use_one_address()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());
        const std::vector<uint32_t> in = { 11, 22, 33, 44, 55 };
        c.write(test_registers::fifo, in.data(), in.size(), true);
        std::vector<uint32_t> out(in.size());
        c.read(test_registers::fifo, out.data(), out.size(), true);
        CPPUNIT_ASSERT(out == in);
        // The same access without FIXED walks on into unmapped space.
        CPPUNIT_ASSERT_THROW(c.read(test_registers::fifo, out.data(), 2), axioe::error);
    }

    void test_client_splits_long_bursts()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());
        std::vector<uint32_t> in(600), out(600);
        for (size_t i = 0; i < in.size(); i++)
            in[i] = 0xA0000000u + i;
        c.write(0, in.data(), in.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), srv.stats().executed); // 256 + 256 + 88
        CPPUNIT_ASSERT_EQUAL(size_t(88), regs.last_count());
        c.read(0, out.data(), out.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), srv.stats().executed);
        CPPUNIT_ASSERT(out == in);

        // FIXED bursts split too, all to the same address.
        std::vector<uint32_t> fifo_out(300);
        c.write(test_registers::fifo, in.data(), 300, true);
        c.read(test_registers::fifo, fifo_out.data(), 300, true);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), srv.stats().executed);
        CPPUNIT_ASSERT(std::equal(fifo_out.begin(), fifo_out.end(), in.begin()));

        // A device with a smaller limit: the client splits at that.
        client_options small;
        small.max_burst_words = 100;
        client c100(srv.address(), small);
        c100.read(0, out.data(), 250);
        CPPUNIT_ASSERT_EQUAL(uint64_t(13), srv.stats().executed);
        CPPUNIT_ASSERT_EQUAL(size_t(50), regs.last_count());
        // Lowered later, as a host does once it has read ID_MAX_BURST_WORDS.
        c.set_max_burst_words(16);
        CPPUNIT_ASSERT_EQUAL(size_t(16), c.max_burst_words());
        c.read(0, out.data(), 40);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), srv.stats().executed); // 16 + 16 + 8
        CPPUNIT_ASSERT_EQUAL(size_t(8), regs.last_count());
        CPPUNIT_ASSERT_THROW(c.set_max_burst_words(0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(c100.set_max_burst_words(101), std::invalid_argument);
    }

    void test_atomic_bursts_are_never_split()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());
        c.set_max_burst_words(3);
        const uint32_t in[4] = { 1, 2, 3, 4 };
        uint32_t out[4] = {};
        c.write_atomic(0x40, in, 3);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), srv.stats().executed);
        CPPUNIT_ASSERT_EQUAL(size_t(3), regs.last_count());
        c.read_atomic(0x40, out, 3);
        CPPUNIT_ASSERT_EQUAL(3u, out[2]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.read64(0x44) >> 32);
        // Longer than the device takes: refused before anything is sent, naming it.
        const uint64_t before = c.stats().transactions;
        try {
            c.write_atomic(0x40, in, 4);
            CPPUNIT_FAIL("a 4-word atomic write went out in bursts of 3");
        } catch (const burst_limit_error& e) {
            CPPUNIT_ASSERT_EQUAL("AXIoE write 0x40 (4 words) to " +
                                     srv.address().to_string() +
                                     " must be one burst, but the device takes at most 3 "
                                     "words per burst (its ID_MAX_BURST_WORDS, or "
                                     "client_options::max_burst_words): it cannot serve "
                                     "this host",
                                 std::string(e.what()));
        }
        CPPUNIT_ASSERT_THROW(c.read_atomic(0x40, out, 4), burst_limit_error);
        CPPUNIT_ASSERT_EQUAL(before, c.stats().transactions);
        CPPUNIT_ASSERT_EQUAL(0u, regs.ram(0x4C));
        c.set_max_burst_words(1);
        CPPUNIT_ASSERT_THROW(c.read64(0x40), burst_limit_error);
        CPPUNIT_ASSERT_THROW(c.write64(0x40, 1), burst_limit_error);
    }

    void test_device_errors_raise_axioe_error()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());
        try {
            c.write32(test_registers::read_only, 1);
            CPPUNIT_FAIL("write to a read-only register succeeded");
        } catch (const axioe::error& e) {
            CPPUNIT_ASSERT(e.code() == status::slverr);
            CPPUNIT_ASSERT_EQUAL(test_registers::read_only, e.address());
            CPPUNIT_ASSERT_EQUAL("AXIoE write 0x2000 (1 word) to " +
                                     srv.address().to_string() +
                                     " failed: SLVERR (register refused the access)",
                                 std::string(e.what()));
        }
        uint32_t out[4];
        try {
            c.read(0x8000, out, 4);
            CPPUNIT_FAIL("read of unmapped addresses succeeded");
        } catch (const axioe::error& e) {
            CPPUNIT_ASSERT(e.code() == status::decerr);
            CPPUNIT_ASSERT_EQUAL("AXIoE read 0x8000 (4 words) from " +
                                     srv.address().to_string() +
                                     " failed: DECERR (no register at that address)",
                                 std::string(e.what()));
        }
        // A burst that runs from RAM into the command register and beyond fails whole.
        const uint32_t w[4] = { 1, 2, 3, 4 };
        CPPUNIT_ASSERT_THROW(c.write(0x0FF8, w, 4), axioe::error);
        CPPUNIT_ASSERT_EQUAL(0u, regs.ram(0x0FF8));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), regs.command_executions());
        // Errors are answers: nothing timed out or was retried.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.stats().timeouts);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.stats().retries);
    }

    void test_client_rejects_bad_arguments_locally()
    {
        test_registers regs;
        server srv(loopback(), regs);
        client c(srv.address());
        uint32_t w[2] = { 0, 0 };
        CPPUNIT_ASSERT_THROW(c.read32(0x2), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(c.write(0x1, w, 1), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(c.read(0xFFFFFFFC, w, 2), std::invalid_argument);
        c.read(0xFFFFFFFC, w, 0); // nothing to do
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.stats().transactions);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), srv.stats().requests);

        client_options bad;
        bad.max_burst_words = 257;
        CPPUNIT_ASSERT_THROW(client(srv.address(), bad), std::invalid_argument);
        bad = {};
        bad.timeout = 0us;
        CPPUNIT_ASSERT_THROW(client(srv.address(), bad), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(client(socket_address::parse("127.0.0.1")),
                             std::invalid_argument);
    }

    void test_timeout_names_the_device()
    {
        raw_peer silent; // holds the port, so that nothing else answers on it
        client_options opts;
        opts.timeout = 3ms;
        opts.retries = 2;
        client c(silent.address(), opts);
        const auto start = std::chrono::steady_clock::now();
        try {
            c.read32(0x1234);
            CPPUNIT_FAIL("read from a silent port succeeded");
        } catch (const timeout_error& e) {
            const std::string what = e.what();
            const std::string device = silent.address().to_string();
            CPPUNIT_ASSERT_EQUAL(3, e.attempts());
            CPPUNIT_ASSERT_EQUAL(0x1234u, e.address());
            CPPUNIT_ASSERT_MESSAGE(what, what.find("read 0x1234") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(what,
                                   what.find("after 3 attempts") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(what,
                                   what.find("is the device at " + device +
                                             " running and reachable? check addr= in the "
                                             "device args") != std::string::npos);
        }
        CPPUNIT_ASSERT(std::chrono::steady_clock::now() - start >= 9ms);
        const auto s = c.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.transactions);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), s.retries);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s.timeouts);
        // The same datagram, sequence included, went out three times.
        const bytes first = silent.receive(100ms);
        CPPUNIT_ASSERT(!first.empty());
        CPPUNIT_ASSERT(silent.receive(100ms) == first);
        CPPUNIT_ASSERT(silent.receive(100ms) == first);
        CPPUNIT_ASSERT(silent.receive(10ms).empty());
    }

    void test_client_discards_invalid_responses()
    {
        scripted_device dev([](const request& r) {
            const auto ok = response_to(r, status::okay);
            const bytes good = encode(ok, { 0x600D });
            std::vector<scripted_reply> script;
            auto variant = [&](auto change) {
                response v = ok;
                change(v);
                script.push_back({ encode(v, { 0xBAD, 0xBAD }) });
            };
            variant([](response& v) { v.sequence++; });            // stale
            variant([](response& v) { v.request_opcode = 0x03; }); // other opcode
            variant([](response& v) { v.address += 4; });          // other address
            variant([](response& v) { v.count = 2; });             // other count
            bytes garbage = good;
            garbage[0] = 0x12; // not AXIoE
            script.push_back({ garbage });
            script.push_back({ bytes(good.begin(), good.end() - 1) }); // cut short
            script.push_back({ encode(ok, { 0xBAD }), true });         // foreign source
            script.push_back({ good });
            return script;
        });
        client_options opts;
        opts.timeout = 2s; // the answers come at once; no retry may blur the count
        client c(dev.address(), opts);
        CPPUNIT_ASSERT_EQUAL(0x600Du, c.read32(0x40));
        const auto s = c.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), s.discarded_responses);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.retries);
    }

    void test_client_reports_unsupported_version()
    {
        scripted_device dev([](const request& r) {
            response v = response_to(r, status::unsupported_version);
            v.version = 2;
            return std::vector<scripted_reply>{ { encode(v) } };
        });
        client c(dev.address());
        try {
            c.write32(0x40, 1);
            CPPUNIT_FAIL("a device of another version accepted a request");
        } catch (const axioe::error& e) {
            CPPUNIT_ASSERT(e.code() == status::unsupported_version);
            const std::string what = e.what();
            CPPUNIT_ASSERT_MESSAGE(what,
                                   what.find("speaks version 2") != std::string::npos);
        }
    }

    // Acceptance: the register state stays exact over a network that loses, duplicates,
    // delays and reorders, and every command executes exactly once.
    void test_survives_loss_duplication_and_reordering()
    {
        constexpr int transactions = 2400;
        constexpr uint32_t window_words = 64;
        test_registers regs;
        server srv(loopback(), regs);
        client_options opts;
        opts.timeout = 4ms;
        opts.retries = 20; // 21 losses in a row: ~0.4^21, never in this run
        lossy_relay relay(srv.address(), 10ms, 0xA410E);
        client c(relay.address(), opts);

        std::mt19937 rng(2026);
        std::vector<uint32_t> shadow(window_words, 0);
        uint64_t command_writes = 0;
        std::vector<uint32_t> buf(16);
        for (int i = 0; i < transactions; i++) {
            const uint32_t at = rng() % window_words;
            const size_t n = 1 + rng() % std::min<uint32_t>(16, window_words - at);
            switch (rng() % 4) {
            case 0: {
                const uint32_t v = rng();
                c.write32(at * 4, v);
                shadow[at] = v;
                break;
            }
            case 1:
                for (size_t k = 0; k < n; k++)
                    buf[k] = shadow[at + k] = rng();
                c.write(at * 4, buf.data(), n);
                break;
            case 2:
                c.read(at * 4, buf.data(), n);
                for (size_t k = 0; k < n; k++)
                    CPPUNIT_ASSERT_EQUAL(shadow[at + k], buf[k]);
                break;
            default:
                c.write32(test_registers::command, i);
                command_writes++;
            }
        }
        std::vector<uint32_t> all(window_words);
        c.read(0, all.data(), all.size());
        CPPUNIT_ASSERT(all == shadow);

        CPPUNIT_ASSERT_EQUAL(command_writes, regs.command_executions());
        const auto cs = c.stats();
        const auto ss = srv.stats();
        CPPUNIT_ASSERT_EQUAL(uint64_t(transactions + 1), cs.transactions);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), cs.timeouts);
        CPPUNIT_ASSERT(cs.retries > 0);
        CPPUNIT_ASSERT(cs.discarded_responses > 0);
        CPPUNIT_ASSERT(relay.requests_dropped > 0);
        CPPUNIT_ASSERT(relay.responses_delayed > 0);
        CPPUNIT_ASSERT(relay.responses_duplicated > 0);
        // Retransmissions of executed requests happened and were not executed again.
        CPPUNIT_ASSERT(ss.answered_from_cache > 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(transactions + 1), ss.executed);
        CPPUNIT_ASSERT_EQUAL(
            ss.requests, ss.executed + ss.answered_from_cache + ss.malformed + ss.stale);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), ss.malformed);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_axioe_client);
