/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/named_registry.h"
#include "device_kind.h"

namespace gr {
namespace rdma {

void add_device_kind(device_kind kind)
{
    const std::string name = kind.name;
    named_registry<device_kind>::instance().add(name, std::move(kind));
}

const device_kind* find_device_kind(const std::string& name)
{
    return named_registry<device_kind>::instance().find(name);
}

std::vector<std::string> device_kind_names()
{
    return named_registry<device_kind>::instance().names();
}

} // namespace rdma
} // namespace gr
