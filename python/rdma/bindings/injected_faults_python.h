/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared by rx_stream and rx_source: both report the emulator's fault table the same way.

#ifndef INCLUDED_RDMA_INJECTED_FAULTS_PYTHON_H
#define INCLUDED_RDMA_INJECTED_FAULTS_PYTHON_H

#include <gnuradio/rdma/rx_stream.h>
#include <pybind11/pybind11.h>
#include <vector>

//! Reads the faults with the GIL released (an AXIoE round trip per entry), then returns
//! them as a list of dicts {message, first_sample, samples, kind}.
inline pybind11::list
injected_faults_as_dicts(const std::vector<gr::rdma::rx_stream::injected_fault>& faults)
{
    pybind11::list out;
    for (const auto& f : faults) {
        pybind11::dict d;
        d["message"] = f.message;
        d["first_sample"] = f.first_sample;
        d["samples"] = f.samples;
        d["kind"] = f.kind;
        out.append(d);
    }
    return out;
}

template <typename reader>
pybind11::list read_injected_faults_as_dicts(reader& r)
{
    std::vector<gr::rdma::rx_stream::injected_fault> faults;
    {
        pybind11::gil_scoped_release release;
        faults = r.read_injected_faults();
    }
    return injected_faults_as_dicts(faults);
}

#endif
