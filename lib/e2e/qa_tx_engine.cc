/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The emulator's TX engine end to end against the soft NIC on loopback
// (docs/transmit.md): a small host (tx_host below, standing in for tx_stream until it
// lands) registers a ring and a control page with remote READ only, fills the ramp,
// publishes `committed` and follows the device's notifications; the emulator is
// programmed over AXIoE. The device's counters must add up to the sample.

#include "../axioe/axioe_client.h"
#include "../emu/ack_receiver.h"
#include "../emu/emulator.h"
#include "../emu/tx_engine.h"
#include "../emu/udp_wire.h"
#include "../nic/soft_nic.h"
#include "../nic/soft_queue_pair.h"
#include <gnuradio/rdma/ramp.h>
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

constexpr uint32_t psn = 0xFFFFF0; // wraps during every run

/*!
 * The host side: a soft NIC, an RC QP granting remote READ only, a TX ring and a
 * control page registered for remote READ only. Its thread writes the ramp into every
 * slot the device has released (notifications), publishes `committed` after the
 * samples, and stops committing at limit().
 */
class tx_host
{
public:
    tx_host(const socket_address& device_link,
            uint32_t payload,
            size_t slots,
            sample_format format,
            unsigned read_depth = 16)
        : d_payload(payload),
          d_slots(slots),
          d_format(format),
          d_spm(payload / item_size(format)),
          d_ring(payload * slots + 4096),
          d_page(512, 0),
          pd(nic.alloc_pd()),
          cq(nic.create_cq(4096)),
          ring_mr(pd->register_memory(ring(), payload * slots, nic::access_remote_read)),
          page_mr(pd->register_memory(d_page.data(), 4096, nic::access_remote_read)),
          qp(pd->create_qp(nic::qp_type::rc, *cq, 1024))
    {
        qp->to_init(nic::access_remote_read);
        dynamic_cast<nic::soft_queue_pair&>(*qp).set_max_dest_rd_atomic(read_depth);
        qp->post_receives(0, 1024);
        qp->to_rtr({ device_link, emu::tx_source_qpn(0) }, psn, 1024);
        qp->to_rts(psn);
        d_page[1] = run;
    }

    ~tx_host() { stop(); }

    uint8_t* ring()
    {
        // 4 KiB aligned, as a registered ring would be.
        const uintptr_t at = reinterpret_cast<uintptr_t>(d_ring.data());
        return d_ring.data() + ((4096 - at % 4096) % 4096);
    }
    uint64_t ring_va() { return reinterpret_cast<uintptr_t>(ring()); }
    uint64_t page_va() { return reinterpret_cast<uintptr_t>(d_page.data()); }

    //! Commit up to \p samples (the thread follows).
    void limit(uint64_t samples) { d_limit = samples; }
    uint64_t committed() const { return __atomic_load_n(&d_page[0], __ATOMIC_ACQUIRE); }
    std::vector<uint32_t> immediates()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_imms;
    }

    void start()
    {
        fill(); // before the device starts: the first slots are ready
        d_thread = std::thread([this] {
            while (!d_stop) {
                fill();
                std::this_thread::sleep_for(50us);
            }
        });
    }
    void stop()
    {
        d_stop = true;
        if (d_thread.joinable())
            d_thread.join();
    }

    static constexpr uint32_t run = 7;
    nic::soft_nic nic;

private:
    void fill()
    {
        nic::work_completion wc[64];
        const int n = cq->poll(wc, 64);
        for (int i = 0; i < n; i++) {
            CPPUNIT_ASSERT(wc[i].status == nic::wc_status::success);
            std::lock_guard<std::mutex> lock(d_mutex);
            d_imms.push_back(wc[i].imm_data);
            d_released = std::max<uint64_t>(d_released, wc[i].imm_data);
        }
        if (n > 0)
            qp->post_receives(0, n);
        // Slot m % slots is free once message m - slots was released.
        const uint64_t limit = d_limit;
        while (d_written < d_released + d_slots && d_written * d_spm < limit) {
            const uint64_t first = d_written * d_spm;
            const uint64_t count = std::min<uint64_t>(d_spm, limit - first);
            ramp_fill(d_format, first, count, ring() + (d_written % d_slots) * d_payload);
            __atomic_store_n(&d_page[0], first + count, __ATOMIC_RELEASE);
            d_written++;
        }
    }

    const uint32_t d_payload;
    const size_t d_slots;
    const sample_format d_format;
    const uint64_t d_spm;
    std::vector<uint8_t> d_ring;
    std::vector<uint64_t> d_page; // committed, run number, then zeros

