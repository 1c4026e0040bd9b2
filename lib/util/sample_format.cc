/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/rdma/sample_format.h>
#include <stdexcept>

namespace gr {
namespace rdma {

sample_format parse_sample_format(const std::string& name)
{
    if (name == "sc16")
        return sample_format::sc16;
    if (name == "fc32")
        return sample_format::fc32;
    throw std::invalid_argument(
        "unknown sample format '" + name +
        "': use \"sc16\" (complex int16) or \"fc32\" (complex float)");
}

const char* to_string(sample_format f)
{
    return f == sample_format::sc16 ? "sc16" : "fc32";
}

} // namespace rdma
} // namespace gr
