/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "tx_control_page.h"
#include <sys/mman.h>
#include <new>

namespace gr {
namespace rdma {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the control page's words are little-endian on the wire");
static_assert(sizeof(std::atomic<uint64_t>) == 8 &&
                  std::atomic<uint64_t>::is_always_lock_free,
              "the device reads the control words as plain 64-bit memory");

tx_control_page::tx_control_page()
{
    // An anonymous mapping of its own: page-aligned, zeroed, registrable, and nothing
    // else shares the page (the MR exposes the whole page to remote READ).
    d_base =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (d_base == MAP_FAILED)
        throw_errno("mmap of the TX control page");
    // Locked like the ring: a registered page must not move (a failure is not fatal,
    // the registration pins it anyway).
    d_locked = mlock(d_base, bytes) == 0;
    d_committed = new (d_base) std::atomic<uint64_t>(0);
    d_run = new (static_cast<uint8_t*>(d_base) + 8) std::atomic<uint64_t>(0);
}

tx_control_page::~tx_control_page() { munmap(d_base, bytes); }

void tx_control_page::begin_run(uint64_t run)
{
    // committed first: a READ between the two stores sees the old run with 0, or the
    // new run with 0; never the new run with the old count.
    d_committed->store(0, std::memory_order_release);
    d_run->store(run, std::memory_order_release);
}

} // namespace rdma
} // namespace gr
