/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bench_ideal_rx: the best a socket receiver can do, as the benchmarks' reference
// (docs/performance.md). One thread; recvmmsg() in batches of 64, blocking for the
// first datagram of a batch (MSG_WAITFORONE); scatter-gather puts each 8-byte
// sequence header into a scratch array and each payload straight into the next slot of
// a contiguous ring, so the only copy of a sample byte on the host is the kernel's
// (socket buffer -> ring). Sequence gaps are counted as loss.
//
// CPU is read from the thread's own clock at two points of the stream (20 % and 80 %
// of the expected burst after the first datagram), as the GNU Radio peers do. Prints
// one JSON line.

#include "bench_posix.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

constexpr int batch = 64;
constexpr size_t header_bytes = 8;

using bench::now_s;
using bench::snapshot;

struct options {
    int port = 0;
    size_t payload = 8192;
    size_t item = 4;
    uint64_t samples = 0;
    double rate = 0;
    size_t ring_bytes = 64u << 20;
    int rcvbuf = 32 << 20;
    bool check = false;
};

[[noreturn]] void fail(const char* what) { bench::fail("bench_ideal_rx", what); }

bool parse(int argc, char** argv, options& o)
{
    for (int i = 1; i < argc; i++) {
        const std::string key = argv[i];
        if (key == "--check") {
            o.check = true;
            continue;
        }
        if (i + 1 >= argc)
            return false;
        const std::string value = argv[++i];
        if (key == "--port")
            o.port = std::stoi(value);
        else if (key == "--payload")
            o.payload = std::stoul(value);
        else if (key == "--item")
            o.item = std::stoul(value);
        else if (key == "--samples")
            o.samples = std::stoull(value);
        else if (key == "--rate")
            o.rate = std::stod(value);
        else if (key == "--ring")
            o.ring_bytes = std::stoul(value);
        else if (key == "--rcvbuf")
            o.rcvbuf = std::stoi(value);
        else
            return false;
    }
    return o.port > 0 && o.samples > 0 && o.rate > 0 && o.payload % o.item == 0;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(
            stderr,
            "usage: bench_ideal_rx --port P --rate S/s --samples N [--payload B] "
            "[--item 4|8] [--ring BYTES] [--rcvbuf BYTES] [--check]\n");
        return 2;
    }
    o.ring_bytes -= o.ring_bytes % o.payload;

    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("socket");
    // As the soft NIC asks: forced when permitted (CAP_NET_ADMIN), else capped by
    // net.core.rmem_max.
    if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &o.rcvbuf, sizeof(o.rcvbuf)) != 0 &&
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o.rcvbuf, sizeof(o.rcvbuf)) != 0)
        fail("SO_RCVBUF");
    int granted = 0;
    socklen_t len = sizeof(granted);
    ::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &len);
    const timeval tick{ 0, 100000 }; // wake up to notice the end of the burst
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof(tick));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(o.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
        fail("bind");

    auto* ring = static_cast<uint8_t*>(::mmap(nullptr,
                                              o.ring_bytes,
                                              PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                                              -1,
                                              0));
    if (ring == MAP_FAILED)
        fail("mmap");
    std::vector<uint8_t> headers(batch * header_bytes);
    mmsghdr msgs[batch];
    iovec iov[batch][2];

    std::printf("READY\n");
    std::fflush(stdout);

    const double burst_s = double(o.samples) / o.rate;
    const uint64_t expected_bytes = o.samples * o.item;
    size_t position = 0;
    uint64_t bytes = 0, datagrams = 0, bad_length = 0, seq_lost = 0, reordered = 0;
    uint64_t next_seq = 0, check_failures = 0, syscalls = 0;
    double t_first = 0, t_last = 0;
    snapshot a, b;
    while (bytes < expected_bytes) {
        for (int i = 0; i < batch; i++) {
            iov[i][0] = { headers.data() + i * header_bytes, header_bytes };
            iov[i][1] = { ring + position, o.payload };
            position = position + o.payload == o.ring_bytes ? 0 : position + o.payload;
            msgs[i] = {};
            msgs[i].msg_hdr.msg_iov = iov[i];
            msgs[i].msg_hdr.msg_iovlen = 2;
        }
        const int n = ::recvmmsg(fd, msgs, batch, MSG_WAITFORONE, nullptr);
        syscalls++;
        const double t = now_s(CLOCK_MONOTONIC);
        // Slots handed to the kernel but not filled are taken back.
        const int unused = n > 0 ? batch - n : batch;
        position = (position + o.ring_bytes - (unused * o.payload) % o.ring_bytes) %
                   o.ring_bytes;
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EINTR)
                fail("recvmmsg");
            if (datagrams && t - t_last > 0.5 && t - t_first > burst_s)
                break; // the burst is over and the rest is lost
            continue;
        }
        if (!datagrams)
            t_first = t;
        t_last = t;
        for (int i = 0; i < n; i++) {
            const size_t length = msgs[i].msg_len;
            // Every datagram is a full payload but the last of the burst.
            if (length <= header_bytes || length > header_bytes + o.payload ||
                (length - header_bytes) % o.item) {
                bad_length++;
                continue;
            }
            uint64_t seq = 0;
            for (size_t k = 0; k < header_bytes; k++)
                seq = (seq << 8) | headers[i * header_bytes + k];
            if (seq > next_seq)
                seq_lost += seq - next_seq;
            else if (seq < next_seq)
                reordered++;
            next_seq = seq + 1;
            if (o.check) {
                // Pointer test: the payload is where the ring slot is (the kernel wrote
                // it there), and it is the ramp sample the sequence number names.
                uint32_t first = 0;
                std::memcpy(&first, iov[i][1].iov_base, 4);
                if (first != static_cast<uint32_t>(seq * (o.payload / o.item)))
                    check_failures++;
            }
            bytes += length - header_bytes;
            datagrams++;
        }
        bench::take_at(a, t, t_first + 0.2 * burst_s, bytes);
        bench::take_at(b, t, t_first + 0.8 * burst_s, bytes);
    }
    std::printf(
        "{\"items\": %llu, \"datagrams\": %llu, \"seq_lost\": %llu, \"reordered\": %llu, "
        "\"bad_length\": %llu, \"recvmmsg_calls\": %llu, \"check_failures\": %llu, "
        "\"checked\": %s, \"rcvbuf_granted\": %d, \"ring_bytes\": %zu, "
        "\"window\": {\"t0\": %.9f, \"t1\": %.9f, \"cpu0\": %.9f, \"cpu1\": %.9f, "
        "\"bytes0\": %llu, \"bytes1\": %llu, \"valid\": %s}, \"cpu_total_s\": %.6f}\n",
        static_cast<unsigned long long>(bytes / o.item),
        static_cast<unsigned long long>(datagrams),
        static_cast<unsigned long long>(seq_lost),
        static_cast<unsigned long long>(reordered),
        static_cast<unsigned long long>(bad_length),
        static_cast<unsigned long long>(syscalls),
        static_cast<unsigned long long>(check_failures),
        o.check ? "true" : "false",
        granted,
        o.ring_bytes,
        a.t,
        b.t,
        a.cpu,
        b.cpu,
        static_cast<unsigned long long>(a.bytes),
        static_cast<unsigned long long>(b.bytes),
        a.taken && b.taken ? "true" : "false",
        now_s(CLOCK_PROCESS_CPUTIME_ID));
    ::munmap(ring, o.ring_bytes);
    ::close(fd);
    return 0;
}
