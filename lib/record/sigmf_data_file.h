/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RECORD_SIGMF_DATA_FILE_H
#define INCLUDED_RDMA_RECORD_SIGMF_DATA_FILE_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gr {
namespace rdma {

/*!
 * \brief A .sigmf-data file, written straight to the kernel: no buffer of its own, so
 * memory stays the same however fast the stream, and a write the disk refuses is known
 * at once, with its errno (ENOSPC, EFBIG at a file size limit), instead of dropped.
 */
class RDMA_TRANSPORT_API sigmf_data_file
{
public:
    sigmf_data_file() = default;
    ~sigmf_data_file();
    sigmf_data_file(const sigmf_data_file&) = delete;
    sigmf_data_file& operator=(const sigmf_data_file&) = delete;

    //! Create or truncate \p path (the previous file, if any, closed). 0, or the errno.
    int open(const std::string& path);
    //! All of it, or the errno of the write that failed (what reached the file before
    //! it is counted in bytes()).
    int write(const void* data, size_t bytes);
    //! Cut a partial item at the end (a write stopped inside an item) off the file.
    void truncate_to_items(size_t item_size);
    void close();

    bool is_open() const { return d_fd >= 0; }
    const std::string& path() const { return d_path; }
    //! Bytes in the file: what the writes put there.
    uint64_t bytes() const { return d_bytes; }

    //! One line for a write that failed: the file, what it holds, the error, and the
    //! space left on its file system.
    std::string describe_failure(int err, size_t item_size) const;

private:
    int d_fd = -1;
    std::string d_path;
    uint64_t d_bytes = 0;
};

} // namespace rdma
} // namespace gr

#endif
