/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "nic.h"

namespace gr {
namespace rdma {
namespace nic {

bool valid_path_mtu(unsigned bytes)
{
    return bytes == 256 || bytes == 512 || bytes == 1024 || bytes == 2048 ||
           bytes == 4096;
}

const char* to_string(wc_status status)
{
    switch (status) {
    case wc_status::success:
        return "success";
    case wc_status::local_error:
        return "local error";
    case wc_status::remote_error:
        return "remote error";
    case wc_status::flushed:
        return "flushed";
    }
    return "invalid wc_status";
}

} // namespace nic
} // namespace rdma
} // namespace gr
