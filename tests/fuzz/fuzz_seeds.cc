/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Fuzz seeds built with the project's RoCEv2 codec, so that they are what a peer really
// sends (and stay so when the codec changes: the tests fuzz_*_seeds check them):
//  * tx_response (corpus/tx_response/, all of it): what a host NIC answers to the
//    device's READs and notifications (READ RESPONSE FIRST, MIDDLE, LAST and ONLY,
//    ACK), and what goes wrong (a NAK, a gap, a duplicate, a fatal NAK, RNR, loss, a
//    full request queue). Layout: tx_response_layout.h.
//  * read_request (corpus/read_request/send_*.bin): the device's SEND ONLY and SEND
//    ONLY WITH IMMEDIATE notifications to the soft NIC's responder, among READs.
//    Layout: fuzz_read_request.cc.
//
//   fuzz_seeds write <set> <dir>   write the set's seeds into <dir>
//   fuzz_seeds check <set> <dir>   exit 1 unless <dir> holds these seeds as built now
//                                  (tx_response: and nothing else)

#include "roce/roce_packet.h"
#include "tx_response_layout.h"
#include <dirent.h>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

using namespace gr::rdma;
namespace layout = tx_response_layout;

namespace {

constexpr uint32_t stream_qpn = 0x200; // tx_source_qpn(0)

class seed
{
public:
    seed(unsigned mtu_index, uint8_t sample_reads, uint32_t psn, uint8_t loss = 0)
        : d_mtu(256u << mtu_index), d_next_psn(psn)
    {
        d_bytes = { uint8_t(mtu_index | 0x08 | (sample_reads << 4)),
                    loss,
                    uint8_t(psn >> 16),
                    uint8_t(psn >> 8),
                    uint8_t(psn) };
        for (uint8_t i = 0; i < sample_reads; i++)
            issued(layout::sample_read);
    }

    //! The PSNs of request \p i (in the order the target makes them).
    uint32_t first_psn(size_t i) const { return d_psns.at(i); }
    unsigned mtu() const { return d_mtu; }

    //! The READ RESPONSEs to the whole of request \p i (a sample or the control page).
    seed& answer(size_t i, uint8_t action = 0)
    {
        const uint32_t length = d_lengths.at(i);
        const uint32_t packets = layout::packets_of(length, d_mtu);
        for (uint32_t k = 0; k < packets; k++)
            response(first_psn(i) + k, k, packets, length, k + 1 == packets ? action : 0);
        return *this;
    }

    //! READ RESPONSE packet \p k of \p packets of a READ of \p length bytes.
    seed&
    response(uint32_t psn, uint32_t k, uint32_t packets, uint32_t length, uint8_t action)
    {
        uint8_t op = roce::opcode::read_response_only;
        if (packets > 1)
            op = k == 0             ? roce::opcode::read_response_first
                 : k + 1 == packets ? roce::opcode::read_response_last
                                    : roce::opcode::read_response_middle;
        const uint32_t payload = k + 1 == packets ? length - k * d_mtu : d_mtu;
        std::vector<uint8_t> data(payload);
        for (uint32_t b = 0; b < payload; b++)
            data[b] = uint8_t(psn * 7 + b);
        roce::aeth a;
        a.syndrome = roce::syndrome::ack_unlimited;
        a.msn = psn & 0xFFFFFF;
        // FIRST and LAST carry an AETH, MIDDLE none (roce::describe knows which).
        return frame(op, psn, &a, data, action);
    }

    seed& ack(uint32_t psn, uint8_t syndrome, uint8_t action = 0)
    {
        roce::aeth a;
        a.syndrome = syndrome;
        a.msn = 1;
        return frame(roce::opcode::acknowledge, psn, &a, {}, action);
    }

    //! A record with no datagram: only an action.
    seed& act(uint8_t action)
    {
        d_bytes.insert(d_bytes.end(), { 0, 0, 0, action });
        issued(action);
        return *this;
    }

