/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "app_flags.h"
#include "util/parse_number.h"

namespace gr {
namespace rdma {
namespace app {

void bad_flag(const std::string& flag,
              const std::string& value,
              const std::string& expected)
{
    throw usage_error(flag + " " + value + " is invalid: expected " + expected);
}

uint16_t parse_port(const std::string& flag, const std::string& value)
{
    const auto n = parse_uint(value);
    if (!n || *n < 1 || *n > 65535)
        bad_flag(flag, value, "a UDP port 1..65535");
    return static_cast<uint16_t>(*n);
}

socket_address parse_device_address(const std::string& flag,
                                    const std::string& value,
                                    uint16_t default_port)
{
    socket_address a;
    try {
        a = socket_address::parse(value, default_port);
    } catch (const std::invalid_argument&) {
        bad_flag(flag, value, "an IPv4 address a.b.c.d or a.b.c.d:port, port 1..65535");
    }
    if (a.port() == 0)
        bad_flag(flag, value, "a UDP port 1..65535 after the address");
    if (a.ip() == 0)
        bad_flag(flag, value, "a device's address, not 0.0.0.0");
    return a;
}

double parse_seconds(const std::string& flag,
                     const std::string& value,
                     double min_s,
                     double max_s)
{
    const auto s = parse_double(value);
    if (!s || *s < min_s || *s > max_s)
        bad_flag(
            flag, value, "seconds " + format_number(min_s) + ".." + format_number(max_s));
    return *s;
}

bool flag_reader::next(std::string& flag)
{
    if (++d_i >= d_argc)
        return false;
    flag = d_argv[d_i];
    return true;
}

std::string flag_reader::value_of(const std::string& flag)
{
    if (d_i + 1 >= d_argc)
        throw usage_error(flag + " needs a value");
    return d_argv[++d_i];
}

} // namespace app
} // namespace rdma
} // namespace gr
