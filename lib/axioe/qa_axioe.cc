/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "axioe_client.h"
#include "axioe_packet.h"
#include "axioe_server.h"
#include "util/event_notifier.h"
#include "util/poll_wait.h"
#include "util/udp_socket.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <dirent.h>
#include <initializer_list>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::axioe;
using namespace std::chrono_literals;
using bytes = std::vector<uint8_t>;

namespace {

/*
 * The device's registers as far as these tests need them:
 *   0x0000..0x0FFC  1024 read/write words
 *   0x1000          command: write-only, counts the words written to it (executions);
 *                   reading it is refused (SLVERR)
 *   0x2000          read-only: writing it is refused (SLVERR)
 *   0x3000          FIFO: writes push, reads pop (0 when empty)
 *   anything else   DECERR
 * A burst is checked whole before any of it is executed, so a failing burst has no
 * effect, as register_target asks.
 */
class test_registers : public register_target
{
public:
    static constexpr uint32_t ram_words = 1024;
    static constexpr uint32_t command = 0x1000;
    static constexpr uint32_t read_only = 0x2000;
    static constexpr uint32_t fifo = 0x3000;

    status read(uint32_t address, uint32_t* out, size_t count, bool fixed) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_last_count = count;
        for (size_t i = 0; i < count; i++) {
            const status s = check(at(address, i, fixed), false);
            if (s != status::okay)
                return s;
        }
        for (size_t i = 0; i < count; i++) {
            const uint32_t a = at(address, i, fixed);
            if (a == fifo) {
                out[i] = d_fifo.empty() ? 0 : d_fifo.front();
                if (!d_fifo.empty())
                    d_fifo.pop_front();
            } else if (a == read_only) {
                out[i] = 0xC0FFEE00;
            } else {
                out[i] = d_ram[a / 4];
            }
        }
        return status::okay;
    }

    status
    write(uint32_t address, const uint32_t* words, size_t count, bool fixed) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_last_count = count;
        for (size_t i = 0; i < count; i++) {
            const status s = check(at(address, i, fixed), true);
            if (s != status::okay)
                return s;
        }
        for (size_t i = 0; i < count; i++) {
            const uint32_t a = at(address, i, fixed);
            if (a == command)
                d_command_executions++;
            else if (a == fifo)
                d_fifo.push_back(words[i]);
            else
                d_ram[a / 4] = words[i];
        }
        return status::okay;
    }

    uint64_t command_executions() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_command_executions;
    }
    size_t last_count() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_last_count;
    }
    uint32_t ram(uint32_t address) const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_ram[address / 4];
    }

private:
    static uint32_t at(uint32_t address, size_t i, bool fixed)
    {
        return fixed ? address : address + static_cast<uint32_t>(4 * i);
    }
    static status check(uint32_t a, bool is_write)
    {
        if (a < ram_words * 4 || a == fifo)
            return status::okay;
        if (a == command)
            return is_write ? status::okay : status::slverr;
        if (a == read_only)
            return is_write ? status::slverr : status::okay;
        return status::decerr;
    }

    mutable std::mutex d_mutex;
    std::vector<uint32_t> d_ram = std::vector<uint32_t>(ram_words, 0);
    std::deque<uint32_t> d_fifo;
    uint64_t d_command_executions = 0;
    size_t d_last_count = 0;
};

socket_address loopback() { return socket_address::parse("127.0.0.1:0"); }

bytes encode(const request& r, const std::vector<uint32_t>& words = {})
{
    bytes out(request_length(r.op, r.count));
    encode_request(out.data(), r, words.data());
    return out;
}

request make_request(opcode op, uint32_t sequence, uint32_t address, uint16_t count)
{
    request r;
    r.op = op;
    r.sequence = sequence;
    r.address = address;
    r.count = count;
    return r;
}

bytes encode(const response& r, const std::vector<uint32_t>& words = {})
{
    bytes out(response_length(r));
    encode_response(out.data(), r, words.data());
    return out;
}

// A plain UDP endpoint for speaking raw AXIoE to a server.
class raw_peer
{
public:
    raw_peer() : d_socket(loopback()) {}
    socket_address address() const { return d_socket.local_address(); }
    void send(const bytes& b, const socket_address& to)
    {
        d_socket.send_to(b.data(), b.size(), to);
    }
    //! The next datagram, or an empty vector after \p timeout.
    bytes receive(std::chrono::microseconds timeout, socket_address* from = nullptr)
    {
        uint8_t buf[2048];
        datagram d;
        d.data = buf;
        d.capacity = sizeof(buf);
        if (!d_socket.receive(d, timeout))
            return {};
        if (from)
            *from = d.peer;
        return bytes(buf, buf + d.length);
    }

private:
    udp_socket d_socket;
};

