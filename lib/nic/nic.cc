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