    const std::vector<uint8_t>& bytes() const { return d_bytes; }

private:
    seed& frame(uint8_t op,
                uint32_t psn,
                const roce::aeth* a,
                const std::vector<uint8_t>& payload,
                uint8_t action)
    {
        roce::bth b;
        b.opcode = roce::opcode::rc | op;
        b.dest_qp = stream_qpn;
        b.psn = psn & 0xFFFFFF;
        b.pad_count = roce::pad_for(payload.size());
        std::vector<uint8_t> packet(64 + payload.size());
        const size_t headers = roce::write_headers(packet.data(), b, nullptr, nullptr, a);
        std::copy(payload.begin(), payload.end(), packet.begin() + headers);
        const size_t length = roce::finish(packet.data(), headers, payload.size());
        packet.resize(length);
        roce::ip_context ip;
        ip.src_ip = 0x7F000002;
        ip.dst_ip = 0x7F000001;
        roce::seal_udp(ip, packet.data(), packet.size());
        d_bytes.push_back(0); // flags: the frame as built
        d_bytes.push_back(uint8_t(length >> 8));
        d_bytes.push_back(uint8_t(length));
        d_bytes.insert(d_bytes.end(), packet.begin(), packet.end());
        d_bytes.push_back(action);
        issued(action);
        return *this;
    }

    void issued(uint8_t action)
    {
        uint32_t length = 0;
        switch (action & 3) {
        case layout::sample_read:
            length = layout::sample_read_length(d_samples++, d_mtu);
            break;
        case layout::control_read:
            length = layout::control_bytes;
            break;
        case layout::notify:
            break;
        default:
            return;
        }
        d_psns.push_back(d_next_psn);
        d_lengths.push_back(length);
        d_next_psn = (d_next_psn + layout::packets_of(length, d_mtu)) & 0xFFFFFF;
    }

    unsigned d_mtu;
    uint32_t d_next_psn;
    uint64_t d_samples = 0;
    std::vector<uint32_t> d_psns, d_lengths;
    std::vector<uint8_t> d_bytes;
};

// Actions: what the target requests after a record, and how far its clock moves.
constexpr uint8_t later(uint8_t ticks, uint8_t what = 0)
{
    return uint8_t(ticks << 2 | what);
}

std::map<std::string, std::vector<uint8_t>> tx_response_seeds()
{
    std::map<std::string, std::vector<uint8_t>> out;
    {
        // 1 KiB MTU: ONLY, FIRST + LAST (short), FIRST + MIDDLE + LAST; a control READ.
        seed s(2, 3, 0x000100);
        s.answer(0).answer(1).answer(2, later(1, layout::control_read)).answer(3);
        out["responses_only_first_middle_last.bin"] = s.bytes();
    }
    {
        // The PSN wraps inside a READ, at a 256-byte MTU.
        seed s(0, 2, 0xFFFFFE);
        s.answer(0).answer(1);
        out["responses_psn_wrap.bin"] = s.bytes();
    }
    {
        // Notifications, acknowledged one by one, then two at once.
        seed s(2, 0, 0x123456);
        s.act(later(0, layout::notify))
            .ack(s.first_psn(0), roce::syndrome::ack_unlimited);
        s.act(later(0, layout::notify)).act(later(0, layout::notify));
        s.ack(s.first_psn(2), roce::syndrome::ack_unlimited);
        out["notify_ack.bin"] = s.bytes();
    }
    {
        // A gap: the second READ's response first, a go-back, then the replay; a
        // duplicate of a completed response.
        seed s(2, 2, 0x000010);
        s.response(s.first_psn(1), 0, 2, layout::sample_read_length(1, 1024), 0);
        s.answer(0).answer(1);
        s.response(s.first_psn(0), 0, 1, 1024, 0);
        out["gap_then_replay_and_duplicate.bin"] = s.bytes();
    }
    {
        // A PSN sequence NAK, then the replay after a timeout.
        seed s(3, 2, 0x00ABCD);
        s.ack(s.first_psn(0), roce::syndrome::nak_psn_sequence, later(20));
        s.answer(0).answer(1);
        out["nak_sequence_then_timeout_replay.bin"] = s.bytes();
    }
    {
        // RNR on a notification (no receive posted), sent again on timeout, then ACKed.
        seed s(2, 0, 0x000001);
        s.act(later(0, layout::notify));
        s.ack(s.first_psn(0), roce::syndrome::rnr_nak | 0x0E, later(10));
        s.ack(s.first_psn(0), roce::syndrome::ack_unlimited);
        out["rnr_then_ack.bin"] = s.bytes();
    }
    {
        // A fatal NAK (remote access): the host's QP is in ERROR.
        seed s(2, 1, 0x000500);
        s.ack(s.first_psn(0),
              roce::syndrome::nak_remote_access,
              later(1, layout::sample_read));
        s.answer(1);
        out["nak_remote_access.bin"] = s.bytes();
    }
    {
        // Half the responses lost on arrival (EMU_TX_LOSS_PPM): timeouts, re-reads.
        seed s(4, 3, 0x777777, 128);
        for (int round = 0; round < 3; round++)
            s.answer(0, later(8)).answer(1, later(8)).answer(2, later(8));
        out["loss_half.bin"] = s.bytes();
    }
    {
        // The request queue full of unacknowledged notifications: no room for more
        // notifications, nor for a READ (the requests the target could not make are
        // numbered here all the same; only request 0 is answered).
        seed s(0, 1, 0x000000);
        for (int i = 0; i < 70; i++)
            s.act(later(0, layout::notify));
        s.act(later(0, layout::sample_read));
        s.answer(0);
        out["queue_full.bin"] = s.bytes();
    }
    return out;
}

// ---- read_request: [setup][PSN 3 bytes], then [flags][length 2 bytes][datagram].
class request_seed
{
public:
    static constexpr uint8_t seal = 0x01, to_qp = 0x02, our_rkey = 0x04, our_va = 0x08,
                             post_receive = 0x20;

