/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "path_lateness.h"
#include <algorithm>

namespace gr {
namespace rdma {

void path_lateness::raise(int64_t late_ns)
{
    d_late = std::min(d_most, std::max(d_late, late_ns));
}

void path_lateness::on_notification(int64_t late_ns)
{
    d_late = std::min(d_most, std::max(late_ns, d_late - d_late / 100));
}

void path_lateness::on_wake(int64_t due_ns, int64_t now_ns)
{
    // A punctual wake is evidence too: the host runs again, and what shared its stall
    // drains; without notifications (notify=0) it is the only way down.
    if (now_ns > due_ns)
        raise(now_ns - due_ns);
    else
        d_late -= d_late / 100;
}

} // namespace rdma
} // namespace gr
