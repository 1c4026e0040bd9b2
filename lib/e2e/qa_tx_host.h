/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_E2E_QA_TX_HOST_H
#define INCLUDED_RDMA_E2E_QA_TX_HOST_H

// The host side of the TX engine's end-to-end tests (qa_tx_engine.cc, qa_tx_bursts.cc),
// standing in for tx_stream: a soft NIC, an RC QP granting remote READ only, a TX ring
// and a control page registered for remote READ only, and a thread that writes the
// ramp (item k = ramp item k) into every slot the device has released, item by item,
// publishing `committed` after the samples, up to limit().

#include "../axioe/axioe_client.h"
#include "../emu/tx_descriptor.h"
#include "../nic/soft_nic.h"
#include "../nic/soft_queue_pair.h"
#include <gnuradio/rdma/ramp.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {
namespace qa {

constexpr uint32_t tx_psn = 0xFFFFF0; // wraps during every run

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
          d_item(item_size(format)),
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
        qp->to_rtr({ device_link, emu::tx_source_qpn(0) }, tx_psn, 1024);
        qp->to_rts(tx_psn);
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

    //! Commit up to item \p items (the thread follows).
    void limit(uint64_t items) { d_limit = items; }
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
                std::this_thread::sleep_for(std::chrono::microseconds(50));
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
        // Item k's slot, (k / spm) mod slots, is free once message k / spm - slots was
        // released; items are written and committed up to the limit, in pieces that
        // never cross a message.
        const uint64_t limit = d_limit;
        const uint64_t room = (d_released + d_slots) * d_spm;
        while (d_written < std::min(limit, room)) {
            const uint64_t m = d_written / d_spm;
            const uint64_t end = std::min({ limit, room, (m + 1) * d_spm });
            ramp_fill(d_format,
                      d_written,
                      end - d_written,
                      ring() + (m % d_slots) * d_payload +
                          (d_written - m * d_spm) * d_item);
            d_written = end;
            __atomic_store_n(&d_page[0], d_written, __ATOMIC_RELEASE);
        }
    }

    const uint32_t d_payload;
    const size_t d_slots;
    const sample_format d_format;
    const size_t d_item;
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
    uint64_t d_written = 0;  // the thread's: items written and committed
    uint64_t d_released = 0; // the thread's: the device's last immediate
    std::mutex d_mutex;
    std::vector<uint32_t> d_imms;
    std::atomic<bool> d_stop{ false };
    std::thread d_thread;
};

inline uint32_t tx(uint32_t reg) { return regs::tx_reg(0, reg); }

//! What a test changes from the defaults of program().
struct tx_run_setup {
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

inline void program(axioe::client& axi, tx_host& host, const tx_run_setup& s)
{
    axi.write32(tx(regs::tx::host_ipv4), host.nic.roce_address().ip());
    axi.write32(tx(regs::tx::host_udp_port), host.nic.roce_address().port());
    axi.write32(tx(regs::tx::host_qpn), host.qp->qpn());
    axi.write32(tx(regs::tx::start_psn), tx_psn);
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

//! The TX counters of stream 0, map 1.3's and map 1.4's.
inline regs::tx_counters read_counters(axioe::client& axi)
{
    regs::tx_counters c;
    for (const auto* set : { &regs::tx_counter_fields, &regs::tx_burst_counter_fields }) {
        const uint32_t first = regs::span_of(*set).first;
        const uint32_t end = regs::span_of(*set).second;
        std::vector<uint32_t> w((end - first) / 4);
        axi.read(tx(first), w.data(), w.size());
        set->unpack(w.data(), first, w.size(), c);
    }
    return c;
}

inline bool wait_for(const std::function<bool()>& condition,
                     std::chrono::seconds patience = std::chrono::seconds(20))
{
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > give_up)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

inline uint32_t error_of(uint32_t status)
{
    return (status & regs::status::error_mask) >> regs::status::error_shift;
}

inline std::string describe(const regs::tx_counters& c)
{
    return "played " + std::to_string(c.samples_played) + " underflow " +
           std::to_string(c.underflow_samples) + " late " +
           std::to_string(c.late_zero_samples) + " dropped " +
           std::to_string(c.dropped_samples) + " idle " + std::to_string(c.idle_ticks) +
           " not played " + std::to_string(c.samples_not_played) + " reads " +
           std::to_string(c.reads) + " rereads " + std::to_string(c.rereads) + " lead " +
           std::to_string(c.lead_ns) + " rtt " + std::to_string(c.rtt_ns) +
           " mismatches " + std::to_string(c.check_mismatches) + " bursts " +
           std::to_string(c.bursts_done) + " time errors " +
           std::to_string(c.time_errors);
}

} // namespace qa
} // namespace rdma
} // namespace gr

#endif
