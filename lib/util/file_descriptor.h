/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_UTIL_FILE_DESCRIPTOR_H
#define INCLUDED_RDMA_UTIL_FILE_DESCRIPTOR_H

#include <unistd.h>
#include <utility>

namespace gr {
namespace rdma {

//! Owns a POSIX file descriptor and closes it once.
class file_descriptor
{
public:
    file_descriptor() = default;
    explicit file_descriptor(int fd) : d_fd(fd) {}
    file_descriptor(file_descriptor&& o) noexcept : d_fd(std::exchange(o.d_fd, -1)) {}
    file_descriptor& operator=(file_descriptor&& o) noexcept
    {
        if (this != &o) {
            reset();
            d_fd = std::exchange(o.d_fd, -1);
        }
        return *this;
    }
    file_descriptor(const file_descriptor&) = delete;
    file_descriptor& operator=(const file_descriptor&) = delete;
    ~file_descriptor() { reset(); }

    int get() const { return d_fd; }
    explicit operator bool() const { return d_fd >= 0; }
    void reset()
    {
        if (d_fd >= 0)
            ::close(d_fd);
        d_fd = -1;
    }

private:
    int d_fd = -1;
};

} // namespace rdma
} // namespace gr

#endif
