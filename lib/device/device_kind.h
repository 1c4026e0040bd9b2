/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_DEVICE_KIND_H
#define INCLUDED_RDMA_DEVICE_DEVICE_KIND_H

#include "../util/arg_table.h"
#include "../util/device_args.h"
#include "../util/socket_address.h"
#include <gnuradio/rdma/transport_api.h>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * What plays a device inside this process (the emulator, the benchmarks' stand-in):
 * it answers AXIoE at control_address() for as long as it lives. A remote device has
 * none: the host only talks to it.
 */
class device_backend
{
public:
    virtual ~device_backend() = default;
    virtual socket_address control_address() const = 0;
};

/*!
 * A kind of device, by the name of device arg type= (UHD's device registry, as a
 * table): each kind registers itself from its own area, so that the code that opens
 * devices includes none of them (the stream engine does not know the emulator).
 */
struct device_kind {
    std::string name;        //!< type=<name>
    std::string description; //!< one line, for errors and --help
    //! Device args this kind reads (beyond the common ones, shared_device::keys()):
    //! its own part of the configuration, registered with the kind.
    arg_table keys{ "", {} };
    //! Whether the device runs in this process (then identity is the args, not an
    //! address): start it. Null for a remote kind, which needs addr=.
    std::function<std::unique_ptr<device_backend>(const device_args&)> start;
    //! The NIC kind this device goes with when nic= is not given (empty: the default).
    std::string default_nic;
    //! Whether that NIC is the only one it can go with.
    bool nic_fixed = false;
};

//! Register \p kind (at static initialisation of the area that implements it).
RDMA_TRANSPORT_API void add_device_kind(device_kind kind);
//! The kind named \p name; nullptr when there is none.
const device_kind* find_device_kind(const std::string& name);
std::vector<std::string> device_kind_names();

//! Registers a kind at static initialisation: one of these in the kind's own .cc.
struct device_kind_registrar {
    explicit device_kind_registrar(device_kind kind) { add_device_kind(std::move(kind)); }
};

} // namespace rdma
} // namespace gr

#endif