public:
    std::unique_ptr<nic::protection_domain> pd;
    std::unique_ptr<nic::completion_queue> cq;
    std::unique_ptr<nic::memory_region> ring_mr;
    std::unique_ptr<nic::memory_region> page_mr;
    std::unique_ptr<nic::queue_pair> qp;

private:
    std::atomic<uint64_t> d_limit{ 0 };
    uint64_t d_written = 0;  // the thread's: messages written and committed
    uint64_t d_released = 0; // the thread's: the device's last immediate
    std::mutex d_mutex;
    std::vector<uint32_t> d_imms;
    std::atomic<bool> d_stop{ false };
    std::thread d_thread;
};

uint32_t tx(uint32_t reg) { return regs::tx_reg(0, reg); }

//! What a test changes from the defaults of program().
struct tx_setup {
    uint32_t payload = 1024;
    size_t slots = 64;
    sample_format format = sample_format::sc16;
    // 1 ms per message, a lead of 20: scheduler stalls of a loaded test machine stay
    // well inside it, and the host (64 slots, told every 16) stays ahead of it.
    uint32_t rate = 250000;
    uint32_t notify = 16;
    uint32_t read_depth = 4;
    uint32_t min_lead_ns = 20000000;
    uint32_t max_lead_ns = 50000000;
    uint64_t samples = 0;
    uint64_t start_time_ns = 0;
    uint32_t loss_ppm = 0;
};

void program(axioe::client& axi, tx_host& host, const tx_setup& s)
{
    axi.write32(tx(regs::tx::host_ipv4), host.nic.roce_address().ip());
    axi.write32(tx(regs::tx::host_udp_port), host.nic.roce_address().port());
    axi.write32(tx(regs::tx::host_qpn), host.qp->qpn());
    axi.write32(tx(regs::tx::start_psn), psn);
    axi.write32(tx(regs::tx::rkey), host.ring_mr->rkey());
    axi.write64(tx(regs::tx::va_lo), host.ring_va());
    axi.write64(tx(regs::tx::ring_bytes_lo), uint64_t(s.payload) * s.slots);
    axi.write32(tx(regs::tx::payload_bytes), s.payload);
    axi.write32(tx(regs::tx::path_mtu), 1024);
    axi.write32(tx(regs::tx::notify_interval), s.notify);
    axi.write32(tx(regs::tx::rate_num), s.rate);
    axi.write32(tx(regs::tx::rate_den), 1);
    axi.write32(tx(regs::tx::format), static_cast<uint32_t>(s.format));
    axi.write32(tx(regs::tx::ctrl_rkey), host.page_mr->rkey());
    axi.write64(tx(regs::tx::ctrl_va_lo), host.page_va());
    axi.write32(tx(regs::tx::max_rd_atomic), s.read_depth);
    axi.write32(tx(regs::tx::run), tx_host::run);
    axi.write32(tx(regs::tx::min_lead_ns), s.min_lead_ns);
    axi.write32(tx(regs::tx::max_lead_ns), s.max_lead_ns);
    axi.write64(tx(regs::tx::num_samples_lo), s.samples);
    axi.write64(tx(regs::tx::start_time_lo), s.start_time_ns);
    axi.write32(regs::emu_tx_reg(0, regs::emu_tx::check), 1);
    axi.write32(regs::emu_tx_reg(0, regs::emu_tx::loss_ppm), s.loss_ppm);
    axi.write32(regs::emu_tx_reg(0, regs::emu_tx::fault_seed), 7);
}

regs::tx_counters read_counters(axioe::client& axi)
{
    const uint32_t first = regs::tx::samples_played_lo;
    const uint32_t end = regs::tx::samples_not_played_lo + 8;
    std::vector<uint32_t> w((end - first) / 4);
    axi.read(tx(first), w.data(), w.size());
    regs::tx_counters c;
    regs::tx_counter_fields.unpack(w.data(), first, w.size(), c);
    return c;
}

