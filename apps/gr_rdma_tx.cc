/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-tx: headless transmit with a report (docs/transmit.md, "Headless transmit").

#include "app_flags.h"
#include "tx_options.h"
#include "tx_report.h"
#include "tx_run.h"
#include <pthread.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

using namespace gr::rdma;
using namespace gr::rdma::app;

namespace {

constexpr int exit_ok = 0, exit_failed = 1;

/*
 * A stop request ends the run early but cleanly. SIGINT and SIGTERM are the usual ones;
 * SIGHUP (the terminal went away), SIGQUIT and SIGUSR1/2 would otherwise kill the
 * process with no report, so they are stop requests too. All are blocked in every thread (the
 * stream's threads inherit the mask, so no system call of theirs is interrupted), and
 * taken by one thread with sigwait(), which only records the first. A second one ends
 * the process at once, as without the app's handling, unless it comes within
 * duplicate_window of the first: one stop request often arrives twice (coreutils'
 * timeout signals the process and then its process group), and must not kill it.
 */
class stop_signals
{
public:
    stop_signals()
    {
        sigemptyset(&d_set);
        for (int sig : { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 })
            sigaddset(&d_set, sig);
        pthread_sigmask(SIG_BLOCK, &d_set, nullptr);
        // Detached: it waits for a signal that may never come, and ends with the process.
        std::thread([this] { wait(); }).detach();
    }

    const std::atomic<int>& received() const { return d_received; }

private:
    static constexpr std::chrono::milliseconds duplicate_window{ 500 };

    void wait()
    {
        std::chrono::steady_clock::time_point first;
        for (;;) {
            int sig = 0;
            if (sigwait(&d_set, &sig) != 0)
                continue;
            const auto now = std::chrono::steady_clock::now();
            int none = 0;
            if (d_received.compare_exchange_strong(none, sig))
                first = now;
            else if (now - first >= duplicate_window)
                _exit(128 + sig); // the second signal: stop now
        }
    }

    sigset_t d_set;
    std::atomic<int> d_received{ 0 };
};

} // namespace

int main(int argc, char** argv)
{
    // First: a stop request from now on is the run's, not the end of the process.
    static stop_signals stop; // lives as long as its thread may use it
    // The report is stdout's; the stream's log goes to stderr.
    spdlog::set_default_logger(spdlog::stderr_color_mt("gr-rdma-tx"));
    tx_options o;
    try {
        o = parse_tx_options(argc, argv);
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gr-rdma-tx: %s\n", e.what());
        return exit_usage;
    }
    if (o.help) {
        print_tx_usage(stdout);
        return exit_ok;
    }

    tx_run_result r;
    try {
        r = run_tx(o, stop.received());
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gr-rdma-tx: %s\n", e.what());
        return exit_usage;
    } catch (const tx_config_error& e) {
        std::fprintf(stderr, "gr-rdma-tx: %s\n", e.what());
        return exit_usage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gr-rdma-tx: the run failed: %s\n", e.what());
        return exit_failed;
    }

    const std::string why = tx_failure(o, r);
    const report_node report = tx_report(o, r, why, o.json);
    if (o.json)
        std::printf("%s\n", report.to_json().c_str());
    else
        std::fputs(report.to_text().c_str(), stdout);
    std::fflush(stdout);
    if (!why.empty()) {
        std::fprintf(stderr, "gr-rdma-tx: FAILED: %s\n", why.c_str());
        return exit_failed;
    }
    return exit_ok;
}
