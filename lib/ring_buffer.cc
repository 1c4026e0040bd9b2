/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ring_buffer.h"
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

gr::buffer_type ring_buffer::type(gr::buftype<ring_buffer, ring_buffer>{});

gr::buffer_sptr ring_buffer::make_buffer(int nitems,
                                         size_t sizeof_item,
                                         uint64_t downstream_lcm_nitems,
                                         uint32_t downstream_max_out_mult,
                                         gr::block_sptr link,
                                         gr::block_sptr buf_owner)
{
    const ring_provider* provider = dynamic_cast<const ring_provider*>(buf_owner.get());
    if (!provider)
        provider = dynamic_cast<const ring_provider*>(link.get());
    if (!provider)
        throw std::logic_error("rdma ring_buffer: the owner block provides no RDMA ring");
    const provided_ring ring = provider->ring();
    if (sizeof_item != ring.item_size)
        throw std::logic_error(
            "rdma ring_buffer: item size " + std::to_string(sizeof_item) +
            " does not match the ring's " + std::to_string(ring.item_size));
    if (static_cast<size_t>(nitems) > ring.items)
        throw std::runtime_error("the flowgraph needs a buffer of " +
                                 std::to_string(nitems) +
                                 " items after the RDMA source but its ring holds " +
                                 std::to_string(ring.items) +
                                 ": raise latency= in the device args (ring size = rate "
                                 "x item size x latency)");
    return gr::buffer_sptr(
        new ring_buffer(ring, downstream_lcm_nitems, downstream_max_out_mult, link));
}

ring_buffer::ring_buffer(const provided_ring& ring,
                         uint64_t downstream_lcm_nitems,
                         uint32_t downstream_max_out_mult,
                         gr::block_sptr link)
    : gr::buffer(gr::buffer_mapping_type::double_mapped,
                 static_cast<int>(ring.items),
                 ring.item_size,
                 downstream_lcm_nitems,
                 downstream_max_out_mult,
                 link)
{
    d_base = reinterpret_cast<char*>(ring.base);
    d_bufsize = static_cast<unsigned>(ring.items);
}

// As buffer_double_mapped::space_available() in GNU Radio 3.10.5.1, tag pruning included.
int ring_buffer::space_available()
{
    if (d_readers.empty())
        return d_bufsize - 1;
    int most_data = d_readers[0]->items_available();
    uint64_t min_items_read = d_readers[0]->nitems_read();
    for (size_t i = 1; i < d_readers.size(); i++) {
        most_data = std::max(most_data, d_readers[i]->items_available());
        min_items_read = std::min(min_items_read, d_readers[i]->nitems_read());
    }
    if (min_items_read != d_last_min_items_read) {
        prune_tags(d_last_min_items_read);
        d_last_min_items_read = min_items_read;
    }
    // The -1 keeps "write index == read index" unambiguous: it means empty.
    return d_bufsize - most_data - 1;
}

uint64_t ring_buffer::released_items()
{
    gr::thread::scoped_lock guard(*mutex());
    uint64_t released = nitems_written();
    for (size_t i = 0; i < nreaders(); i++) {
        buffer_reader* r = reader(i);
        // A reader whose block has finished will never read again (e.g. behind a head).
        if (r->link() && r->link()->detail() && r->link()->detail()->done())
            continue;
        const uint64_t history = r->link() ? r->link()->history() - 1 : 0;
        const uint64_t read = r->nitems_read();
        released = std::min(released, read > 2 * history ? read - 2 * history : 0);
    }
    return released;
}

unsigned ring_buffer::index_add(unsigned a, unsigned b)
{
    unsigned s = a + b;
    if (s >= d_bufsize)
        s -= d_bufsize;
    return s;
}

unsigned ring_buffer::index_sub(unsigned a, unsigned b)
{
    int s = static_cast<int>(a) - static_cast<int>(b);
    if (s < 0)
        s += d_bufsize;
    return static_cast<unsigned>(s);
}

} // namespace rdma
} // namespace gr
