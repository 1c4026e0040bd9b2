/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz target for the emulator's TX response intake: with READs of sample messages and
// of the control page, and notifications, outstanding, arbitrary datagrams come back to
// the link and go through ack_receiver (parse, ICRC verdict, routing to the TX stream)
// into tx_requester (take, take_response, take_ack, go-back-N, the timer), interleaved
// with new requests and time. abort() marks a broken promise:
//  * nothing is written outside a sample READ's destination (guarded buffers);
//  * the requester's counters agree with the requests made and the completions taken:
//    READs outstanding, the control READ, room, the timer, first reads = sample reads
//    - re-reads, completions in request order, each one earned by a frame that can
//    complete it (a READ RESPONSE LAST/ONLY, an ACK), failure only after a fatal NAK;
//  * every request it sends (again) asks for bytes of a request still outstanding, at
//    the PSN those bytes have, and nothing else.
// The layout of the input: tx_response_layout.h.

#include "emu/ack_receiver.h"
#include "emu/tx_requester.h"
#include "tx_response_layout.h"
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

using namespace gr::rdma;
using namespace gr::rdma::emu;
namespace layout = tx_response_layout;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

constexpr uint32_t psn_mask = 0xFFFFFF;
constexpr size_t slots = tx_requester::max_outstanding;
constexpr size_t guard = 32;
constexpr size_t slot_span = 3 * 4096; // the longest sample READ: 3 packets of 4 KiB
constexpr size_t slot_stride = slot_span + 2 * guard;
constexpr uint8_t guard_byte = 0xA5;
constexpr uint8_t fresh_byte = 0x5A;

//! A link that hands out one datagram at a time, with a fixed ICRC verdict, and keeps
//! every packet the device sends until the target has checked it.
class fuzz_wire : public wire
{
public:
    socket_address local_address() const override
    {
        return socket_address(0x7F000001, 4791);
    }
    unsigned mtu() const override { return 9000; }
    size_t send(outgoing_packet* batch, size_t count, const socket_address&) override
    {
        for (size_t i = 0; i < count; i++)
            sent.emplace_back(batch[i].udp_payload,
                              batch[i].udp_payload + batch[i].length);
        return count;
    }
    size_t receive(datagram* out, size_t count) override
    {
        if (!pending || count == 0)
            return 0;
        pending = false;
        datagram& d = out[0];
        d.truncated = length > d.capacity;
        d.length = d.truncated ? d.capacity : length;
        if (d.length > 0)
            std::memcpy(d.data, data, d.length);
        d.peer = socket_address(0x7F000002, 4791);
        return 1;
    }
    bool icrc_ok(const datagram&) const override { return icrc_verdict; }

    bool icrc_verdict = true;
    bool pending = false;
    const uint8_t* data = nullptr;
    size_t length = 0;
    std::vector<std::vector<uint8_t>> sent;
};

//! A request as the target made it, until its completion is taken.
struct made {
    tx_requester::kind what = tx_requester::kind::sample;
    uint64_t tag = 0;
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint32_t length = 0;
    uint32_t first_psn = 0;
    uint32_t packets = 1;
    uint64_t frame_issued = 0; // frames fed before it was made
};

//! What the frames fed so far could have done to the requester, by their kind.
struct fed {
    uint64_t frames = 0;    // datagrams fed
    uint64_t to_stream = 0; // well-formed RC frames the receiver routes to it
    uint64_t responses = 0; // of those, READ RESPONSEs
    uint64_t acks = 0;      // ACKNOWLEDGEs
    uint64_t last_ends = 0; // frame number of the last response LAST/ONLY
    uint64_t last_ack = 0;  // frame number of the last positive ACK
    bool fatal_nak = false; // a NAK that fails the QP was fed
};

int32_t psn_diff(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>((a - b) << 8) >> 8;
}

