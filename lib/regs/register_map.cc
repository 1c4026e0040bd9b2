/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "register_map.h"

namespace gr {
namespace rdma {
namespace regs {

const char* describe_error(uint32_t code)
{
    switch (code) {
    case error_code::none:
        return "no error";
    case error_code::bad_format:
        return "unsupported sample format";
    case error_code::bad_payload:
        return "payload size is zero, not a multiple of the item size, above 65536 "
               "bytes, or more than 64 packets of the path MTU (raise mtu= or lower "
               "payload=)";
    case error_code::bad_ring:
        return "ring size is zero or not a multiple of the payload size";
    case error_code::bad_rate:
        return "sample rate is zero";
    case error_code::bad_mtu:
        return "path MTU is not 256..4096 or frames would exceed the link MTU";
    case error_code::bad_destination:
        return "destination address, port or QPN is zero";
    case error_code::bad_link:
        return "link mask is empty or names a link the device does not have, or a "
               "destination's link is not in it (or, at START, every destination's "
               "link is down)";
    case error_code::bad_transport:
        return "transport not supported by this device";
    case error_code::busy:
        return "stream is running: stop it first";
    case error_code::start_time_passed:
        return "the start time had passed when START arrived: write a time further "
               "ahead (at least the control link's round trip), or 0 for now";
    case error_code::bad_control_page:
        return "TX control page address is zero or not 8-byte aligned";
    case error_code::bad_read_depth:
        return "TX_MAX_RD_ATOMIC is not 1..16";
    case error_code::share_not_ready:
        return "a share has no destination ready: start the host of every share "
               "(share=h/H) first; RX_SHARE_READY says which";
    case error_code::bad_destinations:
        return "several destinations (or shares) need transport UC, a run that is not "
               "queued and starts at message 0 (one share with LINKS_CONTINUE: at a "
               "multiple of RX_NOTIFY_INTERVAL), weights adding up to 1..1024 (per "
               "share), and no used destination outside the shares";
    default:
        return "unknown error";
    }
}

std::string describe_stop_cause(uint32_t word)
{
    const auto how = [](uint32_t h) -> std::string {
        switch (h) {
        case stop_cause::how::released:
            return "it released it";
        case stop_cause::how::lapsed:
            return "its lease lapsed (it asked the device nothing for that long: dead, "
                   "stopped or starved)";
        case stop_cause::how::taken_over:
            return "another host took it over";
        default:
            return "how, the device does not say";
        }
    };
    switch (stop_cause::kind_of(word)) {
    case stop_cause::none:
        return "the device knows no run that ended (it restarted, or never ran it)";
    case stop_cause::done:
        return "the burst was sent completely";
    case stop_cause::command:
        return "a STOP (the stream's owner's, a timed STOP, or another client's on a "
               "stream nobody owned)";
    case stop_cause::owner_left:
        return "the stream's owner left: " + how(stop_cause::how_of(word));
    case stop_cause::share_left:
        return "share " + std::to_string(stop_cause::share_of(word)) +
               "'s host left: " + how(stop_cause::how_of(word)) +
               "; the device stops the stream for every share";
    case stop_cause::failed:
        return "the device failed the run (RC: its requester gave up after a fatal NAK "
               "or its retries)";
    default:
        return "a cause this map does not define (" + std::to_string(word) + ")";
    }
}

const char* tbq::describe_error(uint32_t code)
{
    switch (code) {
    case tbq::error::none:
        return "no error";
    case tbq::error::full:
        return "the TX burst queue is full: wait until the device takes an entry up";
    case tbq::error::item_order:
        return "item out of order: a START's item must be the previous END's (0 for the "
               "first burst of a run), an END's item above its START's";
    case tbq::error::time_behind:
        return "the START time is before the end of the previous burst (or before the "
               "run's start): write a later time, or 0 to follow on seamlessly";
    case tbq::error::not_owner:
        return "another host owns the TX stream";
    case tbq::error::not_running:
        return "the TX stream does not run in queued mode (TX_NUM_SAMPLES all ones): "
               "START it so first";
    case tbq::error::sequence:
        return "out of sequence: a START while a burst is open (END it first), or an END "
               "without an open burst";
    default:
        return "unknown error";
    }
}

} // namespace regs
} // namespace rdma
} // namespace gr
