/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "parse_number.h"
#include <charconv>
#include <cmath>

namespace gr {
namespace rdma {

std::optional<uint64_t> parse_uint(std::string_view text)
{
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    }
    // from_chars takes no sign for an unsigned type and reports overflow instead of
    // wrapping, so only what it left unread needs checking.
    uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
    if (text.empty() || ec != std::errc() || ptr != end)
        return std::nullopt;
    return value;
}

std::optional<double> parse_double(std::string_view text)
{
    // chars_format::general reads neither hex nor a leading '+' or space; it does read
    // "nan" and "inf", which are refused below with the other non-finite results.
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] =
        std::from_chars(text.data(), end, value, std::chars_format::general);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::string format_number(double value)
{
    if (std::nearbyint(value) == value && std::fabs(value) < 1e16) {
        char buf[32];
        const auto [ptr, ec] =
            std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(value));
        return std::string(buf, ec == std::errc() ? ptr : buf);
    }
    // Nine digits: a bound computed as 0.03 + 0.005 reads 0.035, not
    // 0.034999999999999996.
    char buf[64];
    const auto [ptr, ec] =
        std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::general, 9);
    return std::string(buf, ec == std::errc() ? ptr : buf);
}

} // namespace rdma
} // namespace gr
