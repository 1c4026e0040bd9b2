/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_ARG_TABLE_H
#define INCLUDED_RDMA_UTIL_ARG_TABLE_H

#include <gnuradio/rdma/transport_api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

//! What a device arg's value is (how device_args reads it, how the docs state it).
enum class arg_type {
    text,    //!< free text, or a syntax of its own (addresses, share=h/H, lists of pairs)
    choice,  //!< one of arg_key::choices
    flag,    //!< 0 or 1
    integer, //!< in [min_int, max_int]
    number,  //!< a finite decimal in [min, max]
    list,    //!< integers in [min_int, max_int] separated by ':'
};

/*!
 * One device arg as the code that reads it declares it: its name, its type and static
 * range, its default and one line of doc. The table of a part of the configuration
 * (the NIC's, the ring's, the links', an emulator kind's) lists its keys next to the
 * code that reads them; the stream's known keys are the union of the tables, and
 * docs/device-args.md is checked against them (qa_arg_tables).
 *
 * A key whose range depends on other keys or on the device (grace=, payload=, freq=)
 * states it in \p range_text as the docs do ("0…latency/4"); its static range is the
 * widest the code can accept.
 */
struct RDMA_TRANSPORT_API arg_key {
    std::string name;
    arg_type type = arg_type::text;
    uint64_t min_int = 0, max_int = 0; //!< integer, list
    double min = 0, max = 0;           //!< number
    std::vector<std::string> choices;  //!< choice
    //! The default as the docs state it: the value itself ("0.5", "auto"), or empty
    //! when the key has none (absent means "not set") or a computed one.
    std::string fallback;
    std::string unit;       //!< what a number counts in, for messages ("seconds")
    std::string range_text; //!< a range that depends on others, as the docs state it
    std::string hint;       //!< follows a bad value's message after "; " (the fix)
    std::string doc;        //!< one line

    static arg_key text(std::string name, std::string doc);
    static arg_key choice(std::string name,
                          std::vector<std::string> choices,
                          std::string fallback,
                          std::string doc);
    static arg_key flag(std::string name, bool fallback, std::string doc);
    static arg_key integer(std::string name,
                           uint64_t min,
                           uint64_t max,
                           std::string fallback,
                           std::string unit,
                           std::string doc);
    static arg_key number(std::string name,
                          double min,
                          double max,
                          std::string fallback,
                          std::string unit,
                          std::string doc);
    static arg_key
    list(std::string name, uint64_t min, uint64_t max, std::string unit, std::string doc);
    //! This key with its range stated as \p text (it depends on other keys).
    arg_key depending(std::string text) &&;
    //! This key with \p text after a bad value's message.
    arg_key hinted(std::string text) &&;

    //! The range as docs/device-args.md's Values column begins ("0.001…60").
    std::string range() const;
    uint64_t fallback_int() const;  //!< integer, flag: the default parsed
    double fallback_number() const; //!< number: the default parsed
};

/*!
 * The keys of one part of the configuration. Parts are plain static objects, one per
 * area that reads keys (arg_table::part() names it for messages and the docs check).
 */
class RDMA_TRANSPORT_API arg_table
{
public:
    arg_table(std::string part, std::vector<arg_key> keys);

    const std::string& part() const { return d_part; }
    const std::vector<arg_key>& keys() const { return d_keys; }
    bool contains(const std::string& name) const;
    //! The key \p name; a name not in the table is a bug (std::logic_error).
    const arg_key& operator[](const std::string& name) const;

private:
    std::string d_part;
    std::vector<arg_key> d_keys;
};

} // namespace rdma
} // namespace gr

#endif
