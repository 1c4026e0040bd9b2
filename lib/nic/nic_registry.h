/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_NIC_REGISTRY_H
#define INCLUDED_RDMA_NIC_NIC_REGISTRY_H

#include "../util/device_args.h"
#include "nic.h"
#include <gnuradio/rdma/transport_api.h>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

//! Which NIC a stream receives on (device args nic=, nic_addr=, nic_if=, nic_port=;
//! docs/device-args.md), parsed and checked once.
struct nic_config {
    std::string kind;          //!< nic=
    uint32_t ip = 0;           //!< nic_addr= (0: the default the stream computes)
    std::string interface;     //!< nic_if=
    uint16_t port = 0;         //!< nic_port= (0: any)
    bool port_given = false;   //!< nic_port= was given
    bool address_given = false; //!< nic_addr= was given

    //! \p default_kind: what the device goes with when nic= is absent.
    static nic_config from_args(const device_args& args, const std::string& default_kind);
    static const arg_table& keys();
};

/*!
 * A kind of NIC, by the name of device arg nic=: each registers itself from its own
 * area (the soft NIC and verbs here in nic_kinds.cc, the stand-in from lib/standin), so
 * that the code that opens NICs includes none of them.
 */
struct nic_kind {
    std::string name;
    std::string description;
    //! Open it for \p config; \p default_ip: the address to receive on when nic_addr=
    //! is not given. Throws std::invalid_argument naming the key for a wrong choice.
    std::function<std::unique_ptr<nic::device>(const nic_config& config, uint32_t default_ip)>
        open;
    //! Whether it goes only with the device kind of this name (empty: any).
    std::string only_with;
};

RDMA_TRANSPORT_API void add_nic_kind(nic_kind kind);
const nic_kind* find_nic_kind(const std::string& name);
std::vector<std::string> nic_kind_names();

struct nic_kind_registrar {
    explicit nic_kind_registrar(nic_kind kind) { add_nic_kind(std::move(kind)); }
};

//! The NIC \p config asks for, for a device of kind \p device_kind.
std::unique_ptr<nic::device>
open_nic(const nic_config& config, const std::string& device_kind, uint32_t default_ip);

} // namespace rdma
} // namespace gr

#endif
