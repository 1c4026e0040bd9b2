/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../nic/soft_completion_queue.h"
#include "../nic/soft_protection_domain.h"
#include "../nic/soft_queue_pair.h"
#include "../nic/soft_tables.h"
#include "../wire/address_registry.h"
#include "null_nic.h"
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>

namespace gr {
namespace rdma {
namespace standin {

// The soft NIC's verbs objects, without its socket and thread.
using namespace nic;

namespace {

// Null NICs by address: the only "network" they are on.
using port_registry = wire::address_registry<null_port>;

socket_address next_address()
{
    static std::atomic<uint16_t> next{ 1 };
    return socket_address(0x7F000001, next++);
}

int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

size_t null_port::execute(uint32_t qpn,
                          uint32_t rkey,
                          const null_message* messages,
                          size_t count)
{
    std::lock_guard<std::mutex> lock(d_tables->mutex());
    soft_counters& counters = d_tables->counters();
    qp_context* qp = d_tables->find_qp(qpn);
    if (!qp) {
        counters.count(rx_result::drop_unknown_qpn);
        return 0;
    }
    if (qp->state != qp_state::rtr && qp->state != qp_state::rts) {
        counters.count(rx_result::drop_qp_state);
        return 0;
    }
    if (qp->type != qp_type::uc) {
        counters.count(rx_result::drop_transport_mismatch);
        return 0;
    }
    if (!(qp->remote_access & access_remote_write)) {
        counters.count(rx_result::drop_no_access);
        return 0;
    }
    const mr_entry* mr = d_tables->find_mr(rkey);
    if (!mr || mr->pd != qp->pd || !(mr->access & access_remote_write)) {
        counters.count(rx_result::drop_bad_rkey);
        return 0;
    }
    const uint64_t base = reinterpret_cast<uintptr_t>(mr->addr);
    size_t done = 0;
    for (size_t i = 0; i < count; i++) {
        const null_message& m = messages[i];
        if (m.va < base || m.bytes > mr->length || m.va - base > mr->length - m.bytes ||
            m.mark_bytes > m.packet_bytes || m.packet_bytes == 0) {
            counters.count(rx_result::drop_out_of_bounds);
            continue;
        }
        if (m.immediate && qp->receives.empty()) {
            counters.count(rx_result::drop_no_receive_wr); // UC: nothing of it is written
            continue;
        }
        uint8_t* dest = mr->addr + (m.va - base);
        uint64_t written = 0;
        for (uint32_t offset = 0; offset < m.bytes; offset += m.packet_bytes) {
            const uint32_t n = std::min(m.mark_bytes, m.bytes - offset);
            std::memset(dest + offset, 0, n);
            written += n;
            counters.count(rx_result::accepted);
        }
        counters.add(nic_event::rx_bytes, written);
        if (m.immediate) {
            work_completion wc;
            qp->receives.take(wc.wr_id);
            wc.status = wc_status::success;
            wc.byte_len = m.bytes;
            wc.imm_data = m.imm;
            wc.qpn = qp->qpn;
            wc.written_ns = steady_ns();
            qp->complete(wc, counters);
        }
        done++;
    }
    return done;
}

null_nic::null_nic()
    : d_tables(std::make_shared<soft_tables>()),
      d_address(next_address()),
      d_port(std::make_shared<null_port>(d_tables))
{
    port_registry::publish(d_address, d_port);
}

null_nic::~null_nic() { port_registry::withdraw(d_address, d_port.get()); }

std::string null_nic::name() const { return "null_nic@" + d_address.to_string(); }

std::unique_ptr<protection_domain> null_nic::alloc_pd()
{
    return std::make_unique<soft_protection_domain>(d_tables, max_path_mtu());
}

std::unique_ptr<completion_queue> null_nic::create_cq(int entries)
{
    return std::make_unique<soft_completion_queue>(
        std::make_shared<completion_ring>(entries, d_tables.get()));
}

counters null_nic::read_counters() const { return d_tables->counters().snapshot(); }

std::shared_ptr<null_port> null_nic::find(const socket_address& address)
{
    return port_registry::find(address);
}

} // namespace standin
} // namespace rdma
} // namespace gr
