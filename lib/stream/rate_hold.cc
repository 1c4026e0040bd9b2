/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "rate_hold.h"
#include "../regs/ctrl_registers.h"

namespace gr {
namespace rdma {

rate_hold::change rate_hold::feed(uint32_t ctrl_rate_kib)
{
    // Rounded up, so a reading below the need is below it for certain.
    const uint64_t bytes = uint64_t(ctrl_rate_kib) * regs::ctrl::rate_unit;
    if (ctrl_rate_kib == 0 || bytes >= d_need) {
        d_in_a_row = 0;
        if (!d_reported)
            return change::none;
        d_reported = false;
        return change::ended;
    }
    d_held = bytes;
    if (d_reported || ++d_in_a_row < readings)
        return change::none;
    d_reported = true;
    return change::began;
}

} // namespace rdma
} // namespace gr
