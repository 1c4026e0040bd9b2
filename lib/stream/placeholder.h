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
 * first two items of the slot are set to a mark; a packet that lands overwrites both.
 * Finding the mark in a slot after the packet must have landed localizes a loss
 * exactly, without reading any header.
 *
 * No fixed value will do: an overdriven converter produces any pair of extreme values
 * (sc16 (-32768, -32768) then (+32767, +32767) was the mark once, and saturated noise
 * makes it at 1 in 16 message boundaries). The mark is random, drawn anew for every run
 * (renew()): 64 bits for sc16, 128 for fc32. Samples equal it only by chance, whatever
 * the signal, since the device never learns it: 2^-64 per message for sc16 (a false loss
 * once in some 10^6 years of 64 KiB messages at 10 GB/s), 2^-128 for fc32.
 *
 * The marks sit at the start of a packet so that the end of the ring stays zero:
 * GNU Radio blocks with history read a few items before item 0 and expect zeros. The
 * loss tracker marks only the last packet of each message (loss_tracker.h).
 */
class placeholder
{
public:
    //! A placeholder for items of \p format, with a fresh random mark.
    explicit placeholder(sample_format format);

    //! Draw a new random mark (std::random_device): once per run, before arming.
    void renew();
    //! Use this mark: item-sized words (the low 32 bits for sc16); neither may be 0
    //! (zeros are what lost samples read as). For tests.
    void set_mark(uint64_t first, uint64_t second);
    uint64_t first_word() const { return d_first; }
    uint64_t second_word() const { return d_second; }

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
