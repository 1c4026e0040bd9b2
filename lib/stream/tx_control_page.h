/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_TX_CONTROL_PAGE_H
#define INCLUDED_RDMA_STREAM_TX_CONTROL_PAGE_H

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * The TX control page (docs/transmit.md, "Memory"): 4 KiB of page-aligned, locked
 * memory that the device READs to learn how far the host has written. Word 0 is
 * `committed` (items made available since START), word 1 the run number; the rest
 * stays zero. Little-endian on the wire, as this host is (checked at compile time).
 *
 * publish() is a release store: the samples written before it are visible to the NIC's
 * DMA before the count that covers them.
 */
class tx_control_page
{
public:
    static constexpr size_t bytes = 4096;
    static constexpr size_t read_bytes = 16; //!< what the device reads: both words

    tx_control_page();
    ~tx_control_page();
    tx_control_page(const tx_control_page&) = delete;
    tx_control_page& operator=(const tx_control_page&) = delete;

    //! A new run: committed back to 0 (before the run number), then \p run.
    void begin_run(uint64_t run);
    //! Items \p committed are written: make them available to the device.
    void publish(uint64_t committed)
    {
        d_committed->store(committed, std::memory_order_release);
    }
    uint64_t committed() const { return d_committed->load(std::memory_order_relaxed); }
    uint64_t run() const { return d_run->load(std::memory_order_relaxed); }

    void* base() const { return d_base; }
    bool locked() const { return d_locked; }

private:
    void* d_base = nullptr;
    std::atomic<uint64_t>* d_committed = nullptr;
    std::atomic<uint64_t>* d_run = nullptr;
    bool d_locked = false;
};

} // namespace rdma
} // namespace gr

#endif
