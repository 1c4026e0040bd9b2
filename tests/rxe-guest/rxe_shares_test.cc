/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rxe_shares_test: one stream split over two hosts on real verbs (docs/links.md,
// "Several hosts"). Two processes, each an rx_stream with nic=verbs on its own rxe
// device: share 0's host on rxe0 (veth0), reached over device link 0, share 1's on rxe1
// (veth2), reached over link 1, which its host picks because its NIC routes there. A
// finite ramp burst of many ring wraps: each host must receive exactly its share's
// samples, each the ramp's value of the stream sample it is, its own identity must hold
// and the two must add up to the stream's.
//
// With the argument "links", share 1's host goes over both links (links=2, weights
// 1:1, nic_addr=rxe0's+rxe1's: its destinations 4 and 5), and each must carry half of
// its share's messages.
//
// Runs in the rxe guest (docs/rxe-guest.md), with the emulator daemon of rxe_links_test.

#include "axioe/axioe_client.h"
#include "guest_check.h"
#include "regs/register_map.h"
#include "stream/share_layout.h"
#include <gnuradio/rdma/ramp.h>
#include <gnuradio/rdma/rx_stream.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <map>
#include <string>

using namespace gr::rdma;
using namespace std::chrono_literals;

namespace {

constexpr double rate = 5e5;
// The ring holds latency= (300 ms; the guest's emulator has a 100 ms FIFO, which the
// grace must cover) at the stream's rate, and a host receives half of the stream:
// 6.6 s are 11 wraps of each host's ring.
constexpr double seconds = 6.6;

// What a host tells the other about its run: its share's count and accounting.
struct share_result {
    uint64_t emitted = 0, delivered = 0, lost = 0, stream_emitted = 0;
    int failures = 1;
};

// Where a host's destinations are: its NIC (device args), and whether over two links
// (share 1's destinations 4 on link 0, rxe0, and 5 on link 1, rxe1).
struct host_nic {
    std::string args;
    bool two_links = false;
};

host_nic one_nic(const char* ip) { return { std::string("nic_addr=") + ip, false }; }

host_nic both_links()
{
    // link_timeout=0: the guest is slow, and failover is not what this run checks.
    return { std::string("links=2,weights=1:1,link_timeout=0,nic_addr=") +
                 rxe_guest::host_ip + "+" + rxe_guest::host_ip_1,
             true };
}

std::string args(unsigned share, const host_nic& nic)
{
    return std::string("type=remote,addr=") + rxe_guest::device_ip + ",nic=verbs," +
           nic.args + ",share=" + std::to_string(share) +
           "/2,hugepages=off,latency=0.3,grace=0.15,share_wait=20";
}

// Over several links: each carried its weight's part of the share's messages.
void check_links(rxe_guest::checker& check, std::map<std::string, uint64_t>& c)
{
    const uint64_t m0 = c["host.link0.messages"], m1 = c["host.link1.messages"];
    check.note("link 0 carried " + std::to_string(m0) + " messages, link 1 " +
               std::to_string(m1));
    check.expect(m0 + m1 > 0 && m0 * 100 <= (m0 + m1) * 51 && m1 * 100 <= (m0 + m1) * 51,
                 "the share's two links carried 1:1 within 1 %");
    check.expect_eq(c["host.links_unattributed_messages"],
                    uint64_t(0),
                    "every message of the share on a link");
}

share_result run_share(unsigned share, const host_nic& nic, uint64_t burst)
{
    rxe_guest::checker check("rxe_shares_test share " + std::to_string(share));
    share_result r;
    try {
        rx_stream stream(args(share, nic), "sc16", rate, burst);
        const share_layout layout(
            stream.share_index(), stream.share_count(), stream.share_block_items(), 1);
        const uint64_t mine = layout.local_below(burst);
        check.note("ring " + std::to_string(stream.ring_items()) + " items; " +
                   std::to_string(mine) + " of the burst's " + std::to_string(burst) +
                   " samples are this share's: " +
                   std::to_string(mine / stream.ring_items()) + " ring wraps");
        check.expect(mine / stream.ring_items() >= 10, "at least 10 ring wraps");
        stream.start();
        ramp_errors errors;
        uint64_t delivered = 0;
        bool end = false;
        for (int idle = 0; !end && idle < 10;) {
            const rx_stream::chunk c = stream.recv(stream.ring_items(), 1s);
            if (c.items == 0 && !c.end_of_stream) {
                idle++;
                continue;
            }
            idle = 0;
            // Each block of the share is a run of consecutive stream samples.
            const auto* p = static_cast<const uint8_t*>(c.data);
            for (uint64_t done = 0; done < c.items;) {
                const uint64_t local = c.first_item + done;
                const uint64_t n =
                    std::min<uint64_t>(c.items - done, layout.run_from(local));
                check_ramp(sample_format::sc16,
                           layout.stream_sample(local),
                           p + done * 4,
                           n,
                           errors);
                done += n;
            }
            for (const rx_event& e : rxe_guest::take_events(stream))
                if (e.type != rx_event::kind::time && e.type != rx_event::kind::tune)
                    check.note("stream reports " + rxe_guest::describe(e));
            delivered += c.items;
            stream.release(c.items);
            end = c.end_of_stream;
        }
        check.expect(end, "the share's burst ended (end_of_stream)");
        check.expect_eq(delivered, mine, "this share's samples delivered");
        check.expect_eq(errors.mismatches,
                        uint64_t(0),
                        "every sample the ramp of its stream sample, bit-exact");
        stream.stop();
        auto c = stream.read_counters();
        r.emitted = c["device.samples_emitted"];
        r.stream_emitted = c["device.stream_samples_emitted"];
        r.delivered = c["host.delivered"];
        r.lost = c["host.lost"];
        check.expect_eq(r.emitted, mine, "SHARE_SAMPLES_EMITTED == the share's samples");
        check.expect_eq(r.emitted,
                        r.delivered + r.lost,
                        "this host's identity: emitted == delivered + lost");
        if (nic.two_links)
            check_links(check, c);
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    r.failures = check.status();
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    const bool links = argc > 1 && std::string(argv[1]) == "links";
    const uint64_t burst = static_cast<uint64_t>(rate * seconds);
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return 1;
    // Two processes, as two hosts: share 1's in a child, before any thread exists.
    const pid_t child = fork();
    if (child == 0) {
        close(pipe_fds[0]);
        const share_result r =
            run_share(1, links ? both_links() : one_nic(rxe_guest::host_ip_1), burst);
        const ssize_t n = write(pipe_fds[1], &r, sizeof(r));
        _exit(n == sizeof(r) && r.failures == 0 ? 0 : 1);
    }
    close(pipe_fds[1]);
    const share_result mine = run_share(0, one_nic(rxe_guest::host_ip), burst);
    share_result other;
    const bool got = read(pipe_fds[0], &other, sizeof(other)) == sizeof(other);
    int status = 1;
    waitpid(child, &status, 0);

    rxe_guest::checker check("rxe_shares_test");
    check.expect(got, "share 1's host reported its run");
    check.expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "share 1's host passed");
    check.expect_eq(mine.failures, 0, "share 0's host passed");
    check.expect_eq(mine.emitted + other.emitted,
                    burst,
                    "the shares' SHARE_SAMPLES_EMITTED add up to the burst");
    check.expect_eq(mine.stream_emitted, burst, "RX_SAMPLES_EMITTED == the burst");
    check.expect_eq(mine.delivered + other.delivered + mine.lost + other.lost,
                    burst,
                    "the stream's identity: emitted == sum delivered + sum lost");
    try {
        axioe::client axi(socket_address::parse(rxe_guest::device_control));
        check.expect(axi.read32(regs::link_reg(1, regs::link::tx_packets_lo)) > 0,
                     "link 1 carried share 1's packets");
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    return check.status();
}