bool wait_for(const std::function<bool()>& condition, std::chrono::seconds patience = 20s)
{
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > give_up)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

uint32_t error_of(uint32_t status)
{
    return (status & regs::status::error_mask) >> regs::status::error_shift;
}

std::string describe(const regs::tx_counters& c)
{
    return "played " + std::to_string(c.samples_played) + " underflow " +
           std::to_string(c.underflow_samples) + " late " +
           std::to_string(c.late_zero_samples) + " not played " +
           std::to_string(c.samples_not_played) + " reads " + std::to_string(c.reads) +
           " rereads " + std::to_string(c.rereads) + " lead " +
           std::to_string(c.lead_ns) + " rtt " + std::to_string(c.rtt_ns) +
           " mismatches " + std::to_string(c.check_mismatches);
}

// The manual oscillator of test_burst_starts_at_start_time.
std::atomic<int64_t> manual_ns{ 1000000000 };
int64_t manual_oscillator() { return manual_ns.load(); }

} // namespace

class qa_tx_engine : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_tx_engine);
    CPPUNIT_TEST(test_ramp_bit_exact_over_ten_wraps);
    CPPUNIT_TEST(test_fc32_burst);
    CPPUNIT_TEST(test_sc8_burst);
    CPPUNIT_TEST(test_host_stops_committing);
    CPPUNIT_TEST(test_loss_reread_and_lead_adapted);
    CPPUNIT_TEST(test_start_refusals);
    CPPUNIT_TEST(test_burst_starts_at_start_time);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_ramp_bit_exact_over_ten_wraps()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        CPPUNIT_ASSERT(axi.read32(regs::id_capabilities) & regs::cap::tx);
        CPPUNIT_ASSERT_EQUAL(1u, axi.read32(regs::id_num_tx_streams));
        tx_setup s;
        s.samples = 641 * 256 - 100; // 641 messages, the last short: > 10 wraps of 64
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(s.samples);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        // START + lead: the time of sample 0 reads back.
        CPPUNIT_ASSERT(axi.read64(tx(regs::tx::start_time_lo)) > 0);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::done; }));
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), s.samples, c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.late_zero_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(s.samples, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(s.samples, c.samples_fetched);
        CPPUNIT_ASSERT(c.reads >= 641);
        // The identity, to the sample.
        CPPUNIT_ASSERT_EQUAL(host.committed(),
                             c.samples_played + c.late_zero_samples +
                                 c.samples_not_played);
        // Notifications: 16, 32, .., 640, then the burst's last message, 641.
        CPPUNIT_ASSERT(wait_for([&] { return host.immediates().size() == 41; }));
        const std::vector<uint32_t> imms = host.immediates();
        for (size_t i = 0; i < 40; i++)
            CPPUNIT_ASSERT_EQUAL(uint32_t(16 * (i + 1)), imms[i]);
        CPPUNIT_ASSERT_EQUAL(641u, imms[40]);
        CPPUNIT_ASSERT_EQUAL(uint64_t(41), c.notifies_sent);
        // Nothing ever wrote the TX ring or the control page: READ only.
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), host.nic.read_counters().at("rx_bytes"));
        CPPUNIT_ASSERT(c.lead_ns >= s.min_lead_ns);
        host.stop();
    }

    // A burst in \p format over ten rings, two READ RESPONSE packets per message: every
    // sample played and equal to the ramp.
    void check_burst(sample_format format)
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_setup s;
        s.format = format;
        s.payload = 2048;
        s.slots = 32;
        s.notify = 4;
        const uint64_t items = s.payload / item_size(format);
        s.samples = 32 * items * 10 + 7;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(s.samples);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::done; }));
        CPPUNIT_ASSERT_EQUAL(0u, axi.read32(tx(regs::tx::status)) & regs::status::error);
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), s.samples, c.samples_played);
        CPPUNIT_ASSERT_EQUAL(s.samples, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_not_played);
    }

    void test_fc32_burst() { check_burst(sample_format::fc32); }

    // TX_FORMAT 2 (as RX_FORMAT): 2-byte items, the ramp's item k mod 2^16.
    void test_sc8_burst() { check_burst(sample_format::sc8); }

    void test_host_stops_committing()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_setup s; // continuous
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(100 * 256);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        // The host stops: the converter underflows, and plays nothing stale.
        CPPUNIT_ASSERT(
            wait_for([&] { return read_counters(axi).underflow_samples > 5000; }));
        regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(100 * 256), c.samples_played);
        // It resumes: the stream goes on with exactly the sample that was due.
        host.limit(300 * 256 + 10); // the last message stays partial: not played
        CPPUNIT_ASSERT(wait_for([&] {
            const regs::tx_counters n = read_counters(axi);
            return n.samples_played == 300 * 256 &&
                   n.underflow_samples > c.underflow_samples;
        }));
        host.stop();
        axi.write32(tx(regs::tx::command), regs::command::stop);
        c = read_counters(axi);
        CPPUNIT_ASSERT(!(axi.read32(tx(regs::tx::status)) & regs::status::running));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(c.samples_played, c.check_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.late_zero_samples);
        // The identity at STOP, and every converter tick accounted for.
        CPPUNIT_ASSERT_EQUAL(uint64_t(300 * 256 + 10), host.committed());
        CPPUNIT_ASSERT_EQUAL(host.committed(),
                             c.samples_played + c.late_zero_samples +
                                 c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(10), c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(dev.tx(0).ticks(),
                             c.samples_played + c.late_zero_samples +
                                 c.underflow_samples);
    }

    void test_loss_reread_and_lead_adapted()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_setup s;
        s.samples = 500 * 256;
        s.loss_ppm = 10000;   // 1 % of the READ RESPONSEs
        s.min_lead_ns = 1000; // the lead follows the round trips
        s.max_lead_ns = 20000000;
        s.read_depth = 8;
        s.notify = 4;
        // Far enough ahead that the first round trips set the lead before sample 0.
        s.start_time_ns = axi.read64(regs::clock_time_ns_lo) + 50000000;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        host.limit(s.samples);
        program(axi, host, s);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        CPPUNIT_ASSERT(wait_for(
            [&] { return axi.read32(tx(regs::tx::status)) & regs::status::done; }));
        host.stop();
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_MESSAGE(describe(c), c.rereads > 0);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), uint64_t(0), c.underflow_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(
            s.samples, c.samples_played + c.late_zero_samples + c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.samples_not_played);
        // The lead is the round trips' (reported): 2 · p99 + a message's time.
        CPPUNIT_ASSERT(c.rtt_ns > 0);
        const uint64_t message_ns = 256ull * 1000000000 / s.rate;
        const uint64_t expect =
            std::min<uint64_t>(2ull * c.rtt_ns + message_ns, s.max_lead_ns);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c), expect, uint64_t(c.lead_ns));
    }

    void test_start_refusals()
    {
        emu::emulator dev{ emu::emulator_config{} };
        axioe::client axi(dev.control_address());
        tx_setup s;
        tx_host host(dev.link_address(), s.payload, s.slots, s.format);
        auto refused = [&](uint32_t code) {
            bool slverr = false;
            try {
                axi.write32(tx(regs::tx::command), regs::command::start);
            } catch (const axioe::error& e) {
                slverr = e.code() == axioe::status::slverr;
            }
            CPPUNIT_ASSERT(slverr);
            const uint32_t st = axi.read32(tx(regs::tx::status));
            CPPUNIT_ASSERT(st & regs::status::error);
            CPPUNIT_ASSERT_EQUAL(code, error_of(st));
        };
        // A start time in the past: error 10, nothing requested.
        s.start_time_ns = axi.read64(regs::clock_time_ns_lo) - 1000000000ull;
        program(axi, host, s);
        refused(regs::error_code::start_time_passed);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), read_counters(axi).reads);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), host.nic.read_counters().at("reads"));
        s.start_time_ns = 0;
        program(axi, host, s);
        axi.write64(tx(regs::tx::ctrl_va_lo), 0);
        refused(regs::error_code::bad_control_page);
        axi.write64(tx(regs::tx::ctrl_va_lo), host.page_va() + 4);
        refused(regs::error_code::bad_control_page);
        program(axi, host, s);
        axi.write32(tx(regs::tx::max_rd_atomic), 0);
        refused(regs::error_code::bad_read_depth);
        axi.write32(tx(regs::tx::max_rd_atomic), 17);
        refused(regs::error_code::bad_read_depth);
        program(axi, host, s);
        axi.write64(tx(regs::tx::ring_bytes_lo), 1000);
        refused(regs::error_code::bad_ring);
        // N = 0 is not a notify interval; the write itself is refused.
        bool slverr = false;
        try {
            axi.write32(tx(regs::tx::notify_interval), 0);
        } catch (const axioe::error& e) {
            slverr = e.code() == axioe::status::slverr;
        }
        CPPUNIT_ASSERT(slverr);
        // Running: a second START is busy, and the descriptor is latched.
        program(axi, host, s);
        host.limit(1u << 30);
        host.start();
        axi.write32(tx(regs::tx::command), regs::command::start);
        refused(regs::error_code::busy);
        CPPUNIT_ASSERT(axi.read32(tx(regs::tx::status)) & regs::status::running);
        slverr = false;
        try {
            axi.write32(tx(regs::tx::rkey), 1);
        } catch (const axioe::error& e) {
            slverr = e.code() == axioe::status::slverr;
        }
        CPPUNIT_ASSERT(slverr);
        axi.write32(tx(regs::tx::command), regs::command::stop);
        host.stop();
    }

    void test_burst_starts_at_start_time()
    {
        // The engine on a manual oscillator: sample 0 plays at TX_START_TIME exactly,
        // sample k at TX_START_TIME + k / rate.
        const uint64_t device_start = 5000000000000ull;
        emu::device_clock clock(manual_oscillator, device_start);
        emu::udp_wire link(socket_address::parse("127.0.0.1:0"));
        emu::ack_receiver acks(link, 1, 1);
        emu::tx_engine engine(0, link, acks, &clock);
        tx_host host(link.local_address(), 1024, 16, sample_format::sc16);
        host.limit(10 * 256);
        host.start();

        emu::tx_descriptor d;
        d.host = host.nic.roce_address();
        d.host_qpn = host.qp->qpn();
        d.start_psn = psn;
        d.rkey = host.ring_mr->rkey();
        d.va = host.ring_va();
        d.ring_bytes = 16 * 1024;
        d.rate_num = 1000000;
        d.ctrl_rkey = host.page_mr->rkey();
        d.ctrl_va = host.page_va();
        d.max_rd_atomic = 4;
        d.run = tx_host::run;
        d.min_lead_ns = 2000000;
        d.num_samples = 10 * 256;
        d.emulation.check = 1;
        const uint64_t t0 = device_start + 10000000; // 10 ms after the clock's start
        d.start_time_ns = t0;
        const int64_t mono_t0 = clock.oscillator_at(t0);
        manual_ns = mono_t0 - 1000000; // 1 ms before: within the lead, nothing plays
        CPPUNIT_ASSERT_EQUAL(regs::error_code::none, engine.start(d));
        CPPUNIT_ASSERT_EQUAL(t0, engine.start_time_ns());
        CPPUNIT_ASSERT(
            wait_for([&] { return engine.counters().samples_fetched >= 256; }));
        manual_ns = mono_t0; // sample 0 is due now, not yet played
        std::this_thread::sleep_for(5ms);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), engine.ticks());
        manual_ns = mono_t0 + 1; // ... and played 1 ns later
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() > 0; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), engine.ticks());
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), engine.counters().samples_played);
        manual_ns = mono_t0 + 100000; // sample 100 due, 0..99 played
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() > 1; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), engine.ticks());
        manual_ns = mono_t0 + 100001;
        CPPUNIT_ASSERT(wait_for([&] { return engine.ticks() > 100; }, 5s));
        CPPUNIT_ASSERT_EQUAL(uint64_t(101), engine.ticks());
        const regs::tx_counters c = engine.counters();
        CPPUNIT_ASSERT_EQUAL(uint64_t(101), c.samples_played);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.underflow_samples);
        engine.stop();
        host.stop();
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_tx_engine);
