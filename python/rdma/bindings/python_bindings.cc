/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// Headers for binding functions
/**************************************/
// The following comment block is used for
// gr_modtool to insert function prototypes
// Please do not delete
/**************************************/
// BINDING_FUNCTION_PROTOTYPES(
void bind_cpu_accounting(py::module& m);
void bind_radio_block(py::module& m);
void bind_device(py::module& m);
void bind_ramp_check(py::module& m);
void bind_rx_source(py::module& m);
void bind_rx_stream(py::module& m);
void bind_tx_sink(py::module& m);
void bind_tx_stream(py::module& m);
void bind_sdr(py::module& m);
void bind_sigmf_sink(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES


// We need this hack because import_array() returns NULL
// for newer Python versions.
// This function is also necessary because it ensures access to the C API
// and removes a warning.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(rdma_python, m)
{
    // Initialize the numpy C API
    // (otherwise we will see segmentation faults)
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");

    /**************************************/
    // The following comment block is used for
    // gr_modtool to insert binding function calls
    // Please do not delete
    /**************************************/
    // BINDING_FUNCTION_CALLS(
    bind_cpu_accounting(m);
    bind_sdr(m);         // device and rx_source return its types
    bind_radio_block(m); // the base of device and rx_source
    bind_device(m);
    bind_ramp_check(m);
    bind_rx_source(m);
    bind_rx_stream(m);
    bind_sigmf_sink(m);
    bind_tx_sink(m);
    bind_tx_stream(m);
    // ) END BINDING_FUNCTION_CALLS
}
