/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RING_RING_MEMORY_H
#define INCLUDED_RDMA_RING_RING_MEMORY_H

#include "../util/log.h"
#include "ring_sizing.h"
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

enum class hugepage_mode {
    automatic, //!< 2 MiB pages if available, else normal pages and a logged warning
    required,  //!< 2 MiB pages or std::system_error
    off        //!< normal pages, no warning
};

struct ring_options {
    size_t min_bytes = 0; //!< at least this many bytes in one copy
    size_t granule = 1;   //!< size must be a multiple of this (e.g. packet payload bytes)
    hugepage_mode hugepages = hugepage_mode::automatic;
    int numa_node = -1; //!< -1: no placement
    bool lock = true;   //!< mlock the ring
};

/*!
 * \brief The memory of one sample ring: a memfd mapped twice, back to back.
 *
 * [base(), base() + 2 * bytes()) is mapped read/write and the second half aliases the
 * first, so a slice that starts anywhere in the first copy is contiguous up to bytes()
 * long. That is what GNU Radio's double-mapped readers expect, and it lets the remote
 * write packets across the wrap without splitting them.
 *
 * The constructor settles everything a DMA target needs once: hugepages, placement on
 * a NUMA node (before any page is touched), prefaulting and mlock. Whatever it cannot
 * get is logged as a warning with the fix and listed in notes(); only sizes that make no
 * sense, hugepage_mode::required without hugepages, and system failures throw.
 *
 * Neither copyable nor movable: the address is registered with the NIC and handed to
 * GNU Radio, so it must not change while the object lives.
 */
class ring_memory
{
public:
    explicit ring_memory(const ring_options& options, logger_ptr log = nullptr);
    ~ring_memory();
    ring_memory(const ring_memory&) = delete;
    ring_memory& operator=(const ring_memory&) = delete;

    //! Start of the first copy; aligned to page_size().
    uint8_t* base() const { return d_base; }
    //! Bytes in one copy: a multiple of page_size() and of the granule.
    size_t bytes() const { return d_bytes; }
    bool hugepages() const { return d_hugepages; }
    bool locked() const { return d_locked; }
    //! NUMA node the pages were placed on, -1 if none was requested or it failed.
    int numa_node() const { return d_numa_node; }
    //! Mapping granularity used: ring_hugepage_bytes or system_page_size().
    size_t page_size() const { return d_page_size; }
    //! Fallbacks taken, with their fixes, separated by "\n"; empty if none.
    const std::string& notes() const { return d_notes; }

private:
    void note(const std::string& text);

    logger_ptr d_logger;
    uint8_t* d_base = nullptr;
    size_t d_bytes = 0;
    size_t d_page_size = 0;
    bool d_hugepages = false;
    bool d_locked = false;
    int d_numa_node = -1;
    std::string d_notes;
};

} // namespace rdma
} // namespace gr

#endif
