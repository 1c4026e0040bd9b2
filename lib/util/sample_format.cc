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
    if (name == "sc8")
        return sample_format::sc8;
    throw std::invalid_argument("unknown sample format '" + name +
                                "': use \"sc16\" (complex int16), \"fc32\" (complex "
                                "float) or \"sc8\" (complex int8)");
}

const char* to_string(sample_format f)
{
    switch (f) {
    case sample_format::sc16:
        return "sc16";
    case sample_format::sc8:
        return "sc8";
    case sample_format::fc32:
        break;
    }
    return "fc32";
}

} // namespace rdma
} // namespace gr
