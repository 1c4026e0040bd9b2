/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "parse_number.h"
#include "device_args.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

std::string trim(const std::string& s)
{
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos)
        return "";
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

[[noreturn]] void
bad_value(const std::string& key, const std::string& value, const std::string& expected)
{
    throw std::invalid_argument("device args: " + key + "=" + value +
                                " is invalid: expected " + expected);
}

} // namespace

device_args device_args::parse(const std::string& text)
{
    device_args args;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string pair = trim(text.substr(
            start, comma == std::string::npos ? std::string::npos : comma - start));
        start = comma == std::string::npos ? text.size() + 1 : comma + 1;
        if (pair.empty())
            continue;
        const size_t eq = pair.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument(
                "device args: '" + pair +
                "' is not key=value; write pairs separated by commas, "
                "e.g. \"type=emu,signal=ramp\"");
        const std::string key = trim(pair.substr(0, eq));
        const std::string value = trim(pair.substr(eq + 1));
        if (key.empty())
            throw std::invalid_argument("device args: '" + pair + "' has an empty key");
        // No key means "nothing" by an empty value: `nic_if=` left to its default would
        // hide a typo or an unset shell variable.
        if (value.empty())
            bad_value(key, "", "a value (docs/device-args.md); leave the key out for its "
                               "default");
        if (!args.d_values.emplace(key, value).second)
            throw std::invalid_argument("device args: key '" + key + "' is given twice");
    }
    return args;
}

std::string device_args::get(const std::string& key, const std::string& fallback) const
{
    const auto it = d_values.find(key);
    return it == d_values.end() ? fallback : it->second;
}

uint64_t device_args::get_uint(const std::string& key,
                               uint64_t fallback,
                               uint64_t min,
                               uint64_t max,
                               const std::string& unit,
                               const std::string& hint) const
{
    const auto it = d_values.find(key);
    if (it == d_values.end())
        return fallback;
    const auto v = parse_uint(it->second);
    if (!v || *v < min || *v > max)
        bad_value(key,
                  it->second,
                  unit + " " + std::to_string(min) + ".." + std::to_string(max) +
                      (hint.empty() ? "" : "; " + hint));
    return *v;
}

double device_args::get_double(const std::string& key,
                               double fallback,
                               double min,
                               double max,
                               const std::string& unit,
                               const std::string& hint) const
{
    const auto it = d_values.find(key);
    if (it == d_values.end())
        return fallback;
    const auto v = parse_double(it->second);
    if (!v || *v < min || *v > max)
        bad_value(key,
                  it->second,
                  unit + " " + format_number(min) + ".." + format_number(max) +
                      (hint.empty() ? "" : "; " + hint));
    return *v;
}

bool device_args::get_flag(const std::string& key, bool fallback) const
{
    const std::string v = get(key, fallback ? "1" : "0");
    if (v != "0" && v != "1")
        bad_value(key, v, "0 (off) or 1 (on)");
    return v == "1";
}

std::vector<uint64_t> device_args::get_uint_list(const std::string& key,
                                                 uint64_t min,
                                                 uint64_t max,
                                                 const std::string& unit) const
{
    std::vector<uint64_t> out;
    const auto it = d_values.find(key);
    if (it == d_values.end())
        return out;
    const std::string& list = it->second;
    // An empty item ("3::4", "3:", or the key given empty) is a typo, not "none".
    for (size_t at = 0; at <= list.size();) {
        const size_t colon = std::min(list.find(':', at), list.size());
        const auto v = parse_uint(std::string_view(list).substr(at, colon - at));
        if (!v || *v < min || *v > max)
            bad_value(key,
                      list,
                      unit + " " + std::to_string(min) + ".." + std::to_string(max) +
                          " separated by ':', e.g. " + key + "=3:17:200");
        out.push_back(*v);
        at = colon + 1;
    }
    return out;
}

socket_address device_args::get_address(const std::string& key,
                                        const std::string& fallback,
                                        uint16_t default_port) const
{
    const std::string v = get(key, fallback);
    try {
        return socket_address::parse(v, default_port);
    } catch (const std::invalid_argument&) {
        bad_value(key, v, "an IPv4 address a.b.c.d or a.b.c.d:port, port 0..65535");
    }
}

