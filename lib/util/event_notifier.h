/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_EVENT_NOTIFIER_H
#define INCLUDED_RDMA_UTIL_EVENT_NOTIFIER_H

#include "file_descriptor.h"
#include <chrono>

namespace gr {
namespace rdma {

//! A pollable wake-up signal between threads (eventfd): notify() from any thread,
//! wait() or poll fd() in another.
class event_notifier
{
public:
    event_notifier();
    int fd() const { return d_fd.get(); }
    void notify();
    //! Wait up to \p timeout for a notification and consume it. True if one arrived.
    bool wait(std::chrono::microseconds timeout);
    //! Consume pending notifications without waiting.
    void drain();

private:
    file_descriptor d_fd;
};

} // namespace rdma
} // namespace gr

#endif