//! What lives from one input to the next: the link, the receiver (its TX queues are
//! megabytes) and the destinations, all as new at the start of every input.
struct fixture {
    fuzz_wire link;
    ack_receiver acks{ link, 0, 1 };
    std::vector<uint8_t> arena;
    fixture() : arena(slots * slot_stride, fresh_byte)
    {
        for (size_t s = 0; s < slots; s++) {
            std::memset(arena.data() + s * slot_stride, guard_byte, guard);
            std::memset(
                arena.data() + s * slot_stride + guard + slot_span, guard_byte, guard);
        }
    }
};

class bench
{
public:
    bench(fixture& f, unsigned mtu, bool icrc, uint32_t loss_ppm, uint32_t start_psn)
        : d_mtu(mtu),
          d_link(f.link),
          d_acks(f.acks),
          d_rq(0, descriptor(mtu, loss_ppm, start_psn), d_link, d_acks),
          d_next_psn(start_psn & psn_mask),
          d_arena(f.arena),
          d_used(slots, 0),
          d_rejected_before(rejected())
    {
        d_link.icrc_verdict = icrc;
        d_link.pending = false;
        d_link.sent.clear();
    }

    void request(uint8_t action, int64_t now)
    {
        const bool room = d_rq.can_send();
        const unsigned reads = d_rq.reads_outstanding();
        const uint64_t sample_reads = d_rq.sample_reads();
        made m;
        m.frame_issued = d_fed.frames;
        bool sent = false;
        switch (action & 3) {
        case layout::sample_read: {
            const uint64_t j = d_samples;
            m.what = tx_requester::kind::sample;
            m.tag = j;
            m.va = layout::sample_read_va(j);
            m.rkey = layout::ring_rkey;
            m.length = layout::sample_read_length(j, d_mtu);
            // The engine never has more READs out than TX_MAX_RD_ATOMIC (16 at most).
            if (reads >= 16)
                return;
            uint8_t* dest = slot(j % slots);
            d_used[j % slots] = std::max<size_t>(d_used[j % slots], m.length);
            sent = d_rq.read(m.what, m.tag, m.va, m.rkey, m.length, dest, now);
            break;
        }
        case layout::control_read:
            if (d_rq.control_outstanding() || reads >= 16)
                return;
            m.what = tx_requester::kind::control;
            m.tag = d_controls;
            m.va = layout::control_va;
            m.rkey = layout::control_rkey;
            m.length = layout::control_bytes;
            sent = d_rq.read(m.what, m.tag, m.va, m.rkey, m.length, nullptr, now);
            break;
        case layout::notify:
            m.what = tx_requester::kind::notify;
            m.tag = d_notifies;
            m.length = 0;
            sent = d_rq.notify(static_cast<uint32_t>(m.tag), now);
            break;
        default:
            return;
        }
        if (!room) {
            // No room: nothing is queued and nothing is counted.
            require(!sent);
            require(d_rq.reads_outstanding() == reads);
            require(d_rq.sample_reads() == sample_reads);
            check_sent();
            check();
            return;
        }
        require(sent); // the fuzz wire never refuses a packet
        m.packets = layout::packets_of(m.length, d_mtu);
        m.first_psn = d_next_psn;
        d_next_psn = (d_next_psn + m.packets) & psn_mask;
        d_made.push_back(m);
        if (m.what == tx_requester::kind::sample)
            d_samples++;
        else if (m.what == tx_requester::kind::control)
            d_controls++;
        else
            d_notifies++;
        check_sent();
        check();
    }

    void feed(uint8_t flags, uint8_t* packet, size_t length, int64_t now)
    {
        roce::packet p;
        const bool parsed = roce::parse(packet, length, p) == roce::parse_status::ok;
        if (parsed && (flags & 0x01))
            store_be24(packet + 5, tx_source_qpn(0));
        if (parsed && (flags & 0x02) && !d_made.empty()) {
            const made& m = d_made[((flags >> 2) & 3) % d_made.size()];
            store_be24(packet + 9, (m.first_psn + (flags >> 4)) & psn_mask);
        }
        classify(packet, length);
        d_link.data = packet;
        d_link.length = length;
        d_link.pending = true;
        poll(now);
        require(!d_link.pending);
    }

