/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_SOFT_RESPONDER_H
#define INCLUDED_RDMA_NIC_SOFT_RESPONDER_H

#include "../roce/roce_packet.h"
#include "../util/socket_address.h"
#include "soft_counters.h"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace rdma {
namespace nic {

struct qp_context;
class soft_tables;

/*!
 * The READ RESPONSE packets the responder asks to be sent: \p packets packets with PSNs
 * psn.., carrying [data, data + length) in path-MTU pieces. \p data points into a
 * registered MR and is valid only while the table lock is held.
 */
struct read_reply {
    bool needed = false;
    bool from_start =
        true; //!< ONLY or FIRST.. ; false: a replay from inside, MIDDLE../LAST
    const uint8_t* data = nullptr; //!< null for a zero-length READ
    uint32_t length = 0;
    uint32_t psn = 0;
    uint32_t packets = 0; //!< max(1, ceil(length / mtu))
    uint32_t msn = 0;
    unsigned mtu = 0;
};

//! What the responder asks to be sent to a QP's peer: an RC ACK or NAK, or READ
//! RESPONSEs (never both for one request).
struct reply {
    bool needed = false;  //!< the ACK/NAK below
    uint8_t syndrome = 0; //!< AETH syndrome (roce::syndrome)
    uint32_t psn = 0;
    uint32_t msn = 0;
    uint32_t dest_qpn = 0; //!< the peer's QPN
    socket_address from;   //!< where the request was sent to (our side)
    socket_address to;     //!< the QP's peer address
    read_reply read;
};

//! Bytes of an ACK/NAK: BTH + AETH + ICRC.
constexpr size_t reply_bytes = roce::bth_bytes + roce::aeth_bytes + roce::icrc_bytes;

//! Build the ACK/NAK \p r at \p out (reply_bytes long), sealed with the UDP-mode ICRC
//! for r.from -> r.to. Returns its length.
size_t write_reply(const reply& r, uint8_t* out);

//! Largest READ RESPONSE for a path MTU of \p mtu: BTH + AETH + mtu + ICRC.
constexpr size_t read_response_bytes(unsigned mtu)
{
    return roce::bth_bytes + roce::aeth_bytes + mtu + roce::icrc_bytes;
}

/*!
 * Build READ RESPONSE number \p index (0 .. r.read.packets - 1) of r.read at \p out
 * (read_response_bytes(r.read.mtu) long), its payload copied straight from the MR,
 * sealed with the UDP-mode ICRC for r.from -> r.to. Returns its length.
 */
size_t write_read_response(const reply& r, uint32_t index, uint8_t* out);

/*!
 * The RoCEv2 responder of the soft NIC: validates one request against the QP and MR
 * tables in rxe's order and executes it (copy into the MR, advance the QP, complete,
 * ask for an ACK/NAK). Nothing is written into memory on any drop. Every verdict is
 * counted. No sockets, no allocation, no logging.
 *
 * The caller holds the table lock for every call.
 */
class soft_responder
{
public:
    explicit soft_responder(soft_tables& tables);

    //! A RoCEv2 UDP payload (BTH .. ICRC) that arrived from \p from at \p to. The ICRC
    //! is checked over the canonical IPv4 header (IP ID 0, DF) built from them.
    rx_result process_udp(const uint8_t* data,
                          size_t len,
                          const socket_address& from,
                          const socket_address& to,
                          reply& out);

    //! A whole IPv4 frame (IP header .. ICRC) for a NIC at \p local; the ICRC is
    //! checked over the real header.
    rx_result process_frame(const uint8_t* frame,
                            size_t len,
                            const socket_address& local,
                            reply& out);

    //! Count a verdict reached before parsing (a datagram cut short by its slot).
    void count(rx_result result);

    //! A host checks that a packet landed by a placeholder in its first bytes: at most
    //! two 8-byte items (docs/loss-accounting.md; lib/stream/placeholder.h).
    static constexpr size_t placeholder_bytes = 16;
    /*!
     * Write a WRITE's payload of \p n bytes at \p dest: all but its first
     * placeholder_bytes, then those. The NIC thread can be preempted halfway through a
     * copy for as long as the machine is busy; a host that finds the placeholder gone
     * must find the whole packet there.
     */
    static void place_payload(uint8_t* dest, const uint8_t* payload, size_t n);

private:
    struct write_target;

    rx_result deliver(const roce::packet& p,
                      const socket_address& from,
                      const socket_address& to,
                      reply& out);
    rx_result deliver_read(qp_context& qp, const roce::packet& p, reply& out);
    rx_result replay_read(qp_context& qp, const roce::packet& p, reply& out);
    rx_result check_psn(qp_context& qp,
                        const roce::packet& p,
                        const roce::opcode_info& info,
                        bool& resync,
                        reply& out);
    rx_result check_request(qp_context& qp,
                            const roce::packet& p,
                            const roce::opcode_info& info,
                            write_target& target);
    rx_result check_send(qp_context& qp, const roce::packet& p);
    void execute(qp_context& qp,
                 const roce::packet& p,
                 const roce::opcode_info& info,
                 const write_target& target,
                 reply& out);
    rx_result reject(qp_context& qp,
                     const roce::packet& p,
                     const roce::opcode_info& info,
                     rx_result reason,
                     reply& out);
    void abandon_message(qp_context& qp);

    soft_tables& d_tables;
    soft_counters& d_counters;
};

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
