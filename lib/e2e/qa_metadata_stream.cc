/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rx_stream with the metadata channel, end to end: the embedded emulator and the
// emulator daemon (gr-rdma-emu) send stream start, timestamps and end; the host checks
// t0, refines its clock, and turns device events into reports and losses. Datagrams
// that are not the device's records are counted and change nothing.

#include "../meta/metadata_packet.h"
#include "../util/udp_socket.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/sample_format.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

struct run_result {
    uint64_t items = 0;
    uint64_t mismatches = 0;   // delivered items that are not the ramp
    uint64_t nonzero_gaps = 0; // items reported lost that are not zeros
    std::vector<rx_event> events;
    bool end_of_stream = false;
};

// Consume a finite sc16 burst: reported-lost items must be zeros, the rest the ramp.
run_result consume(rx_stream& s)
{
    run_result r;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!r.end_of_stream && std::chrono::steady_clock::now() < give_up) {
        const rx_stream::chunk c = s.recv(1u << 20, 100ms);
        std::set<uint64_t> lost;
        rx_event e;
        while (s.poll_event(e)) {
            r.events.push_back(e);
            if (e.type == rx_event::kind::gap)
                for (uint64_t i = 0; i < e.count; i++)
                    lost.insert(e.item + i);
        }
        const auto* p = static_cast<const uint8_t*>(c.data);
        for (size_t i = 0; i < c.items; i++) {
            uint8_t expect[4];
            if (lost.count(c.first_item + i))
                std::memset(expect, 0, 4);
            else
                ramp_item(sample_format::sc16, c.first_item + i, expect);
            if (std::memcmp(expect, p + 4 * i, 4) != 0)
                (lost.count(c.first_item + i) ? r.nonzero_gaps : r.mismatches)++;
        }
        r.items += c.items;
        s.release(c.items);
        r.end_of_stream = c.end_of_stream;
    }
    return r;
}

int64_t as_signed(uint64_t v) { return static_cast<int64_t>(v); }

std::string describe(const std::map<std::string, uint64_t>& c)
{
    std::string out;
    for (const auto& [k, v] : c)
        if (k.rfind("metadata.", 0) == 0)
            out += k + "=" + std::to_string(as_signed(v)) + " ";
    return out;
}

// The metadata a clean run must show.
void check_clean(const std::map<std::string, uint64_t>& c, uint64_t min_timestamps)
{
    const std::string all = describe(c);
    CPPUNIT_ASSERT_MESSAGE(all, c.at("metadata.packets") >= min_timestamps + 1);
    CPPUNIT_ASSERT_MESSAGE(all, c.at("metadata.timestamps") >= min_timestamps);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.t0_mismatch"));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.bad"));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.lost"));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.rejected"));
    // Device and host share the machine's clock: the estimate is close to 0.
    CPPUNIT_ASSERT_MESSAGE(
        all, std::llabs(as_signed(c.at("metadata.clock_offset_ns"))) < 1000000);
    CPPUNIT_ASSERT_MESSAGE(all, c.at("metadata.clock_error_ns") < 1000000);
}

// gr-rdma-emu in a child process, stopped by SIGTERM.
class emulator_daemon
{
public:
    emulator_daemon()
    {
        {
            udp_socket probe(socket_address::parse("127.0.0.1:0"));
            d_port = probe.local_address().port();
        }
        int out[2];
        if (::pipe(out) != 0)
            throw std::runtime_error("pipe");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        const std::string control = "127.0.0.1:" + std::to_string(d_port);
        const char* argv[] = { GR_RDMA_EMU, "--control", control.c_str(),
                               "--link",    "127.0.0.1", nullptr };
        const int err = posix_spawn(&d_pid,
                                    GR_RDMA_EMU,
                                    &actions,
                                    nullptr,
                                    const_cast<char* const*>(argv),
                                    environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(out[1]);
        if (err != 0) {
            ::close(out[0]);
            throw std::runtime_error(std::string("cannot start ") + GR_RDMA_EMU);
        }
        // It announces itself once its AXIoE server listens.
        FILE* f = ::fdopen(out[0], "r");
        char line[256] = {};
        if (!f || !std::fgets(line, sizeof(line), f))
            throw std::runtime_error("gr-rdma-emu did not start");
        d_banner = line;
        std::fclose(f);
    }
    ~emulator_daemon()
    {
        ::kill(d_pid, SIGTERM);
        int status = 0;
        ::waitpid(d_pid, &status, 0);
    }
    uint16_t port() const { return d_port; }
    const std::string& banner() const { return d_banner; }

private:
    pid_t d_pid = 0;
    uint16_t d_port = 0;
    std::string d_banner;
};

void send_record(udp_socket& from, uint16_t port, meta::record r)
{
    uint8_t b[meta::packet_bytes];
    meta::encode(r, b);
    from.send_to(b, sizeof(b), socket_address(0x7F000001, port));
}

} // namespace