    //! RC, the QP grants remote READ, 1 KiB path MTU, max_dest_rd_atomic 16.
    explicit request_seed(uint32_t psn) : d_psn(psn)
    {
        d_bytes = { uint8_t(0x04 | 2 << 3 | 3 << 6),
                    uint8_t(psn >> 16),
                    uint8_t(psn >> 8),
                    uint8_t(psn) };
    }

    //! SEND ONLY, or SEND ONLY WITH IMMEDIATE \p imm, at the next PSN (or \p psn).
    request_seed& send(bool with_imm,
                       uint32_t imm,
                       bool ack_req,
                       size_t payload = 0,
                       uint8_t flags = 0,
                       int64_t psn = -1)
    {
        roce::bth b;
        b.opcode = roce::opcode::rc |
                   (with_imm ? roce::opcode::send_only_imm : roce::opcode::send_only);
        b.ack_req = ack_req;
        b.psn = psn < 0 ? next() : uint32_t(psn);
        b.pad_count = roce::pad_for(payload);
        std::vector<uint8_t> packet(64 + payload);
        const size_t headers =
            roce::write_headers(packet.data(), b, nullptr, with_imm ? &imm : nullptr);
        for (size_t i = 0; i < payload; i++)
            packet[headers + i] = uint8_t(i + 1);
        packet.resize(roce::finish(packet.data(), headers, payload));
        return record(uint8_t(seal | to_qp | flags), packet);
    }

    //! A READ REQUEST of \p length bytes at \p offset into the region.
    request_seed& read(uint32_t offset, uint32_t length)
    {
        roce::bth b;
        b.opcode = roce::opcode::rc | roce::opcode::read_request;
        b.psn = d_psn;
        d_psn = (d_psn + std::max<uint32_t>(1, (length + 1023) / 1024)) & 0xFFFFFF;
        roce::reth r;
        r.va = 4096 + offset; // our_va: the region's start - 4096 + (VA mod 16384)
        r.dma_length = length;
        std::vector<uint8_t> packet(64);
        packet.resize(
            roce::finish(packet.data(), roce::write_headers(packet.data(), b, &r), 0));
        return record(seal | to_qp | our_rkey | our_va, packet);
    }