response decode_ok(const bytes& b)
{
    response r;
    CPPUNIT_ASSERT_EQUAL(std::string("ok"),
                         std::string(to_string(decode_response(b.data(), b.size(), r))));
    return r;
}

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

class qa_axioe : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_axioe);
    CPPUNIT_TEST(test_codec_round_trip_every_opcode);
    CPPUNIT_TEST(test_codec_golden_read_request);
    CPPUNIT_TEST(test_codec_golden_write_response);
    CPPUNIT_TEST(test_codec_golden_write_request_and_read_response);
    CPPUNIT_TEST(test_codec_rejects_malformed_requests);
    CPPUNIT_TEST(test_codec_rejects_malformed_responses);
    CPPUNIT_TEST(test_codec_rejection_answers);
    CPPUNIT_TEST(test_client_reads_and_writes);
    CPPUNIT_TEST(test_client_fixed_bursts_use_one_address);
    CPPUNIT_TEST(test_client_splits_long_bursts);
    CPPUNIT_TEST(test_device_errors_raise_axioe_error);
    CPPUNIT_TEST(test_client_rejects_bad_arguments_locally);
    CPPUNIT_TEST(test_timeout_names_the_device);
    CPPUNIT_TEST(test_client_discards_invalid_responses);
    CPPUNIT_TEST(test_client_reports_unsupported_version);
    CPPUNIT_TEST(test_survives_loss_duplication_and_reordering);
    CPPUNIT_TEST(test_server_answers_retransmission_from_cache);
    CPPUNIT_TEST(test_server_keeps_clients_apart);
    CPPUNIT_TEST(test_server_evicts_least_recent_client);
    CPPUNIT_TEST(test_server_handles_malformed_requests);
    CPPUNIT_TEST(test_server_drops_stale_and_refuses_reused_sequence);
    CPPUNIT_TEST(test_server_shutdown_joins_its_thread);
    CPPUNIT_TEST_SUITE_END();

