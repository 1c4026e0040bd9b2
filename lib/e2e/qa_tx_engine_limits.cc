/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The TX engine's promises checked from outside it (docs/transmit.md, "Loss, lateness
// and accounting"): a wire tap (tx_wire_tap) between the device and a stand-in host
// counts what the responder was asked and has not answered yet, and decides when each
// response reaches the device. The device's clock is a manual oscillator the test
// advances, so that what is late follows from what the tap did, not from how the
// machine scheduled it. Then tx_stream itself through 1 % READ RESPONSE loss.

#include "../emu/ack_receiver.h"
#include "../emu/device_clock.h"
#include "../emu/tx_engine.h"
#include "../emu/udp_wire.h"
#include "../nic/soft_nic.h"
#include "../nic/soft_queue_pair.h"
#include "tx_wire_tap.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr uint32_t psn = 0xFFFFF8; // wraps during every run
constexpr uint32_t payload = 1024;
constexpr uint64_t spm = payload / 4; // sc16
constexpr uint32_t rate = 256000;     // a message per ms exactly
constexpr int64_t message_ns = 1000000;
constexpr uint64_t messages = 48;
constexpr uint64_t slots = 64; // the whole burst fits: all committed before START

// The device's oscillator, advanced by the test under clock_lock. The tap forwards
// under it too: a packet it forwarded is at the device before the clock moves on.
std::atomic<int64_t> manual_ns{ 1000000000 };
int64_t manual_oscillator() { return manual_ns.load(); }
std::mutex clock_lock;

int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/*!
 * The host side, standing in for tx_stream: a soft NIC whose RC QP would let the
 * device keep 16 READs outstanding (max_dest_rd_atomic), a TX ring holding the whole
 * burst of the ramp and a control page saying all of it is committed, both remote READ
 * only, and receives posted for the notifications. Its peer is the tap.
 */
class standin_host
{
public:
    explicit standin_host(const socket_address& peer)
        : d_ring(payload * slots + 4096),
          d_page(512, 0),
          pd(nic.alloc_pd()),
          cq(nic.create_cq(256)),
          ring_mr(pd->register_memory(ring(), payload * slots, nic::access_remote_read)),
          page_mr(pd->register_memory(d_page.data(), 4096, nic::access_remote_read)),
          qp(pd->create_qp(nic::qp_type::rc, *cq, 128))
    {
        qp->to_init(nic::access_remote_read);
        dynamic_cast<nic::soft_queue_pair&>(*qp).set_max_dest_rd_atomic(16);
        qp->post_receives(0, 128);
        qp->to_rtr({ peer, emu::tx_source_qpn(0) }, psn, payload);
        qp->to_rts(psn);
        ramp_fill(sample_format::sc16, 0, messages * spm, ring());
        d_page[0] = messages * spm; // committed
        d_page[1] = run;
    }

    uint8_t* ring()
    {
        const uintptr_t at = reinterpret_cast<uintptr_t>(d_ring.data());
        return d_ring.data() + ((4096 - at % 4096) % 4096);
    }
    uint64_t ring_va() { return reinterpret_cast<uintptr_t>(ring()); }
    uint64_t page_va() { return reinterpret_cast<uintptr_t>(d_page.data()); }

    static constexpr uint32_t run = 3;
    nic::soft_nic nic;

private:
    std::vector<uint8_t> d_ring;
    std::vector<uint64_t> d_page;

public:
    std::unique_ptr<nic::protection_domain> pd;
    std::unique_ptr<nic::completion_queue> cq;
    std::unique_ptr<nic::memory_region> ring_mr;
    std::unique_ptr<nic::memory_region> page_mr;
    std::unique_ptr<nic::queue_pair> qp;
};

//! An emulated TX engine on the manual oscillator, its link, the tap and the host.
struct bench {
    static constexpr uint64_t device_start = 7000000000000ull;
    emu::device_clock clock{ manual_oscillator, device_start };
    emu::udp_wire link{ socket_address::parse("127.0.0.1:0") };
    emu::ack_receiver acks{ link, 1, 1 };
    emu::tx_engine engine{ 0, link, acks, &clock };
    tx_wire_tap tap{ link.local_address() };
    standin_host host{ tap.host_side() };
    int64_t mono_t0 = 0;