    void poll(int64_t now)
    {
        tx_requester::completion done[tx_requester::max_outstanding];
        const size_t n = d_rq.poll(now, done, tx_requester::max_outstanding);
        require(n <= d_made.size());
        for (size_t i = 0; i < n; i++) {
            // In request order, each one earned by a frame fed after it was made.
            const made m = d_made.front();
            d_made.pop_front();
            require(done[i].what == m.what && done[i].tag == m.tag);
            if (m.what == tx_requester::kind::notify)
                require(d_fed.last_ack > m.frame_issued);
            else
                require(d_fed.last_ends > m.frame_issued);
        }
        check_sent();
        check();
    }

    void finish()
    {
        // Nothing outside a destination changed: the guards, and what lies beyond the
        // longest READ each slot was the destination of. Then all as new again.
        for (size_t s = 0; s < slots; s++) {
            uint8_t* b = slot(s);
            for (size_t i = 0; i < guard; i++)
                require(b[-1 - int(i)] == guard_byte && b[slot_span + i] == guard_byte);
            if (d_used[s] == 0)
                continue;
            for (size_t i = d_used[s]; i < slot_span; i++)
                require(b[i] == fresh_byte);
            std::memset(b, fresh_byte, d_used[s]);
        }
        require(rejected() - d_rejected_before <= d_fed.frames);
        d_acks.clear_tx(0);
    }

private:
    static tx_descriptor descriptor(unsigned mtu, uint32_t loss_ppm, uint32_t psn)
    {
        tx_descriptor d;
        d.host = socket_address(0x7F000002, 4791);
        d.host_qpn = layout::host_qpn;
        d.start_psn = psn & psn_mask;
        d.path_mtu = mtu;
        d.payload_bytes = 3 * mtu;
        d.max_rd_atomic = 16;
        d.emulation.loss_ppm = loss_ppm;
        d.emulation.fault_seed = 7;
        return d;
    }
    static void store_be24(uint8_t* p, uint32_t v)
    {
        p[0] = uint8_t(v >> 16);
        p[1] = uint8_t(v >> 8);
        p[2] = uint8_t(v);
    }
    uint8_t* slot(size_t s) { return d_arena.data() + s * slot_stride + guard; }
    uint64_t rejected() const
    {
        return d_acks.malformed() + d_acks.unknown_qp() + d_acks.overflowed();
    }

    // What the receiver will make of the frame: routed to the stream or not, and what
    // it could do there.
    void classify(const uint8_t* packet, size_t length)
    {
        const uint64_t frame = ++d_fed.frames;
        roce::packet p;
        if (length > ack_receiver::tx_packet_bytes ||
            roce::parse(packet, length, p) != roce::parse_status::ok ||
            roce::transport_of(p.base.opcode) != roce::opcode::rc ||
            !d_link.icrc_verdict || p.base.dest_qp != tx_source_qpn(0))
            return;
        const roce::opcode_info info = roce::describe(p.base.opcode);
        if (!info.is_ack && !info.is_read_response)
            return;
        d_fed.to_stream++;
        if (info.is_read_response) {
            d_fed.responses++;
            if (info.ends_message)
                d_fed.last_ends = frame;
        }
        // A READ RESPONSE carries an AETH too, but is no ACKNOWLEDGE.
        if (info.is_ack) {
            d_fed.acks++;
            const uint8_t type = p.aeth_hdr.syndrome >> 5;
            if (type == 0)
                d_fed.last_ack = frame;
            else if (type >= 2 && p.aeth_hdr.syndrome != roce::syndrome::nak_psn_sequence)
                d_fed.fatal_nak = true;
        }
    }

