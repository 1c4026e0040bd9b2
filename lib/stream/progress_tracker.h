/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STREAM_PROGRESS_TRACKER_H
#define INCLUDED_RDMA_STREAM_PROGRESS_TRACKER_H

#include <cstdint>

namespace gr {
namespace rdma {

/*!
 * Turns immediate-data completions into "items landed in the ring". The device sends
 * WRITE WITH IMMEDIATE with the message sequence number (its low 32 bits) every N-th
 * message and at the end of a burst; message m carries items [m*ipm, (m+1)*ipm).
 * Messages of one link are placed in order, so when message m has landed, so have all
 * before it. Sequence numbers are unwrapped to 64 bits; an immediate that would move
 * backwards (a stale completion) is ignored.
 *
 * Nothing on the wire is believed beyond what the device can have done (anyone who
 * knows the QPN and port can send a WRITE WITH IMMEDIATE): the completion must carry
 * the message's whole length (the device always sends whole messages; a forged
 * zero-length one needs neither rkey nor address), and the message's last sample must
 * be one the device can have produced by now. Others are counted and ignored.
 */
class progress_tracker
{
public:
    enum class verdict {
        accepted,     //!< progress moved to the end of the message
        stale,        //!< behind what already landed (or a repeat): ignored
        wrong_length, //!< the WRITE was not the whole message: ignored, counted
        implausible,  //!< the device cannot have produced that message yet: ignored
    };

    //! Begin a run: \p items_per_message items per WRITE message, \p total_items items
    //! in a finite burst (0: continuous), an immediate every \p notify_interval messages,
    //! \p item_bytes bytes per item.
    void reset(uint64_t items_per_message,
               uint64_t total_items,
               uint64_t notify_interval = 1,
               uint32_t item_bytes = 4);

    /*!
     * The stream continues with a new run of the device (it restarted), whose message 0
     * is this stream's message \p message: its immediates count from there.
     */
    void rebase(uint64_t message);

    /*!
     * A completion with immediate data \p imm of a WRITE of \p byte_len bytes, taken in
     * when the device can have produced at most \p produced_bound samples (the clock's
     * upper bound; UINT64_MAX: no bound).
     */
    verdict on_immediate(uint32_t imm, uint32_t byte_len, uint64_t produced_bound);
    /*!
     * A stream over several destinations: destination_progress proved that the
     * messages below \p messages landed (one immediate proves nothing about the other
     * destinations' messages, so this tracker's own rule does not apply). Never back.
     */
    void advance_to(uint64_t messages);
    //! Immediates that were not the device's next notification point: stale, repeated,
    //! or for a message that carries none.
    uint64_t out_of_sequence() const { return d_out_of_sequence; }
    //! Immediates ignored because their WRITE was not the whole message.
    uint64_t wrong_length() const { return d_wrong_length; }
    //! Immediates ignored because they claimed more than the device can have produced.
    uint64_t implausible() const { return d_implausible; }

    uint64_t landed() const { return d_landed; }
    //! Messages landed (all below this index).
    uint64_t landed_messages() const { return d_next_message; }
    //! A finite burst has landed completely.
    bool complete() const { return d_total != 0 && d_landed == d_total; }
    //! Items of message \p m (the last one of a burst may be short; 0 past its end).
    uint64_t items_in(uint64_t m) const;

private:
    bool is_notification_point(uint64_t message) const;

    uint64_t d_items_per_message = 1;
    uint64_t d_total = 0;
    uint64_t d_notify_interval = 1;
    uint32_t d_item_bytes = 4;
    uint64_t d_out_of_sequence = 0;
    uint64_t d_wrong_length = 0;
    uint64_t d_implausible = 0;
    uint64_t d_base = 0;         // this stream's message of the device run's message 0
    uint64_t d_next_message = 0; // messages landed so far
    uint64_t d_landed = 0;
};

} // namespace rdma
} // namespace gr

#endif
