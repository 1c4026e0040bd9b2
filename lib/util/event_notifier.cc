/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "errors.h"
#include "event_notifier.h"
#include "poll_wait.h"
#include <sys/eventfd.h>
#include <cstdint>

namespace gr {
namespace rdma {

event_notifier::event_notifier() : d_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (!d_fd)
        throw_errno("eventfd");
}

void event_notifier::notify()
{
    const uint64_t one = 1;
    // EAGAIN means the counter is saturated: a wake-up is pending anyway.
    [[maybe_unused]] auto r = ::write(d_fd.get(), &one, sizeof(one));
}

void event_notifier::drain()
{
    uint64_t value;
    [[maybe_unused]] auto r = ::read(d_fd.get(), &value, sizeof(value));
}

bool event_notifier::wait(std::chrono::microseconds timeout)
{
    pollfd fds{ d_fd.get(), POLLIN, 0 };
    if (poll_wait(&fds, 1, timeout) <= 0)
        return false;
    drain();
    return true;
}

} // namespace rdma
} // namespace gr
