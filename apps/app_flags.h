/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_APP_FLAGS_H
#define INCLUDED_RDMA_APPS_APP_FLAGS_H

#include "util/socket_address.h"
#include <cstdint>
#include <stdexcept>
#include <string>

/*
 * Command-line flags of gr-rdma-find and gr-rdma-probe. A command line that cannot
 * work is a usage_error: one line naming the flag, the bad value and what is valid;
 * the tool exits 2, as argparse does.
 */

namespace gr {
namespace rdma {
namespace app {

constexpr int exit_found = 0, exit_none = 1, exit_usage = 2;

struct usage_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

[[noreturn]] void
bad_flag(const std::string& flag, const std::string& value, const std::string& expected);

//! A UDP port 1..65535.
uint16_t parse_port(const std::string& flag, const std::string& value);
//! A device's AXIoE address, "a.b.c.d" (\p default_port) or "a.b.c.d:port"; port
//! 1..65535 and not the unspecified address 0.0.0.0.
socket_address parse_device_address(const std::string& flag,
                                    const std::string& value,
                                    uint16_t default_port);
//! Seconds in [min_s, max_s].
double parse_seconds(const std::string& flag,
                     const std::string& value,
                     double min_s,
                     double max_s);

//! Walks argv: each flag, and the value that follows it.
class flag_reader
{
public:
    flag_reader(int argc, char** argv) : d_argc(argc), d_argv(argv) {}
    //! The next argument, or false at the end.
    bool next(std::string& flag);
    //! The value of \p flag: the next argument; usage_error when there is none.
    std::string value_of(const std::string& flag);

private:
    int d_argc;
    char** d_argv;
    int d_i = 0;
};

} // namespace app
} // namespace rdma
} // namespace gr

#endif