public:
    // ---- codec ------------------------------------------------------------------------

    void test_codec_round_trip_every_opcode()
    {
        std::mt19937 rng(7);
        for (opcode op :
             { opcode::read, opcode::write, opcode::read_fixed, opcode::write_fixed }) {
            for (uint16_t count : { 1, 7, 256 }) {
                std::vector<uint32_t> words(count);
                for (auto& w : words)
                    w = rng();
                const request sent = make_request(op, rng(), 0x00ABC000, count);
                const bytes b = encode(sent, words);
                CPPUNIT_ASSERT_EQUAL(header_bytes + (is_write(op) ? count * 4u : 0u),
                                     b.size());

                request got;
                CPPUNIT_ASSERT(decode_request(b.data(), b.size(), got) ==
                               parse_status::ok);
                CPPUNIT_ASSERT(got.op == op);
                CPPUNIT_ASSERT_EQUAL(sent.sequence, got.sequence);
                CPPUNIT_ASSERT_EQUAL(sent.address, got.address);
                CPPUNIT_ASSERT_EQUAL(sent.count, got.count);
                CPPUNIT_ASSERT_EQUAL(is_write(op), got.payload != nullptr);
                if (is_write(op)) {
                    std::vector<uint32_t> back(count);
                    load_words(got.payload, back.data(), count);
                    CPPUNIT_ASSERT(back == words);
                }

                for (status code :
                     { status::okay, status::exokay, status::slverr, status::decerr }) {
                    const bytes rb = encode(response_to(got, code), words);
                    const response answer = decode_ok(rb);
                    CPPUNIT_ASSERT_EQUAL(uint8_t(op), answer.request_opcode);
                    CPPUNIT_ASSERT_EQUAL(sent.sequence, answer.sequence);
                    CPPUNIT_ASSERT_EQUAL(sent.address, answer.address);
                    CPPUNIT_ASSERT_EQUAL(sent.count, answer.count);
                    CPPUNIT_ASSERT(answer.code == code);
                    const bool has_data = !is_write(op) && is_success(code);
                    CPPUNIT_ASSERT_EQUAL(has_data, answer.payload != nullptr);
                    CPPUNIT_ASSERT_EQUAL(header_bytes + (has_data ? count * 4u : 0u),
                                         rb.size());
                    if (has_data) {
                        std::vector<uint32_t> back(count);
                        load_words(answer.payload, back.data(), count);
                        CPPUNIT_ASSERT(back == words);
                    }
                }
            }
        }
    }

    // Written out by hand from docs/axioe.md; the same bytes are its read example.
    void test_codec_golden_read_request()
    {
        const bytes golden = { 0xAE, 0x10, 0x01, 0x01, 0x00, 0x00, 0x00, 0x2A,
                               0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00 };
        CPPUNIT_ASSERT(encode(make_request(opcode::read, 42, 0x0100, 2)) == golden);
        request r;
        CPPUNIT_ASSERT(decode_request(golden.data(), golden.size(), r) ==
                       parse_status::ok);
        CPPUNIT_ASSERT(r.op == opcode::read);
        CPPUNIT_ASSERT_EQUAL(uint32_t(42), r.sequence);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0x0100), r.address);
        CPPUNIT_ASSERT_EQUAL(uint16_t(2), r.count);
    }

    // The write example of docs/axioe.md: the response to a write of 0x2000, refused
    // (SLVERR) and accepted.
    void test_codec_golden_write_response()
    {
        const bytes golden = { 0xAE, 0x10, 0x01, 0x82, 0x00, 0x00, 0x00, 0x2B,
                               0x00, 0x00, 0x20, 0x00, 0x00, 0x01, 0x02, 0x00 };
        const request w = make_request(opcode::write, 43, 0x2000, 1);
        CPPUNIT_ASSERT(encode(response_to(w, status::slverr)) == golden);
        const response r = decode_ok(golden);
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x02), r.request_opcode);
        CPPUNIT_ASSERT_EQUAL(uint32_t(43), r.sequence);
        CPPUNIT_ASSERT_EQUAL(uint32_t(0x2000), r.address);
        CPPUNIT_ASSERT_EQUAL(uint16_t(1), r.count);
        CPPUNIT_ASSERT(r.code == status::slverr);
        CPPUNIT_ASSERT(r.payload == nullptr);
        // Accepted, it differs in the status byte only.
        bytes okay = golden;
        okay[14] = 0x00;
        CPPUNIT_ASSERT(encode(response_to(w, status::okay)) == okay);
    }

    // The other halves of the two examples: data words are big-endian.
    void test_codec_golden_write_request_and_read_response()
    {
        const bytes write_golden = { 0xAE, 0x10, 0x01, 0x02, 0x00, 0x00, 0x00,
                                     0x2B, 0x00, 0x00, 0x20, 0x00, 0x00, 0x01,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
        CPPUNIT_ASSERT(encode(make_request(opcode::write, 43, 0x2000, 1), { 1 }) ==
                       write_golden);
        const bytes read_golden = { 0xAE, 0x10, 0x01, 0x81, 0x00, 0x00, 0x00, 0x2A,
                                    0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00,
                                    0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67 };
        const request r = make_request(opcode::read, 42, 0x0100, 2);
        CPPUNIT_ASSERT(encode(response_to(r, status::okay), { 0x89ABCDEF, 0x01234567 }) ==
                       read_golden);
        const response got = decode_ok(read_golden);
        uint32_t w[2];
        load_words(got.payload, w, 2);
        CPPUNIT_ASSERT_EQUAL(0x89ABCDEFu, w[0]);
        CPPUNIT_ASSERT_EQUAL(0x01234567u, w[1]);
    }

    void test_codec_rejects_malformed_requests()
    {
        const bytes good = encode(make_request(opcode::write, 5, 0x40, 2), { 1, 2 });
        auto check = [&](parse_status want, bytes b) {
            request r;
            CPPUNIT_ASSERT_EQUAL(
                std::string(to_string(want)),
                std::string(to_string(decode_request(b.data(), b.size(), r))));
        };
        auto with = [&](size_t at, uint8_t value) {
            bytes b = good;
            b[at] = value;
            return b;
        };
        check(parse_status::ok, good);
        check(parse_status::too_short, {});
        check(parse_status::too_short, bytes(good.begin(), good.begin() + 15));
        check(parse_status::bad_magic, with(0, 0xAF));
        check(parse_status::bad_magic, with(1, 0x11));
        check(parse_status::bad_version, with(2, 0));
        check(parse_status::bad_version, with(2, 2));
        check(parse_status::bad_opcode, with(3, 0x00));
        check(parse_status::bad_opcode, with(3, 0x05));
        check(parse_status::bad_opcode, with(3, 0x7F));
        check(parse_status::not_a_request, with(3, 0x82));
        check(parse_status::bad_status, with(14, 0x02));
        check(parse_status::bad_reserved, with(15, 0x01));

        check(parse_status::bad_count, encode(make_request(opcode::read, 5, 0x40, 0)));
        check(parse_status::bad_count, encode(make_request(opcode::read, 5, 0x40, 257)));
        check(parse_status::unaligned, encode(make_request(opcode::read, 5, 0x42, 1)));
        check(parse_status::unaligned, encode(make_request(opcode::read, 5, 0x41, 1)));
        check(parse_status::wraps, encode(make_request(opcode::read, 5, 0xFFFFFFFC, 2)));
        check(parse_status::ok, encode(make_request(opcode::read, 5, 0xFFFFFFFC, 1)));
        check(parse_status::ok,
              encode(make_request(opcode::read_fixed, 5, 0xFFFFFFFC, 2)));

        bytes longer = good;
        longer.push_back(0);
        check(parse_status::bad_length, longer);
        check(parse_status::bad_length, bytes(good.begin(), good.end() - 1));
        bytes read_with_data = encode(make_request(opcode::read, 5, 0x40, 1));
        read_with_data.resize(20);
        check(parse_status::bad_length, read_with_data);
        // A response presented as a request.
        const bytes answer =
            encode(response_to(make_request(opcode::read, 5, 0x40, 1), status::decerr));
        check(parse_status::not_a_request, answer);
    }

    void test_codec_rejects_malformed_responses()
    {
        const request rd = make_request(opcode::read, 9, 0x80, 2);
        const bytes good = encode(response_to(rd, status::okay), { 1, 2 });
        auto check = [&](parse_status want, bytes b) {
            response r;
            CPPUNIT_ASSERT_EQUAL(
                std::string(to_string(want)),
                std::string(to_string(decode_response(b.data(), b.size(), r))));
        };
        auto with = [&](size_t at, uint8_t value) {
            bytes b = good;
            b[at] = value;
            return b;
        };
        check(parse_status::ok, good);
        check(parse_status::too_short, bytes(good.begin(), good.begin() + 15));
        check(parse_status::bad_magic, with(0, 0x00));
        check(parse_status::not_a_response,
              encode(rd)); // a request presented as response
        check(parse_status::bad_status, with(14, 0x04));
        check(parse_status::bad_status, with(14, 0x12));
        check(parse_status::bad_version, with(2, 2));
        check(parse_status::bad_reserved, with(15, 0x80));
        check(parse_status::bad_opcode, with(3, 0x85));
        check(parse_status::bad_opcode, with(3, 0x80));
        check(parse_status::bad_count, with(13, 0));
        check(parse_status::unaligned, with(11, 0x82));
        // Length must follow from opcode, count and status.
        check(parse_status::bad_length, bytes(good.begin(), good.end() - 4));
        bytes longer = good;
        longer.push_back(0);
        check(parse_status::bad_length, longer);
        check(parse_status::bad_length,
              with(14, uint8_t(status::decerr))); // error + data
        bytes write_ok_with_data =
            encode(response_to(make_request(opcode::write, 9, 0x80, 1), status::okay));
        write_ok_with_data.resize(20);
        check(parse_status::bad_length, write_ok_with_data);

        // Rejections echo whatever header the device could not accept, but carry no data.
        bytes rejection = with(14, uint8_t(status::bad_request));
        rejection.resize(header_bytes);
        rejection[3] = 0xFF;  // echoed opcode 0x7F
        rejection[13] = 0x00; // echoed count 0
        check(parse_status::ok, rejection);
        rejection.push_back(0);
        check(parse_status::bad_length, rejection);
        // UNSUPPORTED_VERSION carries the device's version, whatever it is.
        bytes other_version = with(14, uint8_t(status::unsupported_version));
        other_version.resize(header_bytes);
        other_version[2] = 7;
        check(parse_status::ok, other_version);
    }

    void test_codec_rejection_answers()
    {
        bytes b = encode(make_request(opcode::write, 0x11223344, 0x44, 1), { 9 });
        response r;
        // Not answerable: too short, not AXIoE, or a response.
        CPPUNIT_ASSERT(!make_rejection(b.data(), 15, parse_status::too_short, r));
        bytes wrong_magic = b;
        wrong_magic[0] = 0;
        CPPUNIT_ASSERT(
            !make_rejection(wrong_magic.data(), b.size(), parse_status::bad_magic, r));
        bytes a_response = b;
        a_response[3] |= response_bit;
        CPPUNIT_ASSERT(
            !make_rejection(a_response.data(), b.size(), parse_status::not_a_request, r));

        bytes v2 = b;
        v2[2] = 2;
        CPPUNIT_ASSERT(
            make_rejection(v2.data(), v2.size(), parse_status::bad_version, r));
        CPPUNIT_ASSERT(r.code == status::unsupported_version);
        CPPUNIT_ASSERT_EQUAL(protocol_version, r.version);
        CPPUNIT_ASSERT_EQUAL(0x11223344u, r.sequence);

        b[3] = 0x09;
        CPPUNIT_ASSERT(make_rejection(b.data(), b.size(), parse_status::bad_opcode, r));
        CPPUNIT_ASSERT(r.code == status::bad_request);
        CPPUNIT_ASSERT_EQUAL(uint8_t(0x09), r.request_opcode);
        CPPUNIT_ASSERT_EQUAL(0x44u, r.address);
        CPPUNIT_ASSERT_EQUAL(uint16_t(1), r.count);
        CPPUNIT_ASSERT_EQUAL(header_bytes, encode(r).size());
    }

    // ---- client and server ------------------------------------------------------------

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

    // ---- server -----------------------------------------------------------------------

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
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_axioe);