    // The requester's own account against the target's.
    void check()
    {
        unsigned reads = 0;
        bool control = false;
        for (const made& m : d_made) {
            reads += m.what != tx_requester::kind::notify;
            control = control || m.what == tx_requester::kind::control;
        }
        require(d_rq.reads_outstanding() == reads);
        require(d_rq.control_outstanding() == control);
        require(d_rq.can_send() == (d_made.size() < slots));
        require((d_rq.next_deadline() == INT64_MAX) == d_made.empty());
        require(d_rq.rereads() >= d_rereads);
        d_rereads = d_rq.rereads();
        require(d_rq.sample_reads() >= d_rq.rereads());
        require(d_rq.sample_reads() - d_rq.rereads() == d_samples);
        require(!d_rq.failed() || d_fed.fatal_nak);
        require(d_rq.responses_dropped() <= d_fed.responses);
        require(d_rq.duplicates() <= d_fed.to_stream);
        require(d_rq.naks() <= d_fed.acks);
    }

    // Every packet sent since the last check asks for what an outstanding request
    // wants, at the PSN it has.
    void check_sent()
    {
        for (const std::vector<uint8_t>& bytes : d_link.sent) {
            roce::packet p;
            require(roce::parse(bytes.data(), bytes.size(), p) == roce::parse_status::ok);
            require(p.base.dest_qp == layout::host_qpn);
            const made* owner = nullptr;
            for (const made& m : d_made) {
                const int32_t at = psn_diff(p.base.psn, m.first_psn);
                if (at >= 0 && uint32_t(at) < m.packets)
                    owner = &m;
            }
            require(owner != nullptr);
            const uint32_t packet = psn_diff(p.base.psn, owner->first_psn);
            if (p.base.opcode == (roce::opcode::rc | roce::opcode::send_only_imm)) {
                require(owner->what == tx_requester::kind::notify);
                require(p.has_imm && p.imm == uint32_t(owner->tag) && p.base.ack_req);
                require(p.payload_len == 0);
                continue;
            }
            require(p.base.opcode == (roce::opcode::rc | roce::opcode::read_request));
            require(owner->what != tx_requester::kind::notify && p.has_reth);
            require(p.reth_hdr.rkey == owner->rkey);
            require(p.reth_hdr.va == owner->va + uint64_t(packet) * d_mtu);
            require(p.reth_hdr.va + p.reth_hdr.dma_length == owner->va + owner->length);
        }
        d_link.sent.clear();
    }

    const unsigned d_mtu;
    fuzz_wire& d_link;
    ack_receiver& d_acks;
    tx_requester d_rq;
    uint32_t d_next_psn;
    std::vector<uint8_t>& d_arena;
    std::vector<size_t> d_used; // per slot: the longest READ into it
    const uint64_t d_rejected_before;
    std::deque<made> d_made;
    fed d_fed;
    uint64_t d_samples = 0, d_controls = 0, d_notifies = 0;
    uint64_t d_rereads = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < layout::header_bytes)
        return 0;
    const unsigned mtu = layout::mtu_of(data[0]);
    const uint32_t psn = uint32_t(data[2]) << 16 | uint32_t(data[3]) << 8 | data[4];
    static fixture f;
    bench b(f, mtu, data[0] & 0x08, layout::loss_ppm_of(data[1]), psn);
    int64_t now = 1000000000;
    for (unsigned i = 0; i < unsigned(data[0] >> 4); i++)
        b.request(layout::sample_read, now);

    std::vector<uint8_t> packet;
    size_t at = layout::header_bytes;
    while (at + 3 <= size) {
        const uint8_t flags = data[at];
        const size_t want = size_t(data[at + 1]) << 8 | data[at + 2];
        at += 3;
        const size_t length = std::min(want, size - at);
        packet.assign(data + at, data + at + length);
        at += length;
        const uint8_t action = at < size ? data[at++] : 0;
        b.feed(flags, packet.data(), packet.size(), now);
        now += layout::tick_ns * (action >> 2);
        b.request(action, now);
        b.poll(now); // the timer
    }
    b.finish();
    return 0;
}
