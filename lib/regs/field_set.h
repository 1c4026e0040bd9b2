/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_FIELD_SET_H
#define INCLUDED_RDMA_REGS_FIELD_SET_H

#include "register_table.h"
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

/*
 * Packing a struct into the words of its register block and back, driven by the
 * register table: each field names its register, and the table gives its offset, its
 * width and its word order. register_fields.h and link_fields.h say which struct
 * member each register holds.
 */

namespace gr {
namespace rdma {
namespace regs {

//! One member of \p S and the register that holds it.
template <class S>
struct field {
    const register_info* reg;
    uint64_t (*get)(const S&);
    void (*set)(S&, uint64_t);
};

/*!
 * The fields of a struct \p S: packs it into the words of its block and back. A 64-bit
 * register is two words, low first; words no field names are left alone.
 */
template <class S>
class field_set
{
public:
    template <size_t N>
    constexpr field_set(const field<S> (&fields)[N]) : d_begin(fields), d_end(fields + N)
    {
    }

    //! Words [first, first + 4 * count) of the block from \p s, for every field that
    //! lies inside; a field cut by the range is a programming error (logic_error).
    void pack(const S& s, uint32_t first, uint32_t* words, size_t count) const
    {
        for (const field<S>* f = d_begin; f != d_end; ++f) {
            if (!inside(*f->reg, first, count))
                continue;
            const uint64_t v = f->get(s);
            const size_t i = (f->reg->offset - first) / 4;
            words[i] = static_cast<uint32_t>(v);
            if (f->reg->bits == 64)
                words[i + 1] = static_cast<uint32_t>(v >> 32);
        }
    }

    //! The fields of \p s that lie inside words [first, first + 4 * count).
    void unpack(const uint32_t* words, uint32_t first, size_t count, S& s) const
    {
        for (const field<S>* f = d_begin; f != d_end; ++f) {
            if (!inside(*f->reg, first, count))
                continue;
            const size_t i = (f->reg->offset - first) / 4;
            uint64_t v = words[i];
            if (f->reg->bits == 64)
                v |= uint64_t(words[i + 1]) << 32;
            f->set(s, v);
        }
    }

    //! The word at block offset \p offset of \p s; false if no field holds it.
    bool read_word(const S& s, uint32_t offset, uint32_t& value) const
    {
        for (const field<S>* f = d_begin; f != d_end; ++f) {
            if (offset < f->reg->offset || offset >= f->reg->end())
                continue;
            const uint64_t v = f->get(s);
            value = static_cast<uint32_t>(offset == f->reg->offset ? v : v >> 32);
            return true;
        }
        return false;
    }

    constexpr const field<S>* begin() const { return d_begin; }
    constexpr const field<S>* end() const { return d_end; }

private:
    static bool inside(const register_info& r, uint32_t first, size_t count)
    {
        const uint64_t last = first + 4 * uint64_t(count);
        if (r.end() <= first || r.offset >= last)
            return false;
        if (r.offset < first || r.end() > last)
            throw std::logic_error(std::string("register range cuts ") + r.name);
        return true;
    }

    const field<S>* d_begin;
    const field<S>* d_end;
};

namespace detail {
template <auto Member>
struct member_access;

template <class S, class V, V S::*Member>
struct member_access<Member> {
    using owner = S;
    static uint64_t get(const S& s) { return static_cast<uint64_t>(s.*Member); }
    static void set(S& s, uint64_t v) { s.*Member = static_cast<V>(v); }
};

//! A field for plain member \p Member held by the register named \p name.
template <auto Member>
constexpr field<typename member_access<Member>::owner> member(const char* name)
{
    return { &named(name), &member_access<Member>::get, &member_access<Member>::set };
}

} // namespace detail

//! The first and one-past-the-last block offset of \p fields' registers.
template <class S>
constexpr std::pair<uint32_t, uint32_t> span_of(const field_set<S>& fields)
{
    uint32_t first = UINT32_MAX, end = 0;
    for (const field<S>& f : fields) {
        first = f.reg->offset < first ? f.reg->offset : first;
        end = f.reg->end() > end ? f.reg->end() : end;
    }
    return { first, end };
}

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
