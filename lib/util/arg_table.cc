/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "arg_table.h"
#include "parse_number.h"
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

// As the docs write a bound: "1e-6", not format_number's "1e-06".
std::string doc_number(double value)
{
    std::string s = format_number(value);
    const size_t e = s.find('e');
    if (e == std::string::npos)
        return s;
    size_t digits = e + 1;
    if (digits < s.size() && (s[digits] == '-' || s[digits] == '+'))
        digits++;
    while (digits + 1 < s.size() && s[digits] == '0')
        s.erase(digits, 1);
    if (s[e + 1] == '+')
        s.erase(e + 1, 1);
    return s;
}

} // namespace

arg_key arg_key::text(std::string name, std::string doc)
{
    arg_key k;
    k.name = std::move(name);
    k.doc = std::move(doc);
    return k;
}

arg_key arg_key::choice(std::string name,
                        std::vector<std::string> choices,
                        std::string fallback,
                        std::string doc)
{
    arg_key k = text(std::move(name), std::move(doc));
    k.type = arg_type::choice;
    k.choices = std::move(choices);
    k.fallback = std::move(fallback);
    return k;
}

arg_key arg_key::flag(std::string name, bool fallback, std::string doc)
{
    arg_key k = text(std::move(name), std::move(doc));
    k.type = arg_type::flag;
    k.max_int = 1;
    k.fallback = fallback ? "1" : "0";
    return k;
}

arg_key arg_key::integer(std::string name,
                         uint64_t min,
                         uint64_t max,
                         std::string fallback,
                         std::string unit,
                         std::string doc)
{
    arg_key k = text(std::move(name), std::move(doc));
    k.type = arg_type::integer;
    k.min_int = min;
    k.max_int = max;
    k.fallback = std::move(fallback);
    k.unit = std::move(unit);
    return k;
}

arg_key arg_key::number(std::string name,
                        double min,
                        double max,
                        std::string fallback,
                        std::string unit,
                        std::string doc)
{
    arg_key k = text(std::move(name), std::move(doc));
    k.type = arg_type::number;
    k.min = min;
    k.max = max;
    k.fallback = std::move(fallback);
    k.unit = std::move(unit);
    return k;
}

arg_key arg_key::list(
    std::string name, uint64_t min, uint64_t max, std::string unit, std::string doc)
{
    arg_key k = text(std::move(name), std::move(doc));
    k.type = arg_type::list;
    k.min_int = min;
    k.max_int = max;
    k.unit = std::move(unit);
    return k;
}

arg_key arg_key::depending(std::string range) &&
{
    range_text = std::move(range);
    return std::move(*this);
}

arg_key arg_key::hinted(std::string text) &&
{
    hint = std::move(text);
    return std::move(*this);
}

std::string arg_key::range() const
{
    if (!range_text.empty())
        return range_text;
    switch (type) {
    case arg_type::flag:
        return "0, 1";
    case arg_type::integer:
    case arg_type::list:
        return std::to_string(min_int) + "…" + std::to_string(max_int);
    case arg_type::number:
        return doc_number(min) + "…" + doc_number(max);
    case arg_type::choice: {
        std::string out;
        for (const auto& c : choices)
            out += (out.empty() ? "" : ", ") + c;
        return out;
    }
    case arg_type::text:
        break;
    }
    return "";
}

uint64_t arg_key::fallback_int() const
{
    const auto v = parse_uint(fallback);
    if (!v)
        throw std::logic_error("arg_key " + name + ": default '" + fallback +
                               "' is not an integer");
    return *v;
}

double arg_key::fallback_number() const
{
    const auto v = parse_double(fallback);
    if (!v)
        throw std::logic_error("arg_key " + name + ": default '" + fallback +
                               "' is not a number");
    return *v;
}

arg_table::arg_table(std::string part, std::vector<arg_key> keys)
    : d_part(std::move(part)), d_keys(std::move(keys))
{
}

bool arg_table::contains(const std::string& name) const
{
    for (const auto& k : d_keys)
        if (k.name == name)
            return true;
    return false;
}

const arg_key& arg_table::operator[](const std::string& name) const
{
    for (const auto& k : d_keys)
        if (k.name == name)
            return k;
    throw std::logic_error("arg_table " + d_part + " has no key " + name);
}

} // namespace rdma
} // namespace gr
