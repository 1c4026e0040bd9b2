/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_PARSE_NUMBER_H
#define INCLUDED_RDMA_UTIL_PARSE_NUMBER_H

#include <string_view>
#include <cstdint>
#include <optional>
#include <string>

namespace gr {
namespace rdma {

/*!
 * Strict number parsing for everything a user types (device args, command-line flags).
 * The whole text must be the number: no sign where none is allowed, no space, no
 * suffix. Unlike strtoul/stod, nothing wraps ("-1" is not 2^64-1), nothing is read in
 * octal ("010" is ten), and NaN, infinity and overflow are refused, not passed on.
 * Locale-independent (std::from_chars).
 */

//! Decimal digits, or "0x" and hex digits; nullopt for anything else or above 2^64-1.
std::optional<uint64_t> parse_uint(std::string_view text);

//! A finite decimal number: [-]digits[.digits][e[+|-]digits] (".5" and "5." too);
//! nullopt for NaN, infinity, hex floats, and magnitudes a double cannot hold.
std::optional<double> parse_double(std::string_view text);

//! A bound for an error message: integers exactly ("4294967295"), others to nine
//! significant digits ("0.001", "0.035", "1e+300").
std::string format_number(double value);

} // namespace rdma
} // namespace gr

#endif
