/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_STREAM_OWNERSHIP_H
#define INCLUDED_RDMA_STREAM_STREAM_OWNERSHIP_H

#include "../device/device_controller.h"
#include "../util/device_args.h"
#include "../util/log.h"
#include <chrono>
#include <cstdint>
#include <set>
#include <string>

namespace gr {
namespace rdma {

/*!
 * A stream's ownership on its device (docs/register-map.md, "Ownership";
 * docs/security.md): rx_stream and tx_stream claim their RX or TX stream the same way.
 * Each run claims the stream with a new random token before it configures it and
 * releases it after it stopped, so no other host reads its keys, reconfigures or stops
 * it meanwhile. The lease (lease=) is renewed by the stream's watch thread, whose
 * every exchange with the device renews it; take_over=1 takes a stream another host
 * owns (the device stops that host's run), or a run nobody owns.
 *
 * Without cap::ownership on the device, claim() and release_quietly() do nothing, and
 * construction warns once (unless the device runs in this process).
 */
class stream_ownership
{
public:
    //! The device args it reads: lease=, take_over=.
    static const arg_table& arg_keys();
    //! lease= and take_over= as given.
    struct settings {
        uint32_t lease_ms = 0;
        bool take_over = false;
        static settings from_args(const device_args& args);
    };

    stream_ownership(device_controller& device,
                     stream_direction direction,
                     unsigned stream,
                     bool has_ownership,
                     bool in_process,
                     const settings& asked,
                     const logger_ptr& logger);

    //! The device has cap::ownership: every run claims the stream.
    bool enabled() const { return d_enabled; }
    uint32_t lease_ms() const { return d_lease_ms; }
    bool take_over() const { return d_take_over; }

    /*!
     * Claim the stream for this host with a new token. Throws stream_owned_error
     * (naming the owner's lease and take_over=1) when another host owns it, and
     * std::runtime_error when it runs for a host that does not claim streams; with
     * take_over=1 it takes either, and stops the run it found.
     */
    void claim();
    //! From now on claim() and release_quietly() take share \p share >= 1 of the RX
    //! stream instead of the stream (docs/links.md, "Several hosts").
    void own_share(unsigned share) { d_share = share; }

    //! Give the stream up (the device stops it if it still runs); a failure is logged,
    //! not thrown: the device frees the stream itself once the lease lapses.
    void release_quietly();

    //! Why a stopping stream's device counters are not its own: another host owns it.
    static const char* lost_note();

private:
    device_controller& d_device;
    const stream_direction d_direction;
    const unsigned d_stream;
    bool d_enabled = false;
    uint32_t d_lease_ms = 5000;
    bool d_take_over = false;
    unsigned d_share = 0; // 0: the stream itself
    logger_ptr d_logger;
};

} // namespace rdma
} // namespace gr

#endif
