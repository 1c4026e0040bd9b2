/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ipv4_frame.h"
#include "soft_queue_pair.h"
#include "soft_responder.h"
#include "soft_tables.h"
#include <atomic>
#include <chrono>
#include <cstring>

/*
 * Line references are to Linux 6.1 drivers/infiniband/sw/rxe (see
 * notes/roce-wire-rxe-axioe.md §3); where we knowingly differ, the comment says so and
 * docs/soft-nic.md lists it.
 */

namespace gr {
namespace rdma {
namespace nic {

namespace {
constexpr uint32_t psn_mask = 0x00FFFFFF;
constexpr uint16_t pkey_match_mask = 0x7FFF; // the membership bit is not compared
constexpr uint32_t max_message_bytes = 1u << 31;
// RNR NAK timer field (IBA table 45): 12 = 0.64 ms before the requester retries.
constexpr uint8_t rnr_timer = 12;

// rxe psn_compare(): the sign of the 24-bit circular difference.
int32_t psn_compare(uint32_t a, uint32_t b) { return static_cast<int32_t>((a - b) << 8); }

rx_result from_parse(roce::parse_status status)
{
    switch (status) {
    case roce::parse_status::ok:
        return rx_result::accepted;
    case roce::parse_status::bad_version:
        return rx_result::drop_bad_version;
    case roce::parse_status::unknown_opcode:
        return rx_result::drop_unknown_opcode;
    case roce::parse_status::truncated:
        break;
    }
    return rx_result::drop_truncated;
}

void set_reply(reply& out, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
    out.needed = true;
    out.syndrome = syndrome;
    out.psn = psn;
    out.msn = msn;
}

// A READ of \p length bytes takes max(1, ceil(length / mtu)) PSNs (rxe_resp.c:605).
uint32_t read_packets(uint32_t length, unsigned mtu)
{
    return length == 0 ? 1 : static_cast<uint32_t>((uint64_t(length) + mtu - 1) / mtu);
}

// The MR behind [va, va + length) if \p qp may read it (lookup_mr + mr_check_range).
rx_result find_readable(const soft_tables& tables,
                        const qp_context& qp,
                        uint32_t rkey,
                        uint64_t va,
                        uint32_t length,
                        const uint8_t*& data)
{
    data = nullptr;
    if (length == 0) // a zero-length READ names no memory, as a zero-length WRITE
        return rx_result::accepted;
    const mr_entry* mr = tables.find_mr(rkey);
    if (!mr || mr->pd != qp.pd || !(mr->access & access_remote_read))
        return rx_result::drop_bad_rkey;
    const uint64_t base = reinterpret_cast<uintptr_t>(mr->addr);
    if (va < base || length > mr->length || va - base > mr->length - length)
        return rx_result::drop_out_of_bounds;
    data = mr->addr + (va - base);
    return rx_result::accepted;
}
} // namespace

//! Where a request's payload goes, resolved by check_request().
struct soft_responder::write_target {
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint32_t resid = 0;      //!< message bytes still to come, this packet's included
    uint8_t* dest = nullptr; //!< host address of va (null for a zero-length write)
};

size_t write_reply(const reply& r, uint8_t* out)
{
    roce::bth b;
    b.opcode = roce::opcode::rc | roce::opcode::acknowledge;
    b.dest_qp = r.dest_qpn;
    b.psn = r.psn;
    roce::aeth a;
    a.syndrome = r.syndrome;
    a.msn = r.msn;
    const size_t headers = roce::write_headers(out, b, nullptr, nullptr, &a);
    const size_t len = roce::finish(out, headers, 0);
    roce::ip_context ip;
    ip.src_ip = r.from.ip();
    ip.src_port = r.from.port();
    ip.dst_ip = r.to.ip();
    ip.dst_port = r.to.port();
    roce::seal_udp(ip, out, len);
    return len;
}

size_t write_read_response(const reply& r, uint32_t index, uint8_t* out)
{
    const read_reply& rr = r.read;
    const bool last = index + 1 == rr.packets;
    const bool first = index == 0 && rr.from_start;
    roce::bth b;
    if (first)
        b.opcode =
            last ? roce::opcode::read_response_only : roce::opcode::read_response_first;
    else
        b.opcode =
            last ? roce::opcode::read_response_last : roce::opcode::read_response_middle;
    b.opcode |= roce::opcode::rc;
    b.dest_qp = r.dest_qpn;
    b.psn = (rr.psn + index) & psn_mask;
    const size_t offset = size_t(index) * rr.mtu;
    const size_t n = last ? rr.length - offset : rr.mtu;
    b.pad_count = roce::pad_for(n);
    roce::aeth a; // FIRST, LAST and ONLY carry it; MIDDLE does not (the codec decides)
    a.syndrome = roce::syndrome::ack_unlimited;
    a.msn = rr.msn;
    const size_t headers = roce::write_headers(out, b, nullptr, nullptr, &a);
    if (n > 0)
        std::memcpy(out + headers, rr.data + offset, n);
    const size_t len = roce::finish(out, headers, n);
    roce::ip_context ip;
    ip.src_ip = r.from.ip();
    ip.src_port = r.from.port();
    ip.dst_ip = r.to.ip();
    ip.dst_port = r.to.port();
    roce::seal_udp(ip, out, len);
    return len;
}

soft_responder::soft_responder(soft_tables& tables)
    : d_tables(tables), d_counters(tables.counters())
{
}

void soft_responder::count(rx_result result) { d_counters.count(result); }

rx_result soft_responder::process_udp(const uint8_t* data,
                                      size_t len,
                                      const socket_address& from,
                                      const socket_address& to,
                                      reply& out)
{
    out.needed = false;
    out.read.needed = false;
    roce::packet p;
    rx_result r = from_parse(roce::parse(data, len, p));
    if (r == rx_result::accepted) {
        // The kernel hid the real IP header; both ends rebuild the same canonical one.
        roce::ip_context ip;
        ip.src_ip = from.ip();
        ip.src_port = from.port();
        ip.dst_ip = to.ip();
        ip.dst_port = to.port();
        if (roce::compute_icrc(ip, data, len - roce::icrc_bytes) != p.icrc)
            r = rx_result::drop_bad_icrc;
        else
            r = deliver(p, from, to, out);
    }
    d_counters.count(r);
    return r;
}

rx_result soft_responder::process_frame(const uint8_t* frame,
                                        size_t len,
                                        const socket_address& local,
                                        reply& out)
{
    out.needed = false;
    out.read.needed = false;
    ipv4_udp_view view;
    roce::packet p;
    rx_result r = check_ipv4_udp(frame, len, local, view);
    if (r == rx_result::accepted)
        r = from_parse(roce::parse(view.udp_payload, view.udp_payload_len, p));
    if (r == rx_result::accepted) {
        const size_t covered = static_cast<size_t>(view.udp_payload - frame) +
                               view.udp_payload_len - roce::icrc_bytes;
        if (roce::compute_icrc_frame(frame, covered) != p.icrc)
            r = rx_result::drop_bad_icrc;
        else
            r = deliver(p, view.from, view.to, out);
    }
    d_counters.count(r);
    return r;
}

rx_result soft_responder::deliver(const roce::packet& p,
                                  const socket_address& from,
                                  const socket_address& to,
                                  reply& out)
{
    // hdr_check, check_keys, check_type_state, check_addr (rxe_recv.c:13-172). The
    // ICRC came first (rxe checks it last): a corrupted header is never blamed on the
    // field the corruption happened to hit.
    const roce::bth& b = p.base;
    if ((b.pkey & pkey_match_mask) != pkey_match_mask)
        return rx_result::drop_bad_pkey;
    qp_context* qp = d_tables.find_qp(b.dest_qp);
    if (!qp)
        return rx_result::drop_unknown_qpn;
    if (qp->state != qp_state::rtr && qp->state != qp_state::rts)
        return rx_result::drop_qp_state;
    const uint8_t transport =
        qp->type == qp_type::rc ? roce::opcode::rc : roce::opcode::uc;
    if (roce::transport_of(b.opcode) != transport)
        return rx_result::drop_transport_mismatch;
    // Addresses only: the UDP source port carries the sender's flow hash (notes §2.9).
    if (from.ip() != qp->peer.address.ip())
        return rx_result::drop_bad_source;
    const roce::opcode_info info = roce::describe(b.opcode);
    // ACKs and READ responses are for a requester, and this NIC has none: they must
    // not disturb the responder's PSN.
    if (!info.is_write && !info.is_send && !info.is_read_request)
        return rx_result::drop_unsupported;

    out.from = to;
    out.to = qp->peer.address;
    out.dest_qpn = qp->peer.qpn;
    if (info.is_read_request) // RC only: the codec knows no UC READ opcode
        return deliver_read(*qp, p, out);

    bool resync = false;
    rx_result r = check_psn(*qp, p, info, resync, out);
    if (r != rx_result::accepted)
        return r;
    write_target target;
    r = check_request(*qp, p, info, target);
    if (r != rx_result::accepted)
        return reject(*qp, p, info, r, out);
    execute(*qp, p, info, target, out);
    if (resync)
        d_counters.add(nic_event::psn_resync);
    return rx_result::accepted;
}

rx_result soft_responder::deliver_read(qp_context& qp, const roce::packet& p, reply& out)
{
    const roce::opcode_info info = roce::describe(p.base.opcode);
    const uint32_t psn = p.base.psn;
    const int32_t diff = psn_compare(psn, qp.expected_psn);
    if (diff > 0) { // a gap, as for a WRITE: one NAK carrying the PSN we want
        if (!qp.sent_psn_nak) {
            qp.sent_psn_nak = true;
            set_reply(out, roce::syndrome::nak_psn_sequence, qp.expected_psn, qp.msn);
        }
        return rx_result::drop_psn_sequence;
    }
    if (diff < 0)
        return replay_read(qp, p, out);
    qp.sent_psn_nak = false;

    // check_op_seq: a READ in the middle of a multi-packet WRITE (class C).
    if (qp.in_message)
        return reject(qp, p, info, rx_result::drop_opcode_sequence, out);
    // check_op_valid: the QP must grant remote read (NAK invalid request, as rxe).
    if (!(qp.remote_access & access_remote_read))
        return reject(qp, p, info, rx_result::drop_no_access, out);
    // check_length (mainline) before check_rkey; a READ REQUEST carries no payload.
    const uint32_t length = p.reth_hdr.dma_length;
    if (length > max_message_bytes || p.payload_len != 0 || p.base.pad_count != 0)
        return reject(qp, p, info, rx_result::drop_bad_length, out);
    const uint8_t* data = nullptr;
    const rx_result access =
        find_readable(d_tables, qp, p.reth_hdr.rkey, p.reth_hdr.va, length, data);
    if (access != rx_result::accepted)
        return reject(qp, p, info, access, out);

    // read_reply: the READ is one message (MSN counts it, and its responses carry the
    // new MSN) and takes one PSN per response packet.
    const uint32_t packets = read_packets(length, qp.path_mtu);
    qp.msn = (qp.msn + 1) & psn_mask;
    qp.expected_psn = (psn + packets) & psn_mask;
    read_resource res;
    res.valid = true;
    res.first_psn = psn;
    res.last_psn = (psn + packets - 1) & psn_mask;
    res.va = p.reth_hdr.va;
    res.rkey = p.reth_hdr.rkey;
    res.length = length;
    res.msn = qp.msn;
    qp.remember_read(res);

    out.read.needed = true;
    out.read.from_start = true;
    out.read.data = data;
    out.read.length = length;
    out.read.psn = psn;
    out.read.packets = packets;
    out.read.msn = qp.msn;
    out.read.mtu = qp.path_mtu;
    d_counters.add(nic_event::reads);
    return rx_result::accepted;
}

rx_result soft_responder::replay_read(qp_context& qp, const roce::packet& p, reply& out)
{
    // duplicate_request (rxe_resp.c:1148-): a READ within a remembered one is served
    // again from its PSN. The re-request names the part still missing: the same rkey
    // and a tail of the original range, whose responses stay within its PSNs (rxe
    // does not check the PSNs; we do, so a replay never answers for a later request).
    const uint32_t psn = p.base.psn;
    const read_resource* res = qp.find_read(psn);
    if (!res)
        return rx_result::drop_stale_read;
    const uint64_t va = p.reth_hdr.va;
    const uint32_t length = p.reth_hdr.dma_length;
    const uint32_t packets = read_packets(length, qp.path_mtu);
    const uint32_t psn_offset = (psn - res->first_psn) & psn_mask;
    const uint32_t span = ((res->last_psn - res->first_psn) & psn_mask) + 1;
    if (p.reth_hdr.rkey != res->rkey || va < res->va || length > res->length ||
        va - res->va > res->length - length || packets > span - psn_offset)
        return rx_result::drop_stale_read;
    // rxe_recheck_mr: the MR may have gone, or changed, since (class C).
    const uint8_t* data = nullptr;
    const rx_result access = find_readable(d_tables, qp, res->rkey, va, length, data);
    if (access != rx_result::accepted)
        return reject(qp, p, roce::describe(p.base.opcode), access, out);

    out.read.needed = true;
    out.read.from_start = psn_offset == 0;
    out.read.data = data;
    out.read.length = length;
    out.read.psn = psn;
    out.read.packets = packets;
    out.read.msn = res->msn;
    out.read.mtu = qp.path_mtu;
    d_counters.add(nic_event::read_replays);
    return rx_result::duplicate;
}

rx_result soft_responder::check_psn(qp_context& qp,
                                    const roce::packet& p,
                                    const roce::opcode_info& info,
                                    bool& resync,
                                    reply& out)
{
    const uint32_t psn = p.base.psn;
    if (qp.type == qp_type::uc) {
        // rxe_resp.c:151-161: after a gap (or a drop within the message) only a START
        // is taken, and it resynchronises the PSN; a MIDDLE/LAST is dropped, and with
        // it the rest of its message.
        if (psn == qp.expected_psn && !qp.drop_msg)
            return rx_result::accepted;
        if (info.starts_message) {
            resync = psn != qp.expected_psn;
            return rx_result::accepted;
        }
        abandon_message(qp);
        qp.drop_msg = true;
        return rx_result::drop_psn_sequence;
    }

    const int32_t diff = psn_compare(psn, qp.expected_psn);
    if (diff > 0) {
        // One NAK per gap, carrying the PSN we want (rxe_resp.c:133-139, 1361-1365);
        // then silence until the requester goes back to it.
        if (!qp.sent_psn_nak) {
            qp.sent_psn_nak = true;
            set_reply(out, roce::syndrome::nak_psn_sequence, qp.expected_psn, qp.msn);
        }
        return rx_result::drop_psn_sequence;
    }
    if (diff < 0) {
        // Already executed: ACK again with the last PSN done, whatever AckReq says, and
        // do not execute twice (C9-105, rxe_resp.c:1148-1158).
        set_reply(
            out, roce::syndrome::ack_unlimited, (qp.expected_psn - 1) & psn_mask, qp.msn);
        return rx_result::duplicate;
    }
    qp.sent_psn_nak = false;
    return rx_result::accepted;
}

rx_result soft_responder::check_request(qp_context& qp,
                                        const roce::packet& p,
                                        const roce::opcode_info& info,
                                        write_target& target)
{
    if (info.is_send)
        return check_send(qp, p);
    // check_op_seq (rxe_resp.c:169-257).
    if (!info.starts_message && !qp.in_message)
        return rx_result::drop_missing_reth;
    if (info.starts_message && qp.in_message) {
        if (qp.type == qp_type::rc)
            return rx_result::drop_opcode_sequence;
        // UC: the old message lost its end. rxe drops this START and, for plain
        // writes, keeps dropping until the QP is reset (notes §3.4). We abandon the old
        // message and start the new one, which is what the wire protocol intends.
        abandon_message(qp);
    }

    // check_op_valid (259-294).
    if (!(qp.remote_access & access_remote_write))
        return rx_result::drop_no_access;

    // check_resource (372-414): WITH_IMM consumes a receive WR.
    if (info.has_imm && qp.receives.empty())
        return rx_result::drop_no_receive_wr;

    // check_rkey (431-546): RETH on START, the stored state otherwise.
    if (info.starts_message) {
        target.va = p.reth_hdr.va;
        target.rkey = p.reth_hdr.rkey;
        target.resid = p.reth_hdr.dma_length;
    } else {
        target.va = qp.va;
        target.rkey = qp.rkey;
        target.resid = qp.resid;
    }
    if (target.resid > 0) { // a zero-length write names no memory (464-469)
        const mr_entry* mr = d_tables.find_mr(target.rkey);
        if (!mr || mr->pd != qp.pd || !(mr->access & access_remote_write))
            return rx_result::drop_bad_rkey;
        // The whole rest of the message must fit (mr_check_range), not only this packet.
        const uint64_t base = reinterpret_cast<uintptr_t>(mr->addr);
        if (target.va < base || target.resid > mr->length ||
            target.va - base > mr->length - target.resid)
            return rx_result::drop_out_of_bounds;
        target.dest = mr->addr + (target.va - base);
    }

    // Payload and pad (513-532, and mainline's check_length).
    const size_t n = p.payload_len;
    const uint8_t pad = p.base.pad_count;
    if (target.resid > max_message_bytes)
        return rx_result::drop_bad_length;
    if (info.ends_message) {
        if (n != target.resid || n > qp.path_mtu || pad != roce::pad_for(n))
            return rx_result::drop_bad_length;
    } else if (n != qp.path_mtu || pad != 0 || target.resid <= qp.path_mtu) {
        return rx_result::drop_bad_length;
    }
    return rx_result::accepted;
}

rx_result soft_responder::check_send(qp_context& qp, const roce::packet& p)
{
    // A SEND ONLY (the device's fetch notification, docs/transmit.md): a message of its
    // own (check_op_seq), no remote access right needed (check_op_valid asks none for
    // SEND), one receive WR consumed (check_resource: RNR NAK without one). The soft
    // NIC's receive WRs have no buffer: a SEND must carry no payload; one that does
    // overflows the WR (rxe: RESPST_ERR_LENGTH, class C).
    if (qp.in_message)
        return rx_result::drop_opcode_sequence;
    if (qp.receives.empty())
        return rx_result::drop_no_receive_wr;
    if (p.payload_len != 0 || p.base.pad_count != 0)
        return rx_result::drop_bad_length;
    return rx_result::accepted;
}

void soft_responder::place_payload(uint8_t* dest, const uint8_t* payload, size_t n)
{
    // The host checks that a packet landed by the placeholder in its first bytes
    // (docs/loss-accounting.md). This thread can be preempted halfway through a copy, for
    // as long as the machine is busy: write those bytes last, once the rest is in the
    // ring, so that a placeholder found gone always means a whole packet.
    const size_t head = std::min(n, placeholder_bytes);
    if (n > head)
        std::memcpy(dest + head, payload + head, n - head);
    std::atomic_thread_fence(std::memory_order_release);
    if (head > 0)
        std::memcpy(dest, payload, head);
}

void soft_responder::execute(qp_context& qp,
                             const roce::packet& p,
                             const roce::opcode_info& info,
                             const write_target& target,
                             reply& out)
{
    const size_t n = p.payload_len;
    place_payload(static_cast<uint8_t*>(target.dest), p.payload, n);
    d_counters.add(nic_event::rx_bytes, n);

    if (info.starts_message)
        qp.length = target.resid;
    qp.va = target.va + n;
    qp.rkey = target.rkey;
    qp.resid = target.resid - static_cast<uint32_t>(n);
    qp.in_message = !info.ends_message;
    qp.drop_msg = false;
    qp.expected_psn = (p.base.psn + 1) & psn_mask;

    if (info.ends_message) {
        qp.msn = (qp.msn + 1) & psn_mask;
        if (info.has_imm || info.is_send) {
            // do_complete (952-1021): one receive WR, byte_len = the whole message.
            work_completion wc;
            qp.receives.take(wc.wr_id); // check_request made sure there is one
            wc.status = wc_status::success;
            wc.byte_len = qp.length; // a SEND: 0
            wc.imm_data = p.imm;     // a SEND without immediate: 0
            wc.qpn = qp.qpn;
            // The payload above was the message's last byte (notification latency).
            wc.written_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();
            qp.complete(wc, d_counters);
        }
        qp.end_message();
    }
    // acknowledge (1093-1107): only when asked; one ACK covers all earlier PSNs.
    if (qp.type == qp_type::rc && p.base.ack_req)
        set_reply(out, roce::syndrome::ack_unlimited, p.base.psn, qp.msn);
}

rx_result soft_responder::reject(qp_context& qp,
                                 const roce::packet& p,
                                 const roce::opcode_info& info,
                                 rx_result reason,
                                 reply& out)
{
    if (qp.type == qp_type::uc) {
        // UC errors are silent, and the rest of the message is dropped (drop_msg).
        abandon_message(qp);
        qp.drop_msg = true;
        return reason;
    }
    switch (reason) {
    case rx_result::drop_no_receive_wr:
        // RNR NAK (1381-1388): the requester retries this very packet later, so the
        // message in progress stays.
        set_reply(out, roce::syndrome::rnr_nak | rnr_timer, p.base.psn, qp.msn);
        return reason;
    default:
        break;
    }
    // Class C (do_class_ac_error, 1227-1235): NAK, then the QP is in ERROR and every
    // later packet drops until the host resets it.
    const bool access =
        reason == rx_result::drop_bad_rkey || reason == rx_result::drop_out_of_bounds;
    set_reply(out,
              access ? roce::syndrome::nak_remote_access
                     : roce::syndrome::nak_invalid_request,
              p.base.psn,
              qp.msn);
    // A WITH_IMM request took its receive WR before the rkey check; that WR completes
    // in error (the rest are flushed).
    if ((info.has_imm || info.is_send) &&
        (access || reason == rx_result::drop_bad_length)) {
        work_completion wc;
        if (qp.receives.take(wc.wr_id)) {
            wc.status = wc_status::remote_error;
            wc.qpn = qp.qpn;
            qp.complete(wc, d_counters);
        }
    }
    qp.enter_error(d_counters);
    return reason;
}

void soft_responder::abandon_message(qp_context& qp)
{
    if (qp.in_message)
        d_counters.add(nic_event::message_aborted);
    qp.end_message();
}

} // namespace nic
} // namespace rdma
} // namespace gr
