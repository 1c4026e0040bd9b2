/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Queued TX bursts end to end (docs/register-map.md, "TX burst queue"; docs/transmit.md,
// "Queued bursts"): the emulator's TX engine against the soft NIC, a stand-in host
// (qa_tx_host.h) committing the ramp (item value = item index), the bursts pushed with
// the host's device_controller over AXIoE, the TX records caught on a UDP socket. Every
// test checks the device's identities: committed = played + late + dropped +
// not_played, and ticks = played + late + underflow + idle.

#include "../device/device_controller.h"
#include "../emu/ack_receiver.h"
#include "../emu/emulator.h"
#include "../emu/tx_engine.h"
#include "../emu/udp_wire.h"
#include "../meta/metadata_packet.h"
#include "../util/udp_socket.h"
#include "qa_errors.h"
#include "qa_tx_burst_scene.h"
#include "qa_tx_host.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::qa_errors;
using namespace gr::rdma::qa;
using namespace std::chrono_literals;
namespace code = meta::event_code;

namespace {

constexpr uint32_t rate = 250000;  // tx_run_setup's: 4 µs per item
constexpr uint64_t item_ns = 4000; // at that rate
constexpr uint64_t spm = 256;      // items per message (1024-byte sc16 messages)
constexpr uint64_t queued = regs::tbq::queued_mode;

template <typename F>
axioe::status status_of(F&& f)
{
    try {
        f();
    } catch (const axioe::error& e) {
        return e.code();
    }
    return axioe::status::okay;
}

using scene = tx_burst_scene;

tx_run_setup queued_setup()
{
    tx_run_setup s;
    s.samples = queued;
    return s;
}

std::vector<meta::record> with_code(const std::vector<meta::record>& all, uint32_t c)
{
    std::vector<meta::record> out;
    for (const meta::record& r : all)
        if (r.type == meta::record_type::event && r.code == c)
            out.push_back(r);
    return out;
}

uint64_t sum(const std::vector<meta::record>& records)
{
    uint64_t n = 0;
    for (const meta::record& r : records)
        n += r.value;
    return n;
}

// The manual oscillator of test_timed_start_to_the_sample.
std::atomic<int64_t> manual_ns{ 1000000000 };
int64_t manual_oscillator() { return manual_ns.load(); }

} // namespace

class qa_tx_bursts : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_bursts);
    CPPUNIT_TEST(test_timed_start_to_the_sample);
    CPPUNIT_TEST(test_back_to_back_bursts_bit_exact_over_ten_wraps);
    CPPUNIT_TEST(test_idle_between_timed_bursts);
    CPPUNIT_TEST(test_late_start_is_dropped);
    CPPUNIT_TEST(test_open_burst_underflow_records_add_up);
    CPPUNIT_TEST(test_late_records_add_up);
    CPPUNIT_TEST(test_push_refusals);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_timed_start_to_the_sample()
    {
        // The engine on a manual oscillator, 1 MS/s: a burst whose time falls between
        // two ticks starts at the first tick at or after it, to the sample.
        const uint64_t device_start = 5000000000000ull;
        emu::device_clock clock(manual_oscillator, device_start);
        emu::udp_wire link(socket_address::parse("127.0.0.1:0"));
        emu::ack_receiver acks(link, 1, 1);
        emu::tx_engine engine(0, link, acks, &clock);
        tx_host host(link.local_address(), 1024, 16, sample_format::sc16);
        host.limit(1000);
        host.start();

        emu::tx_descriptor d;
        d.host = host.nic.roce_address();
        d.host_qpn = host.qp->qpn();
        d.start_psn = tx_psn;
        d.rkey = host.ring_mr->rkey();
        d.va = host.ring_va();
        d.ring_bytes = 16 * 1024;
        d.rate_num = 1000000;
        d.ctrl_rkey = host.page_mr->rkey();
        d.ctrl_va = host.page_va();
        d.max_rd_atomic = 4;
        d.run = tx_host::run;
        // A lead of 2 ms whatever the round trips (the manual clock's jumps make them
        // long).
        d.min_lead_ns = 2000000;
        d.max_lead_ns = 2000000;
        d.num_samples = queued;
        d.queued = true;
        d.emulation.check = 1;
        const uint64_t t0 = device_start + 10000000;
        d.start_time_ns = t0;
        const int64_t mono_t0 = clock.oscillator_at(t0);
        manual_ns = mono_t0 - 5000000;
        CPPUNIT_ASSERT_EQUAL(regs::error_code::none, engine.start(d));
        namespace e = regs::tbq::error;
        // At 1.234567 ms: tick 1235. Then a seamless one, then one at tick 3000.
        CPPUNIT_ASSERT_EQUAL(
            e::none, engine.push_entry({ regs::tbq::op::start, 0, t0 + 1234567 }));
        CPPUNIT_ASSERT_EQUAL(e::none, engine.push_entry({ regs::tbq::op::end, 300, 0 }));
        CPPUNIT_ASSERT_EQUAL(e::none,
                             engine.push_entry({ regs::tbq::op::start, 300, 0 }));
        CPPUNIT_ASSERT_EQUAL(e::none, engine.push_entry({ regs::tbq::op::end, 700, 0 }));
        CPPUNIT_ASSERT_EQUAL(
            e::none, engine.push_entry({ regs::tbq::op::start, 700, t0 + 3000000 }));
        CPPUNIT_ASSERT_EQUAL(e::none, engine.push_entry({ regs::tbq::op::end, 1000, 0 }));
        // At the run's start (tick 0 not yet played): the first two taken up and
        // fetched, a lead (2 ms) ahead of their ticks; the third not yet.
        manual_ns = mono_t0;
        CPPUNIT_ASSERT(
            wait_for([&] { return engine.counters().samples_fetched >= 700; }));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), engine.ticks());
        CPPUNIT_ASSERT_EQUAL(2u, engine.entries_queued()); // the third waits its turn
        manual_ns = mono_t0 + 1235000; // tick 1235 is now: 0..1234 idle
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() == 1235; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), engine.counters().samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1235), engine.counters().idle_ticks);
        manual_ns = mono_t0 + 1235001; // ... and item 0 plays at it
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() == 1236; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), engine.counters().samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1235), engine.counters().idle_ticks);
        // Tick 2000: both played back to back (ticks 1235..1934), idle since.
        manual_ns = mono_t0 + 2000000;
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() == 2000; }, 5s));
        regs::tx_counters c = engine.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(700), c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), c.bursts_done);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1235 + 65), c.idle_ticks);
        // The third is taken up a lead before its time, fetched, and plays at 3000.
        CPPUNIT_ASSERT(
            wait_for([&] { return engine.counters().samples_fetched >= 1000; }));
        CPPUNIT_ASSERT_EQUAL(0u, engine.entries_queued());
        manual_ns = mono_t0 + 3000000;
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() == 3000; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(700), engine.counters().samples_played);
        manual_ns = mono_t0 + 3000001;
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() == 3001; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(701), engine.counters().samples_played);
        manual_ns = mono_t0 + 5000000;
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() == 5000; }, 5s));
        engine.stop();
        host.stop();
        c = engine.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3), c.bursts_done);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), c.idle_ticks);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5000),
                             c.samples_played + c.late_zero_samples +
                                 c.underflow_samples + c.idle_ticks);
        CPPUNIT_ASSERT_EQUAL(host.committed(),
                             c.samples_played + c.late_zero_samples + c.dropped_samples +
                                 c.samples_not_played);
    }

    void test_back_to_back_bursts_bit_exact_over_ten_wraps()
    {
        // Bursts of every shape, all as soon as possible: shorter than a message,
        // ending mid-message, several in one message, spanning many. Played without a
        // tick between them, every sample the ramp's, over more than ten ring wraps.
        // Tiny pieces are a READ each: 16 outstanding, as on rxe, keep up with them
        // on a loaded machine.
        tx_run_setup s = queued_setup();
        s.read_depth = 16;
        scene sc(s);
        const uint64_t t0 = sc.start();
        const uint64_t pattern[] = {
            37, 100, 5, 256, 300, 1000, 7, 511, 2000, 1, 4096, 90
        };
        std::vector<uint64_t> ends;
        uint64_t total = 0;
        for (int r = 0; r < 20; r++)
            for (uint64_t n : pattern)
                ends.push_back(total += n);
        // A long last burst, so that its ack goes alone; the run ends on a message.
        total += 2560;
        total += (spm - total % spm) % spm;
        ends.push_back(total);
        CPPUNIT_ASSERT(total >= 10 * 64 * spm);
        uint64_t first = 0, pieces = 0;
        for (uint64_t e : ends) {
            sc.push(true, first, 0);
            sc.push(false, e); // the END before anything past it is committed
            sc.host.limit(e);
            pieces += (e - 1) / spm - first / spm + 1;
            first = e;
        }
        CPPUNIT_ASSERT(
            wait_for([&] { return read_counters(sc.axi).bursts_done == ends.size(); }));
        // Every message done, the last burst's too: the last immediate is all of them.
        CPPUNIT_ASSERT(wait_for([&] {
            const std::vector<uint32_t> imms = sc.host.immediates();
            return !imms.empty() && imms.back() == total / spm;
        }));
        sc.stop();
        const regs::tx_counters c = sc.check_identities();
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), total, c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.late_zero_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.dropped_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(total, c.samples_fetched);
        // One READ per piece: a message cut by ENDs is READ piece by piece.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), pieces, c.reads - c.rereads);
        // Nothing but the time after the last burst was idle.
        CPPUNIT_ASSERT_EQUAL(sc.dev.tx(0).ticks() - total, c.idle_ticks);
        const std::vector<meta::record> all = sc.records();
        const std::vector<meta::record> acks = with_code(all, code::tx_burst_ack);
        CPPUNIT_ASSERT(!acks.empty() && acks.size() <= ends.size());
        CPPUNIT_ASSERT_EQUAL(total, sum(acks));
        // The last burst's last sample played at tick total - 1: not one tick was
        // lost anywhere before it.
        CPPUNIT_ASSERT_EQUAL(total, acks.back().sample);
        CPPUNIT_ASSERT_EQUAL(t0 + total * item_ns, acks.back().time_ns);
        CPPUNIT_ASSERT(with_code(all, code::tx_underflow).empty());
        CPPUNIT_ASSERT(with_code(all, code::tx_late).empty());
    }

    void test_idle_between_timed_bursts()
    {
        scene sc(queued_setup());
        sc.host.limit(5000);
        const uint64_t t0 = sc.start();
        struct plan {
            uint64_t first, end, tick; // tick of its first item
        };
        // Timed at 40 and 60 ms, one seamless after the second, one at 100 ms.
        const plan p[] = { { 0, 2000, 10000 },
                           { 2000, 3500, 15000 },
                           { 3500, 4499, 16500 },
                           { 4499, 5000, 25000 } };
        sc.push(true, 0, t0 + 40000000);
        sc.push(false, 2000);
        sc.push(true, 2000, t0 + 60000000);
        sc.push(false, 3500);
        sc.push(true, 3500, 0);
        sc.push(false, 4499);
        sc.push(true, 4499, t0 + 100000000);
        sc.push(false, 5000);
        CPPUNIT_ASSERT(wait_for([&] { return read_counters(sc.axi).bursts_done == 4; }));
        std::this_thread::sleep_for(20ms); // idle after the last
        sc.stop();
        const regs::tx_counters c = sc.check_identities();
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(5000), c.samples_played);
        // Between bursts the converter idles: never an underflow zero.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(sc.dev.tx(0).ticks() - 5000, c.idle_ticks);
        CPPUNIT_ASSERT(c.idle_ticks > 25000 - 5000 + 4500);
        // Each burst ended where it had to, so each started at its time to the sample.
        const std::vector<meta::record> acks =
            with_code(sc.records(), code::tx_burst_ack);
        CPPUNIT_ASSERT_EQUAL(size_t(4), acks.size());
        for (size_t i = 0; i < 4; i++) {
            CPPUNIT_ASSERT_EQUAL(p[i].end, acks[i].sample);
            CPPUNIT_ASSERT_EQUAL(p[i].end - p[i].first, acks[i].value);
            CPPUNIT_ASSERT_EQUAL(t0 + (p[i].tick + p[i].end - p[i].first) * item_ns,
                                 acks[i].time_ns);
        }
    }

    void test_late_start_is_dropped()
    {
        // A START whose time passed before the device took it up: time_error, its
        // items never READ nor played but released as committed; the next one plays.
        scene sc(queued_setup());
        const uint64_t t0 = sc.start();
        const uint64_t late = t0 + 25000000;
        CPPUNIT_ASSERT(
            wait_for([&] { return sc.ctl.device_time_ns() > late + 5000000; }));
        sc.push(true, 0, late); // in order, and after the run's start: accepted
        sc.push(false, 1024);
        sc.host.limit(1024);
        sc.push(true, 1024, 0);
        sc.push(false, 3072);
        sc.host.limit(3072);
        CPPUNIT_ASSERT(wait_for([&] { return read_counters(sc.axi).bursts_done == 1; }));
        // Every message done, the dropped ones included: 12 messages.
        CPPUNIT_ASSERT(wait_for([&] {
            const std::vector<uint32_t> imms = sc.host.immediates();
            return !imms.empty() && imms.back() == 12;
        }));
        const uint64_t now = sc.ctl.device_time_ns();
        sc.stop();
        const regs::tx_counters c = sc.check_identities();
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(1), c.time_errors);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1024), c.dropped_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2048), c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2048), c.samples_fetched); // dropped: never READ
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.late_zero_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), c.bursts_done);
        const std::vector<uint32_t> imms = sc.host.immediates();
        CPPUNIT_ASSERT(std::find(imms.begin(), imms.end(), 4u) != imms.end());
        const std::vector<meta::record> all = sc.records();
        const std::vector<meta::record> errors = with_code(all, code::tx_time_error);
        CPPUNIT_ASSERT_EQUAL(size_t(1), errors.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), errors[0].sample);
        CPPUNIT_ASSERT_EQUAL(late, errors[0].time_ns);
        CPPUNIT_ASSERT(errors[0].value > late + 5000000 && errors[0].value < now);
        const std::vector<meta::record> acks = with_code(all, code::tx_burst_ack);
        CPPUNIT_ASSERT_EQUAL(size_t(1), acks.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3072), acks[0].sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2048), acks[0].value);
    }

    void test_open_burst_underflow_records_add_up()
    {
        // An open burst is a continuous stream: when the host stops committing it
        // underflows, reported at least every 50 ms, and the records add up to the
        // counter exactly, also when an END ends the burst (and its underflow).
        scene sc(queued_setup());
        sc.host.limit(50 * spm);
        sc.start();
        sc.push(true, 0, 0);
        CPPUNIT_ASSERT(wait_for([&] {
            return read_counters(sc.axi).underflow_samples > 140000000 / item_ns;
        }));
        sc.host.limit(100 * spm); // it resumes with the item that was due
        CPPUNIT_ASSERT(
            wait_for([&] { return read_counters(sc.axi).samples_played == 100 * spm; }));
        std::this_thread::sleep_for(30ms); // and underflows again
        // Its END where the host stopped: the burst, and its underflow, end there; the
        // converter idles until STOP.
        sc.push(false, 100 * spm);
        CPPUNIT_ASSERT(wait_for([&] { return read_counters(sc.axi).bursts_done == 1; }));
        std::this_thread::sleep_for(10ms);
        sc.stop();
        const regs::tx_counters c = sc.check_identities();
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(100 * spm), c.samples_played);
        CPPUNIT_ASSERT(c.idle_ticks >= 10000000 / item_ns);
        const std::vector<meta::record> all = sc.records();
        const std::vector<meta::record> uf = with_code(all, code::tx_underflow);
        CPPUNIT_ASSERT(uf.size() >= 4); // 140 ms: at least twice, then its end, again
        CPPUNIT_ASSERT_EQUAL(c.underflow_samples, sum(uf));
        CPPUNIT_ASSERT_EQUAL(uint64_t(50 * spm), uf[0].sample); // the item waited for
        CPPUNIT_ASSERT_EQUAL(uint64_t(100 * spm), uf.back().sample);
        for (const meta::record& r : uf) // each covers at most about 50 ms
            CPPUNIT_ASSERT_MESSAGE(std::to_string(r.value), r.value * item_ns < 60000000);
        CPPUNIT_ASSERT_EQUAL(c.late_zero_samples, sum(with_code(all, code::tx_late)));
        const std::vector<meta::record> acks = with_code(all, code::tx_burst_ack);
        CPPUNIT_ASSERT_EQUAL(size_t(1), acks.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(100 * spm), acks[0].sample);
        CPPUNIT_ASSERT_EQUAL(uint64_t(100 * spm), acks[0].value);
    }

    void test_late_records_add_up()
    {
        // Lost READ RESPONSEs and a lead too short to read them again: late pieces,
        // their records adding up to TX_LATE_ZERO_SAMPLES, and the re-reads reported.
        tx_run_setup s = queued_setup();
        s.loss_ppm = 200000;
        s.min_lead_ns = 200000;
        s.max_lead_ns = 300000;
        scene sc(s);
        const uint64_t total = 400 * spm + 100;
        sc.host.limit(total);
        sc.start();
        sc.push(true, 0, 0);
        sc.push(false, total);
        CPPUNIT_ASSERT(wait_for([&] { return read_counters(sc.axi).bursts_done == 1; }));
        sc.stop();
        const regs::tx_counters c = sc.check_identities();
        CPPUNIT_ASSERT_MESSAGE(describe(c), c.late_zero_samples > 0);
        CPPUNIT_ASSERT(c.rereads > 0);
        const std::vector<meta::record> all = sc.records();
        CPPUNIT_ASSERT_EQUAL(c.late_zero_samples, sum(with_code(all, code::tx_late)));
        CPPUNIT_ASSERT_EQUAL(c.underflow_samples,
                             sum(with_code(all, code::tx_underflow)));
        const std::vector<meta::record> seq = with_code(all, code::tx_seq_error);
        CPPUNIT_ASSERT(!seq.empty() && sum(seq) > 0);
        const std::vector<meta::record> acks = with_code(all, code::tx_burst_ack);
        CPPUNIT_ASSERT_EQUAL(size_t(1), acks.size());
        CPPUNIT_ASSERT_EQUAL(c.samples_played, acks[0].value);
    }

    void test_push_refusals()
    {
        scene sc(queued_setup());
        namespace e = regs::tbq::error;
        const uint32_t status_reg = regs::tbq_reg(0, regs::tbq::status);
        // A refused push: SLVERR, nothing queued, ERROR says why, and the controller's
        // exception names it.
        auto refused = [&](bool start,
                           uint64_t item,
                           uint64_t time,
                           uint32_t why,
                           const std::string& text) {
            const uint32_t before = regs::tbq::queued(sc.axi.read32(status_reg));
            const uint32_t w[7] = { regs::low_word(time),
                                    regs::high_word(time),
                                    regs::low_word(item),
                                    regs::high_word(item),
                                    0,
                                    0,
                                    start ? regs::tbq::op::start : regs::tbq::op::end };
            CPPUNIT_ASSERT(status_of([&] {
                               sc.axi.write_atomic(regs::tbq_reg(0, 0), w, 7);
                           }) == axioe::status::slverr);
            const uint32_t st = sc.axi.read32(status_reg);
            CPPUNIT_ASSERT_EQUAL(why, regs::tbq::last_error(st));
            CPPUNIT_ASSERT_EQUAL(before, regs::tbq::queued(st));
            try {
                if (start)
                    sc.ctl.push_tx_start(0, item, time);
                else
                    sc.ctl.push_tx_end(0, item);
                CPPUNIT_FAIL("a refused push did not throw");
            } catch (const tx_burst_refused& x) {
                CPPUNIT_ASSERT_EQUAL(why, x.code());
                CPPUNIT_ASSERT_MESSAGE(x.what(), contains(x.what(), text));
            }
            CPPUNIT_ASSERT_EQUAL(before, sc.ctl.read_tx_burst_status(0).queued);
        };
        CPPUNIT_ASSERT_EQUAL(16u, sc.ctl.read_tx_burst_status(0).capacity);
        refused(true, 0, 0, e::not_running, "does not run in queued mode");
        // A continuous run takes none either.
        sc.axi.write64(tx(regs::tx::num_samples_lo), 0);
        sc.start();
        refused(true, 0, 0, e::not_running, "queued mode");
        sc.stop();
        sc.axi.write64(tx(regs::tx::num_samples_lo), queued);
        const uint64_t t0 = sc.start();
        refused(false, 10, 0, e::sequence, "without an open burst");
        refused(true, 5, 0, e::item_order, "item out of order");
        refused(true, 0, t0 - 1, e::time_behind, "before the end of the previous burst");
        const uint64_t far = t0 + 10000000000ull; // taken up a lead before: not for now
        sc.ctl.push_tx_start(0, 0, far);
        CPPUNIT_ASSERT_EQUAL(1u, sc.ctl.read_tx_burst_status(0).queued);
        CPPUNIT_ASSERT_EQUAL(e::none, sc.ctl.read_tx_burst_status(0).error);
        refused(true, 0, 0, e::sequence, "END it first");
        refused(false, 0, 0, e::item_order, "above its START");
        sc.ctl.push_tx_end(0, 100);
        refused(true, 100, far + 100 * item_ns - 1, e::time_behind, "previous burst");
        uint64_t item = 100;
        for (unsigned q = 2; q < 16; q += 2) {
            sc.ctl.push_tx_start(0, item, 0);
            sc.ctl.push_tx_end(0, item += 10);
        }
        CPPUNIT_ASSERT_EQUAL(16u, sc.ctl.read_tx_burst_status(0).queued);
        refused(true, item, 0, e::full, "full");
        // Not an operation: SLVERR, nothing changes.
        CPPUNIT_ASSERT(status_of([&] {
                           sc.axi.write32(regs::tbq_reg(0, regs::tbq::push), 4);
                       }) == axioe::status::slverr);
        CPPUNIT_ASSERT_EQUAL(16u, sc.ctl.read_tx_burst_status(0).queued);
        CPPUNIT_ASSERT_EQUAL(e::full, sc.ctl.read_tx_burst_status(0).error);
        // CLEAR drops them all (none was taken up), ERROR stays; the checks start over.
        sc.ctl.clear_tx_bursts(0);
        CPPUNIT_ASSERT_EQUAL(0u, sc.ctl.read_tx_burst_status(0).queued);
        CPPUNIT_ASSERT_EQUAL(e::full, sc.ctl.read_tx_burst_status(0).error);
        refused(true, 100, 0, e::item_order, "item out of order");
        sc.ctl.push_tx_start(0, 0, far);
        // Another client's push: NOT_OWNER once the stream is owned, ERROR 5.
        const uint32_t token[2] = { 0x1234, 0x5678 };
        sc.axi.write(tx(regs::tx::owner_token_lo), token, 2);
        device_controller stranger(sc.dev.control_address());
        stranger.identify();
        CPPUNIT_ASSERT(
            contains(error_of<stream_owned_error>([&] { stranger.push_tx_end(0, 50); }),
                     "belongs to another host"));
        CPPUNIT_ASSERT_EQUAL(e::not_owner, stranger.read_tx_burst_status(0).error);
        CPPUNIT_ASSERT_EQUAL(1u, stranger.read_tx_burst_status(0).queued);
        CPPUNIT_ASSERT_THROW(stranger.clear_tx_bursts(0), stream_owned_error);
        CPPUNIT_ASSERT_EQUAL(1u, sc.ctl.read_tx_burst_status(0).queued);
        // The owner gives it up, which stops it: STOP drops the queue, and a stopped
        // stream takes no push.
        sc.axi.write32(tx(regs::tx::owner), regs::owner_command::release);
        CPPUNIT_ASSERT_EQUAL(0u, sc.ctl.read_tx_burst_status(0).queued);
        refused(false, 50, 0, e::not_running, "queued mode");
        const regs::tx_counters c = sc.check_identities();
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_played);
        // A device whose AXIoE bursts are shorter than a push is refused by name.
        emu::emulator_config short_bursts;
        short_bursts.max_burst_words = 4;
        emu::emulator dev4(short_bursts);
        device_controller c4(dev4.control_address());
        c4.identify();
        CPPUNIT_ASSERT(
            contains(error_of<std::runtime_error>([&] { c4.push_tx_start(0, 0, 0); }),
                     "a TX burst entry needs 7"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_bursts);
