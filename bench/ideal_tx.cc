/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bench_ideal_tx: the best a socket sender can do, as the transmit benchmark's reference
// (docs/performance.md, "Transmit"). One thread; the samples wait in a contiguous ring
// (the ramp, written once before the stream: the producer's cost is not the sender's);
// sendmmsg() in batches of 64 datagrams, each gathered from an 8-byte big-endian
// sequence header and its payload straight from the ring slot, so the only copy of a
// sample byte on the host is the kernel's (ring -> socket buffer). Paced at the sample
// rate: a batch leaves when the stream's clock reaches its first sample (the sender
// sleeps until then), as a socket sender must pace for an SDR that cannot buffer.
//
// CPU is read from the thread's own clock at 20 % and 80 % of the stream after the first
// batch, as the GNU Radio peers do. Prints one JSON line.

#include "bench_posix.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace {

using bench::now_s;

constexpr int batch = 64;
constexpr size_t header_bytes = 8;
constexpr size_t item = 4; // sc16

struct options {
    int port = 0;
    size_t payload = 8192;
    double rate = 0;
    double seconds = 0;
    size_t ring_bytes = 64u << 20;
    int sndbuf = 4 << 20;
};

[[noreturn]] void fail(const char* what) { bench::fail("bench_ideal_tx", what); }

bool parse(int argc, char** argv, options& o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--port")
            o.port = std::stoi(value);
        else if (key == "--payload")
            o.payload = std::stoul(value);
        else if (key == "--rate")
            o.rate = std::stod(value);
        else if (key == "--seconds")
            o.seconds = std::stod(value);
        else if (key == "--ring")
            o.ring_bytes = std::stoul(value);
        else if (key == "--sndbuf")
            o.sndbuf = std::stoi(value);
        else
            return false;
    }
    return argc % 2 == 1 && o.port > 0 && o.rate > 0 && o.seconds > 0 && o.payload > 0 &&
           o.payload % item == 0 && o.ring_bytes >= o.payload;
}

void sleep_until(double t)
{
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(t);
    ts.tv_nsec = static_cast<long>((t - double(ts.tv_sec)) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(
            stderr,
            "usage: bench_ideal_tx --port P --rate S/s --seconds S [--payload B]\n"
            "                      [--ring BYTES] [--sndbuf BYTES]\n"
            "Sends S seconds of sc16 samples at S/s to 127.0.0.1:P as datagrams of\n"
            "an 8-byte big-endian sequence number and B bytes of samples.\n");
        return 2;
    }
    o.ring_bytes -= o.ring_bytes % o.payload;

    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("socket");
    if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &o.sndbuf, sizeof(o.sndbuf)) != 0 &&
        ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o.sndbuf, sizeof(o.sndbuf)) != 0)
        fail("SO_SNDBUF");
    int granted = 0;
    socklen_t len = sizeof(granted);
    ::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &granted, &len);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(o.port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // Connected: the kernel looks the route up once, not per datagram.
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0)
        fail("connect");

    auto* ring = static_cast<uint8_t*>(::mmap(nullptr,
                                              o.ring_bytes,
                                              PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                                              -1,
                                              0));
    if (ring == MAP_FAILED)
        fail("mmap");
    for (size_t k = 0; k < o.ring_bytes / item; k++) {
        const auto value = static_cast<uint32_t>(k);
        std::memcpy(ring + k * item, &value, item);
    }
    uint8_t headers[batch][header_bytes];
    mmsghdr msgs[batch];
    iovec iov[batch][2];

    const double bytes_per_s = o.rate * item;
    const uint64_t total = static_cast<uint64_t>(o.rate * o.seconds) * item / o.payload;
    size_t position = 0;
    uint64_t seq = 0, bytes = 0, syscalls = 0, partial = 0;
    bench::snapshot a, b;
    const double t0 = now_s(CLOCK_MONOTONIC);
    while (seq < total) {
        // The batch leaves when the stream's clock reaches its first byte.
        sleep_until(t0 + double(bytes) / bytes_per_s);
        const int n = static_cast<int>(std::min<uint64_t>(batch, total - seq));
        for (int i = 0; i < n; i++) {
            for (size_t k = 0; k < header_bytes; k++)
                headers[i][k] = static_cast<uint8_t>((seq + i) >> (8 * (7 - k)));
            iov[i][0] = { headers[i], header_bytes };
            iov[i][1] = { ring + position, o.payload };
            position = position + o.payload == o.ring_bytes ? 0 : position + o.payload;
            msgs[i] = {};
            msgs[i].msg_hdr.msg_iov = iov[i];
            msgs[i].msg_hdr.msg_iovlen = 2;
        }
        int sent = 0;
        while (sent < n) { // blocking: a full socket buffer waits
            const int r = ::sendmmsg(fd, msgs + sent, n - sent, 0);
            syscalls++;
            if (r < 0) {
                if (errno == EINTR || errno == ENOBUFS || errno == ECONNREFUSED)
                    continue;
                fail("sendmmsg");
            }
            partial += sent + r < n;
            sent += r;
        }
        seq += n;
        bytes += uint64_t(n) * o.payload;
        const double t = now_s(CLOCK_MONOTONIC);
        bench::take_at(a, t, t0 + 0.2 * o.seconds, bytes);
        bench::take_at(b, t, t0 + 0.8 * o.seconds, bytes);
    }
    std::printf(
        "{\"items\": %llu, \"datagrams\": %llu, \"sendmmsg_calls\": %llu, "
        "\"partial_sends\": %llu, \"sndbuf_granted\": %d, \"ring_bytes\": %zu, "
        "\"window\": {\"t0\": %.9f, \"t1\": %.9f, \"cpu0\": %.9f, \"cpu1\": %.9f, "
        "\"bytes0\": %llu, \"bytes1\": %llu, \"valid\": %s}, \"cpu_total_s\": %.6f, "
        "\"elapsed_s\": %.6f}\n",
        static_cast<unsigned long long>(bytes / item),
        static_cast<unsigned long long>(seq),
        static_cast<unsigned long long>(syscalls),
        static_cast<unsigned long long>(partial),
        granted,
        o.ring_bytes,
        a.t,
        b.t,
        a.cpu,
        b.cpu,
        static_cast<unsigned long long>(a.bytes),
        static_cast<unsigned long long>(b.bytes),
        a.taken && b.taken ? "true" : "false",
        now_s(CLOCK_PROCESS_CPUTIME_ID),
        now_s(CLOCK_MONOTONIC) - t0);
    ::munmap(ring, o.ring_bytes);
    ::close(fd);
    return 0;
}
