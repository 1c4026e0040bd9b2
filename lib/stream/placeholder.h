/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PLACEHOLDER_H
#define INCLUDED_RDMA_STREAM_PLACEHOLDER_H

#include <gnuradio/rdma/sample_format.h>
#include <algorithm>
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
 * (renew()): two words of 32 bits for sc16 (one item each) and sc8 (two items each), of
 * 64 bits for fc32. Samples equal it only by chance, whatever the signal, since the
 * device never learns it: 2^-64 per message for sc16 and sc8 (a false loss once in some
 * 10^6 years of 64 KiB messages at 10 GB/s), 2^-128 for fc32. A packet shorter than two
 * words (the last of a burst) holds what fits of the first.
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
    //! Use this mark: words of 32 bits (sc16, sc8: the low 32 bits) or 64 (fc32);
    //! neither may be 0, nor (sc8) the first's low 16 bits, which a packet of one item
    //! holds alone (zeros are what lost samples read as). For tests.
    void set_mark(uint64_t first, uint64_t second);
    uint64_t first_word() const { return d_first; }
    uint64_t second_word() const { return d_second; }

    //! Mark the packet slot of \p items items at \p slot as not written.
    void arm(uint8_t* slot, size_t items) const
    {
        if (d_item == 8)
            store<uint64_t>(slot, items * d_item);
        else
            store<uint32_t>(slot, items * d_item);
    }
    //! Whether the packet slot still holds the mark (the packet did not land).
    bool present(const uint8_t* slot, size_t items) const
    {
        // Fixed-size loads, not memcmp: this runs once per message.
        return d_item == 8 ? matches<uint64_t>(slot, items * d_item)
                           : matches<uint32_t>(slot, items * d_item);
    }

private:
    // The little-endian first bytes of a word: all of it, or what a short packet holds.
    template <typename word>
    static word head(uint64_t value, size_t bytes)
    {
        const word w = static_cast<word>(value);
        return bytes >= sizeof(word)
                   ? w
                   : static_cast<word>(w & ((word(1) << (8 * bytes)) - 1));
    }
    template <typename word>
    void store(uint8_t* slot, size_t bytes) const
    {
        const word first = static_cast<word>(d_first),
                   second = static_cast<word>(d_second);
        if (bytes < sizeof(word)) { // sc8, one item
            std::memcpy(slot, &first, bytes);
            return;
        }
        std::memcpy(slot, &first, sizeof(word));
        if (bytes >= 2 * sizeof(word))
            std::memcpy(slot + sizeof(word), &second, sizeof(word));
    }
    template <typename word>
    bool matches(const uint8_t* slot, size_t bytes) const
    {
        word first = 0, second;
        std::memcpy(&first, slot, std::min(bytes, sizeof(word)));
        if (first != head<word>(d_first, bytes))
            return false;
        if (bytes < 2 * sizeof(word))
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
