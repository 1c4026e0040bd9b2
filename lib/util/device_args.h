/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_DEVICE_ARGS_H
#define INCLUDED_RDMA_UTIL_DEVICE_ARGS_H

#include "arg_table.h"
#include "socket_address.h"
#include <gnuradio/rdma/transport_api.h>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * A UHD-style device address: "key=value,key=value". Keys are documented in
 * docs/device-args.md. Every getter validates and throws std::invalid_argument with a
 * message that names the key, the bad value and what is accepted, in one shape:
 *
 *   device args: stream=4294967296 is invalid: expected an integer 0..15
 *
 * Numbers are parsed strictly (lib/util/parse_number.h): no wrap, no NaN or infinity,
 * no trailing text, and every numeric getter takes the key's valid range, so no caller
 * can cast an unchecked value.
 */
class RDMA_TRANSPORT_API device_args
{
public:
    device_args() = default;
    //! Parse; throws on a pair without '=', an empty key or a repeated key.
    static device_args parse(const std::string& text);

    bool has(const std::string& key) const { return d_values.count(key) != 0; }
    std::string get(const std::string& key, const std::string& fallback) const;
    /*!
     * An integer (decimal, or hex with 0x) in [\p min, \p max]; \p fallback when absent.
     * \p unit names what it counts in the message ("bytes", "a UDP port"); \p hint,
     * when given, follows it after "; " (what the bounds mean, or the fix).
     */
    uint64_t get_uint(const std::string& key,
                      uint64_t fallback,
                      uint64_t min,
                      uint64_t max,
                      const std::string& unit = "an integer",
                      const std::string& hint = "") const;
    //! A finite decimal number in [\p min, \p max]; as get_uint() otherwise.
    double get_double(const std::string& key,
                      double fallback,
                      double min,
                      double max,
                      const std::string& unit = "a number",
                      const std::string& hint = "") const;
    //! 0 or 1.
    bool get_flag(const std::string& key, bool fallback) const;
    //! Integers in [\p min, \p max] separated by ':' ("3:17:200"); empty when absent.
    std::vector<uint64_t> get_uint_list(const std::string& key,
                                        uint64_t min,
                                        uint64_t max,
                                        const std::string& unit) const;
    //! An IPv4 address, "a.b.c.d[:port]" (\p default_port when none is given).
    socket_address get_address(const std::string& key,
                               const std::string& fallback,
                               uint16_t default_port) const;
    /*!
     * As get_address(), but the host may be a name ("addr=localhost", "addr=sdr1:50100"),
     * resolved to IPv4 (socket_address::resolve()); a name that does not resolve is an
     * error naming the key and the name.
     */
    socket_address get_host_address(const std::string& key,
                                    const std::string& fallback,
                                    uint16_t default_port) const;
    //! \p key must hold one of \p choices (or be absent: \p fallback).
    std::string get_choice(const std::string& key,
                           const std::set<std::string>& choices,
                           const std::string& fallback) const;

    //! Throw if a key is not in \p known, listing the known keys (catches typos).
    void check_known(const std::set<std::string>& known) const;

    /*!
     * The same getters for a key of a part's table (arg_table.h): its range, unit,
     * hint and default are the table's, so that the code, the error messages and the
     * docs (checked against the tables) state one range. The overloads with a
     * fallback, bounds or a hint are for keys whose default or range depends on other
     * keys or on the device.
     */
    bool has(const arg_key& key) const { return has(key.name); }
    uint64_t get_uint(const arg_key& key) const;
    uint64_t get_uint(const arg_key& key, uint64_t fallback) const;
    uint64_t get_uint(const arg_key& key,
                      uint64_t fallback,
                      uint64_t min,
                      uint64_t max,
                      const std::string& hint) const;
    double get_double(const arg_key& key) const;
    double get_double(const arg_key& key, double fallback) const;
    double get_double(const arg_key& key,
                      double fallback,
                      double min,
                      double max,
                      const std::string& hint) const;
    bool get_flag(const arg_key& key) const;
    std::string get_choice(const arg_key& key) const;
    std::string get_choice(const arg_key& key, const std::string& fallback) const;
    std::vector<uint64_t> get_uint_list(const arg_key& key) const;

    /*!
     * The one shape of a bad value, for a check made once the key's range is known
     * (a range that depends on the device): "device args: <key>=<value> is invalid:
     * expected <expected>".
     */
    [[noreturn]] static void
    refuse(const std::string& key, const std::string& value, const std::string& expected);

    std::string to_string() const;
    //! These args with \p key set to \p value (added, or replacing what was there).
    device_args with(const std::string& key, const std::string& value) const;

private:
    std::map<std::string, std::string> d_values;
};

} // namespace rdma
} // namespace gr

#endif
