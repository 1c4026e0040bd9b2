/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_args.h"
#include <cmath>
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

double device_args::get_double(const std::string& key, double fallback) const
{
    const auto it = d_values.find(key);
    if (it == d_values.end())
        return fallback;
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(it->second, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != it->second.size() || !std::isfinite(v))
        bad_value(key, it->second, "a number");
    return v;
}

uint64_t device_args::get_uint(const std::string& key, uint64_t fallback) const
{
    const auto it = d_values.find(key);
    if (it == d_values.end())
        return fallback;
    size_t used = 0;
    uint64_t v = 0;
    try {
        if (!it->second.empty() && it->second[0] != '-')
            v = std::stoull(it->second, &used, 0);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != it->second.size())
        bad_value(key, it->second, "a non-negative integer");
    return v;
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

std::string device_args::to_string() const
{
    std::string out;
    for (const auto& [key, value] : d_values)
        out += (out.empty() ? "" : ",") + key + "=" + value;
    return out;
}

} // namespace rdma
} // namespace gr