    const std::vector<uint8_t>& bytes() const { return d_bytes; }

private:
    uint32_t next()
    {
        const uint32_t psn = d_psn;
        d_psn = (d_psn + 1) & 0xFFFFFF;
        return psn;
    }
    request_seed& record(uint8_t flags, const std::vector<uint8_t>& packet)
    {
        d_bytes.push_back(flags);
        d_bytes.push_back(uint8_t(packet.size() >> 8));
        d_bytes.push_back(uint8_t(packet.size()));
        d_bytes.insert(d_bytes.end(), packet.begin(), packet.end());
        return *this;
    }

    uint32_t d_psn;
    std::vector<uint8_t> d_bytes;
};

std::map<std::string, std::vector<uint8_t>> read_request_seeds()
{
    std::map<std::string, std::vector<uint8_t>> out;
    {
        // Notifications as the device sends them (AckReq set), one without AckReq,
        // then a duplicate of the first: ACKed again, not completed twice.
        request_seed s(0x000100);
        s.send(true, 16, true).send(true, 32, false).send(true, 48, true);
        s.send(true, 16, true, 0, 0, 0x000100);
        out["send_only_imm.bin"] = s.bytes();
    }
    {
        // SEND ONLY without immediate, then one that carries a payload: the receive
        // has no buffer, a class C error (NAK, the QP in ERROR).
        request_seed s(0xFFFFFF);
        s.send(false, 0, true).send(false, 0, true, 4);
        out["send_only.bin"] = s.bytes();
    }
    {
        // More notifications than receives posted (4): RNR NAK; one posted, it goes.
        request_seed s(0x00ABCD);
        for (int i = 0; i < 5; i++)
            s.send(true, uint32_t(16 * (i + 1)), true);
        s.send(true, 80, true, 0, request_seed::post_receive, 0x00ABCD + 4);
        out["send_rnr_then_posted.bin"] = s.bytes();
    }
    {
        // Notifications among READs of the region, in one PSN sequence.
        request_seed s(0x000010);
        s.read(0, 1024).send(true, 16, true).read(1024, 3000).send(true, 32, true);
        out["send_among_reads.bin"] = s.bytes();
    }
    return out;
}

std::map<std::string, std::vector<uint8_t>> seeds_of(const std::string& set)
{
    if (set == "tx_response")
        return tx_response_seeds();
    if (set == "read_request")
        return read_request_seeds();
    return {};
}

std::vector<uint8_t> read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>() };
}

} // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc == 4 ? argv[1] : "";
    const std::string set = argc == 4 ? argv[2] : "";
    const auto all = seeds_of(set);
    if ((mode != "write" && mode != "check") || all.empty()) {
        std::fprintf(
            stderr, "usage: %s write|check tx_response|read_request <dir>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[3];
    if (mode == "write") {
        for (const auto& [name, bytes] : all) {
            std::ofstream f(dir + "/" + name, std::ios::binary);
            f.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
            if (!f) {
                std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name.c_str());
                return 1;
            }
        }
        return 0;
    }
    int bad = 0;
    for (const auto& [name, bytes] : all)
        if (read_file(dir + "/" + name) != bytes) {
            std::fprintf(stderr,
                         "%s/%s is not what the codec builds now\n",
                         dir.c_str(),
                         name.c_str());
            bad = 1;
        }
    // The TX response corpus is all generated: nothing else belongs there.
    size_t files = 0;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d))
            files += e->d_name[0] != '.';
        closedir(d);
    }
    if (set == "tx_response" && files != all.size()) {
        std::fprintf(stderr,
                     "%s holds %zu files, the seeds are %zu\n",
                     dir.c_str(),
                     files,
                     all.size());
        bad = 1;
    }
    if (bad)
        std::fprintf(
            stderr, "rewrite them: %s write %s %s\n", argv[0], set.c_str(), dir.c_str());
    return bad;
}
