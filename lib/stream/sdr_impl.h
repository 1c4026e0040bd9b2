/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_SDR_IMPL_H
#define INCLUDED_RDMA_STREAM_SDR_IMPL_H

#include "../device/shared_device.h"
#include "../util/arg_table.h"
#include "../util/device_args.h"
#include "rx_stream_impl.h"
#include "tx_stream_impl.h"
#include <gnuradio/rdma/sdr.h>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * The boundary: the args text parsed once and checked against the tables of the parts
 * that read it (stream_args.h), and the device it names, opened once. Each stream is
 * made from the device and its typed config (stream_args.h), parsed here from the
 * args: below this nothing reads the args.
 */
class sdr::impl
{
public:
    using tables_fn = std::vector<const arg_table*> (*)();

    //! Parse \p text, refuse a key in none of \p tables, open the device.
    impl(const std::string& text, tables_fn tables);

    radio_control& radio() { return d_device->radio(); }
    rate_controller& rates() { return d_device->rates(); }
    //! stream= of the args; 0 when absent.
    unsigned args_stream() const;

    //! An RX stream of the device: \p stream (sdr::args_stream: stream= of the args).
    std::unique_ptr<rx_stream::impl>
    rx(const std::string& format, double rate, uint64_t num_samples, size_t stream) const;
    //! A TX stream of the device, as rx().
    std::unique_ptr<tx_stream::impl>
    tx(const std::string& format, double rate, uint64_t num_samples, size_t stream) const;

private:
    //! The args with stream=\p stream (unless sdr::args_stream), checked against a
    //! stream's \p tables: the sdr takes the keys of RX and TX streams alike.
    device_args stream_args(size_t stream, tables_fn tables) const;

    const device_args d_args;
    const std::shared_ptr<shared_device> d_device;
};

} // namespace rdma
} // namespace gr

#endif