    //! Relay through \p gate; start the burst with sample 0 due \p t0_in after now and
    //! TX_MAX_RD_ATOMIC \p depth.
    void start(std::function<tx_wire_tap::verdict(const tx_wire_tap::incoming&)> gate,
               int64_t t0_in,
               uint32_t depth,
               uint32_t min_lead_ns)
    {
        tap.start(host.nic.roce_address(),
                  { host.ring_va(), payload, slots, host.page_va(), payload, psn },
                  std::move(gate),
                  &clock_lock);
        emu::tx_descriptor d;
        d.host = tap.device_side();
        d.host_qpn = host.qp->qpn();
        d.start_psn = psn;
        d.rkey = host.ring_mr->rkey();
        d.va = host.ring_va();
        d.ring_bytes = payload * slots;
        d.payload_bytes = payload;
        d.path_mtu = payload;
        d.rate_num = rate;
        d.ctrl_rkey = host.page_mr->rkey();
        d.ctrl_va = host.page_va();
        d.max_rd_atomic = depth;
        d.run = standin_host::run;
        d.min_lead_ns = min_lead_ns;
        d.max_lead_ns = 50000000;
        d.num_samples = messages * spm;
        d.emulation.check = 1;
        d.start_time_ns = clock.now() + t0_in;
        mono_t0 = clock.oscillator_at(d.start_time_ns);
        CPPUNIT_ASSERT_EQUAL(regs::error_code::none, engine.start(d));
    }

    //! When message \p m's first sample is due (oscillator ns).
    int64_t due(uint64_t m) const { return mono_t0 + int64_t(m) * message_ns; }

    //! Advance the clock \p step every \p pause until the burst is done.
    bool run_to_end(int64_t step, std::chrono::microseconds pause)
    {
        const auto give_up = std::chrono::steady_clock::now() + 60s;
        while (!(engine.status() & regs::status::done)) {
            if (std::chrono::steady_clock::now() > give_up)
                return false;
            {
                std::lock_guard<std::mutex> lock(clock_lock);
                manual_ns += step;
            }
            std::this_thread::sleep_for(pause);
        }
        return true;
    }
};

std::string describe(const emu::tx_counters& c)
{
    return "played " + std::to_string(c.samples_played) + " late " +
           std::to_string(c.late_zero_samples) + " underflow " +
           std::to_string(c.underflow_samples) + " reads " + std::to_string(c.reads) +
           " rereads " + std::to_string(c.rereads) + " checked " +
           std::to_string(c.check_samples) + " mismatches " +
           std::to_string(c.check_mismatches);
}

} // namespace

