/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "json_writer.h"
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace gr {
namespace rdma {

namespace {

// The UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF): its length, and whether it is well formed. A sequence that is not ends
// before the first byte that cannot continue it (Unicode's "maximal subpart", as
// Python's decoder replaces): one U+FFFD each.
std::pair<size_t, bool> utf8_sequence(const std::string& s, size_t i)
{
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; // the range of the second byte
    if (c < 0x80)
        return { 1, true };
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : lo;
        hi = c == 0xED ? 0x9F : hi;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : lo;
        hi = c == 0xF4 ? 0x8F : hi;
    } else
        return { 1, false };
    for (size_t k = 1; k < n; k++) {
        const bool fits = i + k < s.size() && byte(i + k) >= (k == 1 ? lo : 0x80) &&
                          byte(i + k) <= (k == 1 ? hi : 0xBF);
        if (!fits)
            return { k, false };
    }
    return { n, true };
}

} // namespace

std::string json_writer::quote(const std::string& text)
{
    std::string out = "\"";
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                const auto [n, valid] = utf8_sequence(text, i);
                if (valid)
                    out.append(text, i, n);
                else
                    out += "\xEF\xBF\xBD"; // U+FFFD for bytes that are not UTF-8
                i += n;
                continue;
            }
        }
        i++;
    }
    return out + "\"";
}

std::string json_writer::number(double x)
{
    if (!std::isfinite(x))
        return "null";
    char buf[64];
    // Whole numbers as Python writes them (1000000.0): a float to a reader, and legible.
    if (x == std::trunc(x) && std::fabs(x) < 1e16) {
        std::snprintf(buf, sizeof buf, "%.1f", x);
        return buf;
    }
    // The shortest text that reads back as the same double.
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

void json_writer::before_value()
{
    if (d_after_key) {
        d_after_key = false;
        return;
    }
    if (d_nonempty.empty())
        return;
    if (d_nonempty.back())
        d_out += ',';
    d_nonempty.back() = true;
    d_out += '\n';
    d_out.append(d_nonempty.size(), ' ');
}

void json_writer::close(char bracket)
{
    const bool nonempty = d_nonempty.back();
    d_nonempty.pop_back();
    if (nonempty) {
        d_out += '\n';
        d_out.append(d_nonempty.size(), ' ');
    }
    d_out += bracket;
}

void json_writer::begin_object()
{
    before_value();
    d_out += '{';
    d_nonempty.push_back(false);
}

void json_writer::end_object() { close('}'); }

void json_writer::begin_array()
{
    before_value();
    d_out += '[';
    d_nonempty.push_back(false);
}

void json_writer::end_array() { close(']'); }

void json_writer::key(const std::string& name)
{
    before_value();
    d_out += quote(name);
    d_out += ": ";
    d_after_key = true;
}

void json_writer::value(const std::string& text)
{
    before_value();
    d_out += quote(text);
}

void json_writer::value(double x)
{
    before_value();
    d_out += number(x);
}

void json_writer::value(uint64_t x)
{
    before_value();
    d_out += std::to_string(x);
}

void json_writer::value(int64_t x)
{
    before_value();
    d_out += std::to_string(x);
}

void json_writer::value(bool flag)
{
    before_value();
    d_out += flag ? "true" : "false";
}

void json_writer::null()
{
    before_value();
    d_out += "null";
}

} // namespace rdma
} // namespace gr
