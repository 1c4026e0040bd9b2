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
    auto buffer = std::shared_ptr<ring_buffer>(
        new ring_buffer(ring, downstream_lcm_nitems, downstream_max_out_mult, link));
    // A ring some other block owns replaces its writer's buffer (block::replace_buffer,
    // called for the sink's edge): the writer's outputs are still the originals here.
    if (link && buf_owner && link != buf_owner && link->detail()) {
        const gr::block_detail_sptr writer = link->detail();
        for (int port = 0; port < writer->noutputs(); port++)
            buffer->d_writer_outputs.push_back(writer->output(port));
        buffer->d_drop_transfer_type = true;
    }
    return buffer;
}

int ring_buffer::writer_port() const
{
    const gr::block_sptr writer = d_link.lock();
    if (!writer || !writer->detail())
        return -1;
    const gr::block_detail_sptr detail = writer->detail();
    for (int port = 0; port < detail->noutputs(); port++)
        if (detail->output(port).get() == this)
            return port;
    return -1;
}

bool ring_buffer::writers_output() const { return writer_port() >= 0; }

gr::buffer_sptr ring_buffer::replaced() const
{
    const int port = writer_port();
    if (port < 0 || static_cast<size_t>(port) >= d_writer_outputs.size())
        return nullptr;
    return d_writer_outputs[static_cast<size_t>(port)].lock();
}

void ring_buffer::drop_transfer_type_once()
{
    // GNU Radio 3.10.5.1 labels a buffer with one transfer type for all its readers,
    // from each edge's buffer types, and throws when a second edge wants another
    // label: the sink's edge sets HOST_TO_DEVICE, another consumer of the same output
    // HOST_TO_HOST ("... Cannot change to transfer type HOST_TO_HOST."), and start()
    // fails before the sink can name the fix. The label only selects host_buffer's
    // copies; this ring is host memory the NIC reads, whatever the label. So the ring
    // drops it once, in the first index_sub(), which buffer_add_reader() makes for the
    // sink's reader right after set_transfer_type() (flat_flowgraph.cc,
    // connect_block_inputs): the other consumers then become readers of the ring, and
    // the sink refuses the fan-out at start() with the fix (tx_sink_impl).
    // Single-threaded: the flowgraph is being set up, no block runs yet.
    if (d_drop_transfer_type.exchange(false, std::memory_order_relaxed))
        d_transfer_type = gr::transfer_type::DEFAULT_INVALID;
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
    if (d_drop_transfer_type.load(std::memory_order_relaxed))
        drop_transfer_type_once();
    int s = static_cast<int>(a) - static_cast<int>(b);
    if (s < 0)
        s += d_bufsize;
    return static_cast<unsigned>(s);
}

} // namespace rdma
} // namespace gr