socket_address device_args::get_host_address(const std::string& key,
                                             const std::string& fallback,
                                             uint16_t default_port) const
{
    const std::string v = get(key, fallback);
    try {
        return socket_address::resolve(v, default_port);
    } catch (const std::invalid_argument& e) {
        const std::string why = e.what();
        if (why.rfind("host name", 0) == 0) // the one shape, with the name's failure
            throw std::invalid_argument("device args: " + key + "=" + v +
                                        " is invalid: " + why +
                                        "; expected an IPv4 address a.b.c.d or a host "
                                        "name that resolves, optionally :port");
        bad_value(key,
                  v,
                  "an IPv4 address a.b.c.d or a host name, optionally :port, port "
                  "0..65535");
    }
}

std::string device_args::get_choice(const std::string& key,
                                    const std::set<std::string>& choices,
                                    const std::string& fallback) const
{
    const std::string v = get(key, fallback);
    if (choices.count(v))
        return v;
    std::string list;
    for (const auto& c : choices)
        list += (list.empty() ? "" : "|") + c;
    bad_value(key, v, "one of " + list);
}

void device_args::check_known(const std::set<std::string>& known) const
{
    for (const auto& [key, value] : d_values) {
        if (known.count(key))
            continue;
        std::string list;
        for (const auto& k : known)
            list += (list.empty() ? "" : ", ") + k;
        throw std::invalid_argument("device args: unknown key '" + key +
                                    "' (known keys: " + list +
                                    "; see docs/device-args.md)");
    }
}

namespace {

std::string unit_of(const arg_key& key, const char* fallback)
{
    return key.unit.empty() ? fallback : key.unit;
}

} // namespace

uint64_t device_args::get_uint(const arg_key& key) const
{
    return get_uint(key, key.fallback.empty() ? 0 : key.fallback_int());
}

uint64_t device_args::get_uint(const arg_key& key, uint64_t fallback) const
{
    return get_uint(key, fallback, key.min_int, key.max_int, key.hint);
}

uint64_t device_args::get_uint(const arg_key& key,
                               uint64_t fallback,
                               uint64_t min,
                               uint64_t max,
                               const std::string& hint) const
{
    return get_uint(key.name, fallback, min, max, unit_of(key, "an integer"), hint);
}

double device_args::get_double(const arg_key& key) const
{
    return get_double(key, key.fallback.empty() ? 0 : key.fallback_number());
}

double device_args::get_double(const arg_key& key, double fallback) const
{
    return get_double(key, fallback, key.min, key.max, key.hint);
}

double device_args::get_double(const arg_key& key,
                               double fallback,
                               double min,
                               double max,
                               const std::string& hint) const
{
    return get_double(key.name, fallback, min, max, unit_of(key, "a number"), hint);
}

bool device_args::get_flag(const arg_key& key) const
{
    return get_flag(key.name, key.fallback == "1");
}

std::string device_args::get_choice(const arg_key& key) const
{
    return get_choice(key, key.fallback);
}

std::string device_args::get_choice(const arg_key& key, const std::string& fallback) const
{
    return get_choice(key.name,
                      std::set<std::string>(key.choices.begin(), key.choices.end()),
                      fallback);
}

std::vector<uint64_t> device_args::get_uint_list(const arg_key& key) const
{
    return get_uint_list(key.name, key.min_int, key.max_int, unit_of(key, "integers"));
}

void device_args::refuse(const std::string& key,
                         const std::string& value,
                         const std::string& expected)
{
    bad_value(key, value, expected);
}

device_args device_args::with(const std::string& key, const std::string& value) const
{
    device_args out = *this;
    out.d_values[key] = value;
    return out;
}

std::string device_args::to_string() const
{
    std::string out;
    for (const auto& [key, value] : d_values)
        out += (out.empty() ? "" : ",") + key + "=" + value;
    return out;
}

} // namespace rdma
} // namespace gr
