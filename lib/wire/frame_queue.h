/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_WIRE_FRAME_QUEUE_H
#define INCLUDED_RDMA_WIRE_FRAME_QUEUE_H

#include "../util/event_notifier.h"
#include "../util/socket_address.h"
#include <gnuradio/rdma/transport_api.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace rdma {
namespace wire {

//! A RoCEv2 UDP payload handed over in-process, with the addresses its ICRC covers.
struct inproc_frame {
    const uint8_t* data = nullptr;
    size_t length = 0;
    socket_address from;
    socket_address to;
};

/*!
 * The soft NIC's in-process receive port: a bounded ring of frame slots that a wire in
 * the same process (emu::inproc_wire) fills and the NIC's own receive thread drains,
 * so the NIC's work stays on "nic-rx" and is charged to the NIC, as for UDP. Frames
 * take the same path through the responder as datagrams from the socket.
 *
 * Single consumer (nic-rx), lock-free. Producers copy whole batches under a mutex, so
 * several engines may share a wire; there is one copy per frame, as a link's DMA would
 * make. A full ring takes what fits and the producer offers the rest again (a
 * transmit queue that is full; nothing is dropped). Wake-ups follow the CQ's arm
 * protocol: the consumer announces it is about to sleep and re-checks; a producer that
 * sees the announcement signals the NIC's eventfd once.
 *
 * Found by the soft NIC's RoCE address (publish()/find()); slot memory is allocated
 * when the first producer connects, so a NIC that only uses UDP pays nothing.
 */
class RDMA_TRANSPORT_API frame_queue
{
public:
    static constexpr size_t slots = 1024;

    //! \p wake is the NIC's eventfd; signalled only until close().
    frame_queue(event_notifier& wake, size_t slot_bytes);
    frame_queue(const frame_queue&) = delete;
    frame_queue& operator=(const frame_queue&) = delete;

    //! Make \p queue findable at \p address (the NIC's RoCE address).
    static void publish(const socket_address& address,
                        const std::shared_ptr<frame_queue>& queue);
    //! Undo publish() of \p queue; the NIC calls it, then close(), before it goes away.
    static void withdraw(const socket_address& address, const frame_queue* queue);
    //! The queue at \p address, connected (slot memory allocated); null if none.
    static std::shared_ptr<frame_queue> find(const socket_address& address);

    /*!
     * Producer: copy up to \p count frames into the ring; returns how many were taken
     * (the rest did not fit). After close() every frame counts as taken (a link to a
     * host that is gone loses what it sends). Frames longer than a slot are truncated
     * to an empty frame, which the responder drops as drop_truncated.
     */
    size_t push(const inproc_frame* frames, size_t count);

    //! Consumer: frames waiting (at most \p max), in order; at(i) for i < that.
    size_t available(size_t max) const;
    const inproc_frame& at(size_t i) const;
    //! Consumer: the first \p n frames are processed; their slots are free again.
    void release(size_t n);
    /*!
     * Consumer, before sleeping: announce it and return true if the ring is still
     * empty (sleep), false if a frame arrived meanwhile (do not sleep; the
     * announcement is withdrawn).
     */
    bool prepare_sleep();
    //! Consumer, after sleeping: withdraw the announcement if nobody consumed it.
    void woke() { d_sleeping.store(false, std::memory_order_relaxed); }

    //! No more wake-ups (the NIC is being destroyed); later pushes are discarded.
    void close();
    bool closed() const { return d_closed.load(std::memory_order_relaxed); }

private:
    struct slot {
        inproc_frame frame;
        uint8_t* memory = nullptr;
    };

    event_notifier& d_wake; // valid until close()
    const size_t d_slot_bytes;
    std::mutex d_producer;               // serialises producers and close()
    std::atomic<bool> d_closed{ false }; // set under d_producer
    std::vector<uint8_t> d_memory; // allocated by the first find() (under d_producer)
    std::vector<slot> d_slots;
    alignas(64) std::atomic<uint64_t> d_tail{ 0 };
    alignas(64) std::atomic<uint64_t> d_head{ 0 };
    alignas(64) std::atomic<bool> d_sleeping{ false };
};

} // namespace wire
} // namespace rdma
} // namespace gr

#endif
