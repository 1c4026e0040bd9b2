/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RING_BUFFER_H
#define INCLUDED_RDMA_RING_BUFFER_H

#include <gnuradio/buffer.h>
#include <gnuradio/buffer_type.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace rdma {

//! A double-mapped ring some block owns, for ring_buffer to adopt.
struct provided_ring {
    uint8_t* base =
        nullptr; //!< [base, base + 2 * items * item_size) mapped, halves aliased
    size_t items = 0;
    size_t item_size = 0;
};

//! Implemented by blocks whose buffer is an RDMA ring (the buffer's owner).
class ring_provider
{
public:
    virtual ~ring_provider() = default;
    virtual provided_ring ring() const = 0;
};

/*!
 * A GNU Radio buffer that adopts the RDMA ring instead of allocating: the memory the
 * NIC writes into is the memory downstream blocks read. Double-mapped semantics (any
 * window up to the ring size is contiguous), so GNU Radio's standard readers work
 * unchanged. Derives from gr::buffer directly: buffer_double_mapped cannot adopt
 * memory in 3.10.5.1 (docs/architecture notes: custom buffers).
 */
class ring_buffer : public gr::buffer
{
public:
    static gr::buffer_type type;
    //! Factory for buffer_type: adopts the ring of \p buf_owner (or \p link).
    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner);

    int space_available() override;
    void post_work(int) override {} // the NIC already wrote the items

    /*!
     * Items (in the writer's numbering) that every reader is done with, conservatively:
     * a reader with history h may still look h-1 items back, and its count includes
     * h-1 preloaded items. Without readers, everything written.
     */
    uint64_t released_items();

    /*!
     * The buffer this ring replaced on its writer's output (GNU Radio 3.10.5.1 makes a
     * sink's ring inside block::replace_buffer, with the writer's default buffer still
     * in place), if it still exists: only while a block reads it. A reader there is a
     * consumer of the same edge that GNU Radio left on the thrown-away buffer, where
     * nothing will ever be written (the fan-out quirk of notes: custom buffers, §1.8).
     * Null for a ring the writer owns (a source's) or when nothing reads the original.
     */
    gr::buffer_sptr replaced() const;

    /*!
     * Whether the writer block still writes this ring: false when GNU Radio made
     * another sink's ring for the same output afterwards (two sinks on one edge), which
     * replaced this one.
     */
    bool writers_output() const;

protected:
    unsigned index_add(unsigned a, unsigned b) override;
    unsigned index_sub(unsigned a, unsigned b) override;

private:
    ring_buffer(const provided_ring& ring,
                uint64_t downstream_lcm_nitems,
                uint32_t downstream_max_out_mult,
                gr::block_sptr link);
    void drop_transfer_type_once();
    int writer_port() const; // the writer's output port that is this ring, or -1

    // The writer's output buffers when this ring was made, by port (weak: the one this
    // ring replaces lives on only if a reader holds it).
    std::vector<std::weak_ptr<gr::buffer>> d_writer_outputs;
    // A replacement ring drops GNU Radio's transfer type once, after the sink's edge
    // set it (drop_transfer_type_once()).
    std::atomic<bool> d_drop_transfer_type{ false };
};

} // namespace rdma
} // namespace gr

#endif
