/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TESTS_RXE_GUEST_GUEST_CHECK_H
#define INCLUDED_RDMA_TESTS_RXE_GUEST_GUEST_CHECK_H

// Helpers shared by the programs that run inside the rxe guest (docs/rxe-guest.md):
// a checker that prints one line per check and turns failures into the exit status,
// and rxe's own packet counters. Test code: it prints.

#include "axioe/axioe_client.h"
#include "regs/register_map.h"
#include <gnuradio/rdma/rx_event.h>
#include <gnuradio/rdma/rx_stream.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rxe_guest {

//! The guest's fixed addresses (tests/rxe-guest/guest-init.sh).
constexpr const char* host_ip = "192.0.2.1";   // veth0, root namespace, carries rxe0
constexpr const char* device_ip = "192.0.2.2"; // veth1, namespace dev, the emulator
constexpr const char* device_control = "192.0.2.2:50100";
constexpr const char* rxe_device = "rxe0";
// The second link (docs/links.md): veth2 carries rxe1, the device's link 1 is on veth3.
constexpr const char* host_ip_1 = "198.51.100.1";   // veth2, root namespace, rxe1
constexpr const char* device_ip_1 = "198.51.100.2"; // veth3, namespace dev, link 1
constexpr const char* rxe_device_1 = "rxe1";

//! Collects the outcome of a test's checks; a test fails if any check failed.
class checker
{
public:
    explicit checker(std::string name) : d_name(std::move(name)) {}

    bool expect(bool ok, const std::string& what)
    {
        std::printf("%s: %s: %s\n", d_name.c_str(), ok ? "ok" : "FAIL", what.c_str());
        std::fflush(stdout);
        d_failures += ok ? 0 : 1;
        return ok;
    }

    template <typename A, typename B>
    bool expect_eq(const A& got, const B& want, const std::string& what)
    {
        std::ostringstream s;
        s << what << " (got " << got << ", want " << want << ")";
        return expect(got == want, s.str());
    }

    void note(const std::string& text)
    {
        std::printf("%s: %s\n", d_name.c_str(), text.c_str());
        std::fflush(stdout);
    }

    unsigned failures() const { return d_failures; }
    //! Exit status of the test program.
    int status() const
    {
        std::printf("%s: %s (%u failed check(s))\n",
                    d_name.c_str(),
                    d_failures ? "FAILED" : "PASSED",
                    d_failures);
        return d_failures ? 1 : 0;
    }

private:
    std::string d_name;
    unsigned d_failures = 0;
};

//! An rxe port counter (rxe_hw_counters.c): rcvd_pkts, sent_pkts, out_of_seq_request...
//! One raw sysfs read: it may be a cached value (see rxe_counters_settled).
inline uint64_t rxe_counter(const std::string& name,
                            const std::string& device = rxe_device,
                            unsigned port = 1)
{
    const std::string path = "/sys/class/infiniband/" + device + "/ports/" +
                             std::to_string(port) + "/hw_counters/" + name;
    std::ifstream in(path);
    uint64_t value = 0;
    if (!(in >> value))
        throw std::runtime_error("cannot read rxe counter " + path);
    return value;
}

/*!
 * rxe's port counters \p names, read so that none is stale. The RDMA core caches a
 * port's hw_counters for hw_counters/lifespan ms (update_hw_stats: a read within that
 * time of the last refresh, by anyone, returns the values of that refresh; 10 ms by
 * default, rounded up to jiffies). A burst shorter than that, read before and after,
 * shows a delta of 0. So: wait out a lifespan (plus a tick either side), read, wait and
 * read again, until two reads agree. A first read that differs from the next was
 * stale, or packets were still arriving; \p check notes which counters moved, under
 * \p label, so a failure says which read was cached.
 */
inline std::map<std::string, uint64_t>
rxe_counters_settled(const std::vector<std::string>& names,
                     checker& check,
                     const std::string& label,
                     const std::string& device = rxe_device,
                     unsigned port = 1)
{
    const unsigned lifespan_ms =
        static_cast<unsigned>(rxe_counter("lifespan", device, port));
    // A jiffy is at most 10 ms (HZ >= 100); the cache holds while
    // jiffies <= refresh + lifespan, so lifespan + two jiffies is past it for sure.
    const auto wait = std::chrono::milliseconds(lifespan_ms + 20);
    const auto read = [&] {
        std::this_thread::sleep_for(wait);
        std::map<std::string, uint64_t> out;
        for (const auto& n : names)
            out[n] = rxe_counter(n, device, port);
        return out;
    };
    auto last = read();
    for (int attempt = 0; attempt < 10; attempt++) {
        auto next = read();
        if (next == last)
            return next;
        std::string moved;
        for (const auto& [n, v] : next)
            if (last[n] != v)
                moved +=
                    " " + n + " " + std::to_string(last[n]) + "->" + std::to_string(v);
        check.note(label + "rxe counters moved between two reads " +
                   std::to_string(wait.count()) + " ms apart (the first was cached, or " +
                   "packets were still arriving):" + moved);
        last = std::move(next);
    }
    check.note(label + "rxe counters did not settle in 10 reads; using the last");
    return last;
}

/*!
 * Wait until RX stream \p s of the device reports DONE (finite burst sent completely).
 * The device accounts a batch after the wire took it, so the host may hold the last
 * completion of a burst before the device's counters include it: read them after DONE.
 */
inline bool wait_device_done(gr::rdma::axioe::client& axi,
                             unsigned s = 0,
                             std::chrono::milliseconds patience = std::chrono::seconds(5))
{
    namespace regs = gr::rdma::regs;
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (!(axi.read32(regs::rx_reg(s, regs::rx::status)) & regs::status::done)) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

/*!
 * The stream's counters once a finite burst is over (call after the device reported
 * DONE). The stream may hand out the end of a burst as final by the clock before it has
 * polled the last immediate's completion; recv() polls the completion queue, so give
 * it that chance (up to \p patience) until host.completions reaches device.imm_sent.
 */
inline std::map<std::string, uint64_t>
settled_counters(gr::rdma::rx_stream& stream,
                 std::chrono::milliseconds patience = std::chrono::seconds(2))
{
    const auto deadline = std::chrono::steady_clock::now() + patience;
    auto c = stream.read_counters();
    while (c["host.completions"] < c["device.imm_sent"] &&
           std::chrono::steady_clock::now() < deadline) {
        stream.recv(0, std::chrono::milliseconds(1));
        c = stream.read_counters();
    }
    return c;
}

//! The stream's reports queued so far (gaps, overruns, time marks).
inline std::vector<gr::rdma::rx_event> take_events(gr::rdma::rx_stream& stream)
{
    std::vector<gr::rdma::rx_event> out;
    gr::rdma::rx_event e;
    while (stream.poll_event(e))
        out.push_back(e);
    return out;
}

inline std::string describe(const gr::rdma::rx_event& e)
{
    return std::string(gr::rdma::to_string(e.type)) + " (" +
           gr::rdma::to_string(e.cause) + ") at item " + std::to_string(e.item) + ", " +
           std::to_string(e.count) + " items";
}

} // namespace rxe_guest

#endif