class qa_metadata_stream : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_metadata_stream);
    CPPUNIT_TEST(test_embedded_emulator_sends_metadata);
    CPPUNIT_TEST(test_remote_daemon_sends_metadata);
    CPPUNIT_TEST(test_disabled_and_bad_arguments);
    CPPUNIT_TEST(test_foreign_datagrams_and_device_events);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_embedded_emulator_sends_metadata()
    {
        constexpr uint64_t burst = 5000000; // 1 s at 5 MS/s
        rx_stream s("type=emu,signal=ramp,hugepages=off,metadata_interval=0.02",
                    "sc16",
                    5e6,
                    burst);
        for (int run = 0; run < 2; run++) { // a restart must not confuse the two runs
            s.start();
            const run_result r = consume(s);
            s.stop();
            CPPUNIT_ASSERT(r.end_of_stream);
            CPPUNIT_ASSERT_EQUAL(burst, r.items);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), s.counts().lost());
            const auto c = s.read_counters();
            check_clean(c, 20); // ~50 per run at 20 ms
            CPPUNIT_ASSERT(c.at("metadata.port") != 0);
            CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.at("metadata.events"));
        }
    }

    void test_remote_daemon_sends_metadata()
    {
        emulator_daemon daemon;
        CPPUNIT_ASSERT(daemon.banner().find("AXIoE on 127.0.0.1") != std::string::npos);
        const std::string args =
            "type=remote,addr=127.0.0.1:" + std::to_string(daemon.port()) +
            ",signal=ramp,hugepages=off,metadata_interval=0.05";
        rx_stream s(args, "sc16", 2e6, 2000000);
        s.start();
        const run_result r = consume(s);
        s.stop();
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000000), r.items);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        check_clean(s.read_counters(), 10);
    }

    void test_disabled_and_bad_arguments()
    {
        rx_stream s("type=emu,signal=ramp,hugepages=off,metadata=0", "sc16", 2e6, 400000);
        s.start();
        const run_result r = consume(s);
        s.stop();
        CPPUNIT_ASSERT_EQUAL(uint64_t(400000), r.items);
        for (const auto& [key, value] : s.read_counters())
            CPPUNIT_ASSERT_MESSAGE(key, key.rfind("metadata.", 0) != 0);
        auto message = [](const char* args) {
            try {
                rx_stream bad(args, "sc16", 1e6, 0);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        CPPUNIT_ASSERT(message("type=emu,metadata=2").find("metadata=") !=
                       std::string::npos);
        CPPUNIT_ASSERT(
            message("type=emu,metadata_interval=-1").find("metadata_interval") !=
            std::string::npos);
    }

    void test_foreign_datagrams_and_device_events()
    {
        // No periodic timestamps: the device sends only the start and the end, so the
        // records made up below are all that happens in between.
        constexpr double rate = 2e6; // sample k at t0 + 500 k ns
        rx_stream s("type=emu,signal=ramp,hugepages=off,latency=1,metadata_interval=0",
                    "sc16",
                    rate,
                    1000000);
        s.start();
        const uint64_t t0 = s.start_time_ns();
        const uint16_t port =
            static_cast<uint16_t>(s.read_counters().at("metadata.port"));
        std::this_thread::sleep_for(
            200ms); // the device is at ~400000 samples; none handed out

        // Not records, or not from the device: counted, dropped.
        udp_socket device_side(socket_address::parse("127.0.0.1:0"));
        udp_socket stranger(socket_address::parse("127.0.0.2:0"));
        meta::record fault;
        fault.type = meta::record_type::event;
        fault.sequence = 1;
        fault.sample = 300000;
        fault.time_ns = t0 + 300000 * 500;
        fault.code = meta::event_code::fault_injected;
        fault.value = 5;
        uint8_t good[meta::packet_bytes];
        meta::encode(fault, good);
        std::vector<std::vector<uint8_t>> junk = { {},
                                                   { 0x47, 0x52, 0x4D, 0x44 },
                                                   std::vector<uint8_t>(good, good + 40),
                                                   std::vector<uint8_t>(good, good + 40),
                                                   std::vector<uint8_t>(1400, 0xFF) };
        junk[2][4] = 9;       // version
        junk[3].push_back(0); // trailing byte
        for (const auto& j : junk)
            device_side.send_to(j.data(), j.size(), socket_address(0x7F000001, port));
        stranger.send_to(good, sizeof(good), socket_address(0x7F000001, port));

        // Well-formed records from the device's address but not from its port: another
        // process on the device's host, a forger. A fault at sample 300000, and 5000
        // samples "sent as zeros" at 100000 (which on UC never happens).
        send_record(device_side, port, fault);
        meta::record zeros = fault;
        zeros.sequence = 2;
        zeros.sample = 100000;
        zeros.time_ns = t0 + 100000 * 500;
        zeros.code = meta::event_code::zero_substituted;
        zeros.value = 5000;
        send_record(device_side, port, zeros);
        std::this_thread::sleep_for(20ms);

        const run_result r = consume(s);
        const auto c = s.read_counters();
        s.stop();
        const std::string all = describe(c);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000000), r.items);
        // All counted as not from the device, none believed: nothing is lost, no
        // device event is reported.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            all, uint64_t(junk.size() + 1 + 2), c.at("metadata.bad"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.t0_mismatch"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.events"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(all, uint64_t(0), c.at("metadata.zero_substituted"));
        const rx_stream::accounting a = s.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.lost());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000000), a.delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), r.mismatches);
        // Time marks, and the RF channel's tuning at item 0 (rx_freq): nothing else.
        for (const auto& e : r.events)
            CPPUNIT_ASSERT(e.type == rx_event::kind::time ||
                           (e.type == rx_event::kind::tune && e.item == 0));

        // The next run starts with its own counts: none of this run's events.
        s.start();
        const auto again = s.read_counters();
        s.stop();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), again.at("metadata.events"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), again.at("metadata.zero_substituted"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), again.at("metadata.rejected"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_metadata_stream);
