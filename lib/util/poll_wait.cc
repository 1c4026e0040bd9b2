/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "errors.h"
#include "poll_wait.h"
#include <time.h>

namespace gr {
namespace rdma {

int poll_wait(pollfd* fds, nfds_t count, std::chrono::microseconds timeout)
{
    const int64_t us = timeout.count() > 0 ? timeout.count() : 0;
    const timespec ts{ static_cast<time_t>(us / 1000000),
                       static_cast<long>((us % 1000000) * 1000) };
    const int r = ::ppoll(fds, count, &ts, nullptr);
    if (r < 0) {
        if (errno == EINTR)
            return 0;
        throw_errno("ppoll");
    }
    return r;
}

} // namespace rdma
} // namespace gr