class qa_tx_engine_limits : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_engine_limits);
    CPPUNIT_TEST(test_reads_outstanding_capped_at_one);
    CPPUNIT_TEST(test_reads_outstanding_capped_at_three);
    CPPUNIT_TEST(test_late_zeros_are_the_messages_not_delivered_in_time);
    CPPUNIT_TEST(test_one_percent_response_loss_through_tx_stream);
    CPPUNIT_TEST_SUITE_END();

    void reads_capped_at(uint32_t depth)
    {
        bench b;
        // The tap holds every response until the device has been quiet for 1 ms: the
        // device sends all the READs it allows itself, and the tap counts them.
        tx_wire_tap& tap = b.tap;
        // Sample 0 due 10 ms after START, a lead of 20 ms: 11 messages are due at once,
        // far more than the depth, and the host's QP would take 16. (10 ms of the
        // device's clock are 80 ms of real time here: the first control READ is back
        // well before sample 0, whatever the machine's load.)
        b.start(
            [&tap](const tx_wire_tap::incoming&) {
                return steady_ns() - tap.last_device_packet_ns() < 1000000
                           ? tx_wire_tap::verdict::hold
                           : tx_wire_tap::verdict::forward;
            },
            10 * message_ns,
            depth,
            20000000);
        CPPUNIT_ASSERT(b.run_to_end(250000, 2ms));
        b.tap.stop();
        const emu::tx_counters c = b.engine.counters();
        CPPUNIT_ASSERT_EQUAL(16u, b.host.qp->max_dest_rd_atomic());
        // Never more than TX_MAX_RD_ATOMIC, and that many when more were due.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), depth, b.tap.peak_reads());
        CPPUNIT_ASSERT(b.tap.requests() > messages);
        // (The responses held for 1 ms of real time while the device's clock moves on
        // may make a message late on a loaded machine: the cap is what is checked.)
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            describe(c), messages * spm, c.samples_played + c.late_zero_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(c.samples_played, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
    }

public:
    void test_reads_outstanding_capped_at_one() { reads_capped_at(1); }
    void test_reads_outstanding_capped_at_three() { reads_capped_at(3); }

    void test_late_zeros_are_the_messages_not_delivered_in_time()
    {
        // For 10 ms of the device's time nothing the host sends reaches it. Otherwise
        // the tap lets a message's last response through only while the device cannot
        // have decided about it yet (its first sample not due), or once it has (the
        // converter went past it): so each message is, from the wire alone, delivered
        // in time (played) or not (zeros), and the device must count exactly that.
        bench b;
        const int64_t blackout_from = 1000000000 + 25000000, blackout_to = 1035000000;
        struct delivery {
            bool in_time = false;
            bool after_decision = false;
        };
        std::vector<delivery> delivered(messages);
        std::vector<bool> seen(messages, false);
        uint64_t ambiguous = 0;
        b.tap.on_delivered([&](uint64_t m) {
            CPPUNIT_ASSERT(m < messages && !seen[m]);
            seen[m] = true;
            delivered[m].in_time = manual_ns.load() <= b.due(m);
            delivered[m].after_decision = b.engine.ticks() > m * spm;
            ambiguous += delivered[m].in_time == delivered[m].after_decision;
        });
        bench* bp = &b;
        manual_ns = 1000000000;
        b.start(
            [bp, blackout_from, blackout_to](const tx_wire_tap::incoming& in) {
                const int64_t now = manual_ns.load();
                if (now >= blackout_from && now < blackout_to)
                    return tx_wire_tap::verdict::drop;
                if (!in.completes || now <= bp->due(in.message) ||
                    bp->engine.ticks() > in.message * spm)
                    return tx_wire_tap::verdict::forward;
                return tx_wire_tap::verdict::hold; // until the converter went past it
            },
            10000000,
            4,
            4000000);
        CPPUNIT_ASSERT(b.run_to_end(100000, 300us));
        b.tap.stop();
        const emu::tx_counters c = b.engine.counters();
        uint64_t in_time = 0;
        for (uint64_t m = 0; m < messages; m++)
            in_time += seen[m] && delivered[m].in_time;
        const uint64_t late = messages - in_time;
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), ambiguous);
        CPPUNIT_ASSERT_MESSAGE(describe(c), late > 5 && late < messages - 10);
        CPPUNIT_ASSERT(b.tap.dropped() > 0);
        // The zeros are exactly the messages the wire did not deliver in time, and
        // what was played is the ramp, intact.
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), late * spm, c.late_zero_samples);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), in_time * spm, c.samples_played);
        CPPUNIT_ASSERT_EQUAL(c.samples_played, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT(c.rereads > 0);
        // The identity: all was committed; played + late + not played, to the sample.
        CPPUNIT_ASSERT_EQUAL(messages * spm,
                             c.samples_played + c.late_zero_samples +
                                 c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(b.engine.ticks(), c.samples_played + c.late_zero_samples);
    }

    void test_one_percent_response_loss_through_tx_stream()
    {
        // tx_stream with a producer that keeps up, 1 % of the READ RESPONSE packets
        // lost on arrival at the device: re-reads, and nothing late, nothing
        // underflowed. A message is 64 KiB (64 packets, 65.5 ms at 250 kS/s), so that
        // the lead (2 · p99 + a message's time) also outlasts what stalls the emulated
        // device's own threads on a shared machine (they sent no request meanwhile, a
        // device of hardware has none); with 1 KiB messages and a 20 ms floor, a 25 ms
        // stall of the engine's thread on a loaded 2-core machine made messages late.
        const double rate_sps = 250e3;
        const uint64_t items_per_message = 65536 / 4;
        const uint64_t total = 32 * items_per_message; // 2.1 s
        tx_stream t("type=emu,tx_check=1,hugepages=off,latency=0.4,payload=65536,"
                    "mtu=1024,max_lead=0.2,tx_loss_ppm=10000,tx_fault_seed=11",
                    "sc16",
                    rate_sps,
                    total);
        uint64_t done = 0;
        auto fill = [&](std::chrono::microseconds wait) {
            const tx_stream::space s = t.wait_space(1, wait);
            const size_t n =
                static_cast<size_t>(std::min<uint64_t>(s.items, total - done));
            ramp_fill(sample_format::sc16, done, n, static_cast<uint8_t*>(s.data));
            t.commit(n);
            done += n;
            return n;
        };
        fill(0us); // primed: a ring of samples before START
        t.start();
        while (done < total && t.error().empty())
            fill(100ms);
        CPPUNIT_ASSERT_EQUAL(total, done);
        CPPUNIT_ASSERT(t.wait_played(std::chrono::seconds(5)));
        t.stop();
        const tx_stream::accounting a = t.counts();
        const auto counters = t.read_counters();
        const std::string why =
            "played " + std::to_string(a.played) + " late " + std::to_string(a.late) +
            " underflow " + std::to_string(a.underflow) + " rereads " +
            std::to_string(a.rereads) + " lead " + std::to_string(a.lead_ns) + " rtt " +
            std::to_string(a.rtt_ns);
        CPPUNIT_ASSERT_MESSAGE(why, a.final && a.identity_holds());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), a.underflow);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, uint64_t(0), a.late);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(why, total, a.played);
        CPPUNIT_ASSERT_MESSAGE(why, a.rereads > 0);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), counters.at("device.check_mismatches"));
        CPPUNIT_ASSERT_EQUAL(a.played, counters.at("device.check_samples"));
        // The lead is what the round trips ask for, 2 · p99 + a message's time (its
        // bounds, 200 us and 200 ms, do not bite), adapted to them.
        const uint64_t message = items_per_message * 1000000000ull / 250000;
        CPPUNIT_ASSERT_MESSAGE(why, a.rtt_ns > 0);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            why, uint64_t(2) * a.rtt_ns + message, uint64_t(a.lead_ns));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_engine_limits);
