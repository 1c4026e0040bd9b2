/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bench_handout_floor: what a hand-out costs in GNU Radio itself, with nothing of
// gr-rdma in it (docs/performance.md, "Fast by default": the floor under rx_source's
// cost per hand-out). A source block waits in work() on an eventfd that another thread
// (the "device", floor-dev) writes once per period, as rx_source waits on its completion
// queue for a notification, then returns a period's items to a null_sink. The source
// writes nothing, as the null
// stand-in writes nothing: what is left is the scheduler's cost of a work() call and of
// waking the block downstream.
//
// usage: bench_handout_floor --rate ITEMS_PER_S --period-us P --seconds S [--item BYTES]
// Prints one JSON line: hand-outs, items, and the CPU seconds of every thread over the
// middle 60 % of the run (from /proc/self/task/*/schedstat, as bench/peer_gr.py).

#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <sys/eventfd.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>

namespace {

using steady = std::chrono::steady_clock;

//! Returns the items of one period each time the ticker thread writes its eventfd.
class paced_source : public gr::sync_block
{
public:
    paced_source(size_t item, int fd, uint64_t items_per_tick)
        : gr::sync_block("paced_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, static_cast<int>(item))),
          d_fd(fd),
          d_items_per_tick(items_per_tick)
    {
    }

    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        while (d_owed == 0) {
            pollfd p{ d_fd, POLLIN, 0 };
            if (::poll(&p, 1, 20) > 0) {
                uint64_t ticks = 0;
                if (::read(d_fd, &ticks, sizeof ticks) == sizeof ticks)
                    d_owed += ticks * d_items_per_tick;
            }
            boost::this_thread::interruption_point();
        }
        const uint64_t n = std::min<uint64_t>(d_owed, static_cast<uint64_t>(noutput_items));
        d_owed -= n;
        d_handouts.fetch_add(1, std::memory_order_relaxed);
        return static_cast<int>(n);
    }

    uint64_t handouts() const { return d_handouts.load(std::memory_order_relaxed); }

private:
    int d_fd;
    uint64_t d_items_per_tick;
    uint64_t d_owed = 0;
    std::atomic<uint64_t> d_handouts{ 0 };
};

std::map<std::string, double> thread_cpu()
{
    std::map<std::string, double> out;
    DIR* d = opendir("/proc/self/task");
    if (!d)
        return out;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        const std::string task = std::string("/proc/self/task/") + e->d_name;
        std::ifstream comm(task + "/comm"), stat(task + "/schedstat");
        std::string name;
        double ns = 0;
        if (std::getline(comm, name) && (stat >> ns))
            out[name + "/" + e->d_name] = ns * 1e-9;
    }
    closedir(d);
    return out;
}

[[noreturn]] void usage(const char* why)
{
    std::fprintf(stderr,
                 "bench_handout_floor: %s\nusage: bench_handout_floor --rate ITEMS_PER_S "
                 "--period-us P --seconds S [--item BYTES]\n",
                 why);
    std::exit(2);
}

} // namespace

int main(int argc, char** argv)
{
    double rate = 0, period_us = 1000, seconds = 1.5;
    size_t item = 4;
    for (int i = 1; i < argc; i++) {
        const std::string key = argv[i];
        if (i + 1 >= argc)
            usage(("missing value of " + key).c_str());
        const char* value = argv[++i];
        if (key == "--rate")
            rate = std::atof(value);
        else if (key == "--period-us")
            period_us = std::atof(value);
        else if (key == "--seconds")
            seconds = std::atof(value);
        else if (key == "--item")
            item = static_cast<size_t>(std::atoi(value));
        else
            usage(("unknown argument " + key).c_str());
    }
    if (!(rate > 0) || !(period_us > 0) || !(seconds > 0) || item == 0 || item % 2)
        usage("give --rate > 0, --period-us > 0, --seconds > 0, an even --item");

    const uint64_t per_tick = static_cast<uint64_t>(rate * period_us * 1e-6);
    const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0 || per_tick == 0)
        usage("eventfd failed or less than one item per period");
    auto tb = gr::make_top_block("handout_floor");
    auto src = gnuradio::get_initial_sptr(new paced_source(item, fd, per_tick));
    // Room for a few periods, as rx_source's ring holds the latency budget.
    src->set_min_output_buffer(static_cast<long>(8 * per_tick));
    src->set_max_noutput_items(static_cast<int>(4 * per_tick));
    tb->connect(src, 0, gr::blocks::null_sink::make(item), 0);

    std::atomic<bool> stop{ false };
    std::thread ticker([&] {
        pthread_setname_np(pthread_self(), "floor-dev");
        auto next = steady::now();
        const auto period = std::chrono::nanoseconds(static_cast<int64_t>(period_us * 1e3));
        while (!stop.load()) {
            next += period;
            std::this_thread::sleep_until(next);
            const uint64_t one = 1;
            if (::write(fd, &one, sizeof one) < 0)
                break;
        }
    });
    tb->start();
    const auto t0 = steady::now();
    std::this_thread::sleep_until(t0 + std::chrono::duration<double>(0.2 * seconds));
    const auto a = thread_cpu();
    const uint64_t h0 = src->handouts(), i0 = src->nitems_written(0);
    const auto ta = steady::now();
    std::this_thread::sleep_until(t0 + std::chrono::duration<double>(0.8 * seconds));
    const auto b = thread_cpu();
    const uint64_t h1 = src->handouts(), i1 = src->nitems_written(0);
    const auto tb_ = steady::now();
    stop = true;
    ticker.join();
    tb->stop();
    tb->wait();

    const double window = std::chrono::duration<double>(tb_ - ta).count();
    std::string threads;
    double host = 0;
    for (const auto& [name, cpu] : b) {
        const auto it = a.find(name);
        const double used = cpu - (it == a.end() ? 0.0 : it->second);
        if (used <= 0)
            continue;
        threads += (threads.empty() ? "" : ", ") + std::string("\"") + name +
                   "\": " + std::to_string(used);
        // The ticker stands for the device; the main thread only sleeps and reads.
        if (name.rfind("floor-dev", 0) != 0 && name.rfind("bench_handout", 0) != 0)
            host += used;
    }
    std::printf("{\"rate\": %.0f, \"period_us\": %g, \"item\": %zu, "
                "\"window_s\": %.6f, \"handouts\": %llu, \"items\": %llu, "
                "\"host_cpu_s\": %.6f, \"threads\": {%s}}\n",
                rate,
                period_us,
                item,
                window,
                static_cast<unsigned long long>(h1 - h0),
                static_cast<unsigned long long>(i1 - i0),
                host,
                threads.c_str());
    close(fd);
    return 0;
}
