/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_DEVICE_ARGS_H
#define INCLUDED_RDMA_STREAM_DEVICE_ARGS_H

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace gr {
namespace rdma {

/*!
 * A UHD-style device address: "key=value,key=value". Keys are documented in
 * docs/device-args.md. Every getter validates and throws std::invalid_argument with a
 * message that names the key, the bad value and what is accepted.
 */
class device_args
{
public:
    device_args() = default;
    //! Parse; throws on a pair without '=', an empty key or a repeated key.
    static device_args parse(const std::string& text);

    bool has(const std::string& key) const { return d_values.count(key) != 0; }
    std::string get(const std::string& key, const std::string& fallback) const;
    double get_double(const std::string& key, double fallback) const;
    uint64_t get_uint(const std::string& key, uint64_t fallback) const;
    //! \p key must hold one of \p choices (or be absent: \p fallback).
    std::string get_choice(const std::string& key,
                           const std::set<std::string>& choices,
                           const std::string& fallback) const;

    //! Throw if a key is not in \p known, listing the known keys (catches typos).
    void check_known(const std::set<std::string>& known) const;

    std::string to_string() const;

private:
    std::map<std::string, std::string> d_values;
};

} // namespace rdma
} // namespace gr

#endif
