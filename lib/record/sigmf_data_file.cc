/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sigmf_data_file.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace gr {
namespace rdma {

sigmf_data_file::~sigmf_data_file() { close(); }

int sigmf_data_file::open(const std::string& path)
{
    close();
    d_path = path;
    d_bytes = 0;
    d_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return d_fd < 0 ? errno : 0;
}

int sigmf_data_file::write(const void* data, size_t bytes)
{
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(d_fd, p, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return ENOSPC; // a device that takes nothing, and says nothing
        // A short write (a size limit, a disk filling up): the rest is tried again,
        // and the next write says why it fails.
        d_bytes += static_cast<uint64_t>(n);
        p += n;
        bytes -= static_cast<size_t>(n);
    }
    return 0;
}

void sigmf_data_file::truncate_to_items(size_t item_size)
{
    const uint64_t whole = d_bytes - d_bytes % item_size;
    if (whole == d_bytes)
        return;
    // A device file (/dev/full) cannot be truncated, and holds nothing anyway.
    if (d_fd >= 0 && ::ftruncate(d_fd, static_cast<off_t>(whole)) != 0)
        return;
    d_bytes = whole;
}

void sigmf_data_file::close()
{
    if (d_fd >= 0)
        ::close(d_fd);
    d_fd = -1;
}

std::string sigmf_data_file::describe_failure(int err, size_t item_size) const
{
    std::string free = "?";
    struct statvfs vfs;
    if (::statvfs(d_path.c_str(), &vfs) == 0)
        free = std::to_string(static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize);
    std::string why = "writing " + d_path + " failed after " + std::to_string(d_bytes) +
                      " bytes (" + std::to_string(d_bytes / item_size) +
                      " samples): " + std::strerror(err);
    if (err == ENOSPC || err == EFBIG || err == EDQUOT)
        why += ": the disk is full or a file size limit (or quota) is reached";
    return why + " (" + free + " bytes free); the recording ends there";
}

} // namespace rdma
} // namespace gr
