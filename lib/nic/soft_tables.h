/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_TABLES_H
#define INCLUDED_RDMA_NIC_SOFT_TABLES_H

#include "soft_counters.h"
#include <gnuradio/rdma/transport_api.h>
#include <unordered_map>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <random>

namespace gr {
namespace rdma {
namespace nic {

struct qp_context;

//! A registered memory region as the responder sees it.
struct mr_entry {
    uint8_t* addr = nullptr;
    size_t length = 0;
    unsigned access = 0;
    uint32_t pd = 0;
    uint32_t key = 0; //!< lkey == rkey
};

/*!
 * The objects of one soft NIC by number: QPs by QPN and MRs by key. One mutex guards
 * the tables and everything reachable from them (the QP contexts included): the
 * receive path holds it for a batch, the host for each create/modify/destroy, so that
 * once a destroy returns the receive path can no longer reach the object.
 *
 * The device's counters live here too: every object that holds the tables may count
 * (a QP flushing its receives, say), and they must outlive all of them.
 */
class RDMA_TRANSPORT_API soft_tables
{
public:
    soft_tables();
    soft_tables(const soft_tables&) = delete;
    soft_tables& operator=(const soft_tables&) = delete;

    std::mutex& mutex() { return d_mutex; }
    soft_counters& counters() { return d_counters; }
    const soft_counters& counters() const { return d_counters; }

    //! A new protection domain number (never 0). Thread-safe.
    uint32_t new_pd();

    //! Insert, assigning a random key (never 0, unique on this NIC). Locks.
    uint32_t add_mr(mr_entry entry);
    void remove_mr(uint32_t key); //!< Locks.

    //! Insert, assigning a random 24-bit QPN (0x11 or more, unique on this NIC). Locks.
    uint32_t add_qp(qp_context* qp);
    void remove_qp(uint32_t qpn); //!< Locks.

    // Lookups: the caller holds mutex().
    qp_context* find_qp(uint32_t qpn) const;
    const mr_entry* find_mr(uint32_t key) const;

private:
    std::mutex d_mutex;
    soft_counters d_counters;
    std::unordered_map<uint32_t, qp_context*> d_qps;
    std::unordered_map<uint32_t, mr_entry> d_mrs; // by key
    uint32_t d_next_pd = 1;
    // The kernel's generator, not a seeded PRNG: a peer that saw some keys must not be
    // able to compute the others. Control path only.
    std::random_device d_random;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
