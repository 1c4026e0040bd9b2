/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// type=null and nic=null: the benchmarks' stand-in, one device and one NIC that go
// together (docs/device-args.md, docs/performance.md).

#include "../device/device_kind.h"
#include "../nic/nic_registry.h"
#include "null_device.h"
#include "null_nic.h"
#include <stdexcept>

namespace gr {
namespace rdma {
namespace standin {

namespace {

class null_backend : public device_backend
{
public:
    socket_address control_address() const override { return d_device.control_address(); }

private:
    null_device d_device;
};

const device_kind_registrar null_device_kind(
    { "null",
      "benchmarks only: the zero-copy ceiling's stand-in, in this process",
      arg_table("type=null", {}),
      [](const device_args&) { return std::make_unique<null_backend>(); },
      "null",
      true });

const nic_kind_registrar null_nic_kind(
    { "null",
      "the stand-in's NIC (type=null): no network port",
      [](const nic_config& c, uint32_t) -> std::unique_ptr<nic::device> {
          if (c.address_given || !c.interface.empty() || c.port_given)
              throw std::invalid_argument("device args: nic=null has no address to choose");
          return std::make_unique<null_nic>();
      },
      "null" });

} // namespace

} // namespace standin
} // namespace rdma
} // namespace gr
