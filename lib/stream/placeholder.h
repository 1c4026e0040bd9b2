/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PLACEHOLDER_H
#define INCLUDED_RDMA_STREAM_PLACEHOLDER_H

#include <gnuradio/rdma/sample_format.h>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gr {
namespace rdma {

/*!
 * Placeholder values that mark a packet slot of the ring as "not yet written": the
 * first two items of the slot are set to a pair no converter produces; a packet that
 * lands overwrites both. Finding the pair in a slot after the packet must have landed
 * localizes a loss exactly, without reading any header.
 *
 *  sc16: (-32768, -32768) then (+32767, +32767): a full-scale swing on both channels
 *        within one sample, which a band-limited converter output cannot make (the
 *        test ramp never does either: consecutive ramp items differ by one).
 *  fc32: two quiet NaNs with payloads 0x7FC0DEAD and 0x7FC0BEEF; converters never
 *        yield NaN.
 *
 * The marks sit at the start of a packet so that the end of the ring stays zero:
 * GNU Radio blocks with history read a few items before item 0 and expect zeros. The
 * loss tracker marks only the last packet of each message (loss_tracker.h).
 */
class placeholder
{
public:
    explicit placeholder(sample_format format);

    //! Mark the packet slot of \p items items at \p slot as not written.
    void arm(uint8_t* slot, size_t items) const
    {
        if (d_item == 4)
            store<uint32_t>(slot, items);
        else
            store<uint64_t>(slot, items);
    }
    //! Whether the packet slot still holds the mark (the packet did not land).
    bool present(const uint8_t* slot, size_t items) const
    {
        // Fixed-size loads, not memcmp: this runs once per message.
        return d_item == 4 ? matches<uint32_t>(slot, items)
                           : matches<uint64_t>(slot, items);
    }

private:
    template <typename word>
    void store(uint8_t* slot, size_t items) const
    {
        const word first = static_cast<word>(d_first),
                   second = static_cast<word>(d_second);
        std::memcpy(slot, &first, sizeof(word));
        if (items > 1)
            std::memcpy(slot + sizeof(word), &second, sizeof(word));
    }
    template <typename word>
    bool matches(const uint8_t* slot, size_t items) const
    {
        word first, second;
        std::memcpy(&first, slot, sizeof(word));
        if (first != static_cast<word>(d_first))
            return false;
        if (items < 2)
            return true;
        std::memcpy(&second, slot + sizeof(word), sizeof(word));
        return second == static_cast<word>(d_second);
    }

    size_t d_item;
    uint64_t d_first;
    uint64_t d_second;
};

} // namespace rdma
} // namespace gr

#endif
