/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bench_ctrl: the device controller of docs/links.md (lib/emu/rate_controller.h) under
// synthetic events, in simulated time; bench/ctrl.py runs it and reads its CSV.
//
//   bench_ctrl work  --out DIR [--rates 1e3,1e4,...] [--seconds 2] [--reps 3]
//   bench_ctrl fluid --out DIR [--seconds 10] [--drop 0:25e6@5.0005]
//   common: [--capacity 80e6,120e6] [--demand 100e6,100e6,100e6] [--links 1,3,3]
//           [--event-rate 1e5] [--period-us 1000] [--step-us 10] [--seed 1] [--no-post]
//
// work: per event rate and repetition, the loop's work over the simulated time (runs,
// records processed, policy computations; the wall time inside the runs, measured
// around each run, and the thread CPU of the whole simulation); and the collector's
// cost per post() apart (post.csv). fluid: water filling against equal weights without
// rate limits, side by side on the fluid model (ctrl_fluid.h), per stream and 1 s
// window; and how long after a stream's demand drops the others get their new share.

#include "ctrl_fluid.h"
#include "emu/rate_controller.h"
#include "emu/water_filling.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace gr::rdma::emu;
using bench_ctrl::fluid_offer;

struct options {
    std::string mode, out;
    std::vector<double> rates{ 1e3, 1e4, 1e5, 1e6, 1e7 };
    std::vector<double> capacity{ 80e6, 120e6 };
    std::vector<double> demand{ 100e6, 100e6, 100e6 };
    std::vector<uint32_t> links{ 1, 3, 3 };
    double seconds = 0; // mode's default: work 2, fluid 10
    int reps = 3;
    double event_rate = 1e5;
    uint32_t period_us = rate_controller::default_period_us;
    int64_t step_ns = 10000;
    uint64_t seed = 1;
    bool post_bench = true;
    unsigned drop_stream = 0;
    double drop_to = 25e6, drop_at = 5.0005;
};

template <typename T>
std::vector<T> list(const std::string& s)
{
    std::vector<T> v;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        v.push_back(T(std::stod(item)));
    return v;
}

void usage()
{
    std::fprintf(stderr,
                 "usage: bench_ctrl work|fluid --out DIR [options]; see bench/ctrl.py\n");
}

bool parse(int argc, char** argv, options& o)
{
    if (argc < 2)
        return false;
    o.mode = argv[1];
    for (int i = 2; i < argc; i++) {
        const std::string key = argv[i];
        if (key == "--no-post") {
            o.post_bench = false;
            continue;
        }
        if (i + 1 >= argc)
            return false;
        const std::string value = argv[++i];
        if (key == "--out")
            o.out = value;
        else if (key == "--rates")
            o.rates = list<double>(value);
        else if (key == "--capacity")
            o.capacity = list<double>(value);
        else if (key == "--demand")
            o.demand = list<double>(value);
        else if (key == "--links")
            o.links = list<uint32_t>(value);
        else if (key == "--seconds")
            o.seconds = std::stod(value);
        else if (key == "--reps")
            o.reps = std::stoi(value);
        else if (key == "--event-rate")
            o.event_rate = std::stod(value);
        else if (key == "--period-us")
            o.period_us = uint32_t(std::stoul(value));
        else if (key == "--step-us")
            o.step_ns = int64_t(std::stod(value) * 1000);
        else if (key == "--seed")
            o.seed = std::stoull(value);
        else if (key == "--drop") { // stream:bytes_per_s@seconds
            const size_t colon = value.find(':'), at = value.find('@');
            if (colon == std::string::npos || at == std::string::npos)
                return false;
            o.drop_stream = unsigned(std::stoul(value.substr(0, colon)));
            o.drop_to = std::stod(value.substr(colon + 1, at - colon - 1));
            o.drop_at = std::stod(value.substr(at + 1));
        } else
            return false;
    }
    return (o.mode == "work" || o.mode == "fluid") && !o.out.empty() &&
           o.demand.size() == o.links.size() && !o.demand.empty() &&
           o.demand.size() <= ctrl_max_streams && !o.capacity.empty() &&
           o.capacity.size() <= ctrl_max_links && o.drop_stream < o.demand.size() &&
           o.reps > 0 && o.step_ns > 0;
}

unsigned streams(const options& o) { return unsigned(o.demand.size()); }
unsigned links(const options& o) { return unsigned(o.capacity.size()); }

unsigned queues(const options& o)
{
    unsigned n = 0;
    for (uint32_t m : o.links)
        n += unsigned(__builtin_popcount(m));
    return n;
}

//! The scenario's configuration, as the device's registers would set it.
void configure(rate_controller& c, const options& o)
{
    c.set_policy(uint32_t(ctrl_policy::water_filling));
    c.set_period_us(o.period_us);
    for (unsigned l = 0; l < links(o); l++)
        c.set_capacity(l, o.capacity[l]);
    for (unsigned s = 0; s < streams(o); s++) {
        c.set_links(s, o.links[s]);
        c.post({ ctrl_kind::demand, uint8_t(s), 0, uint64_t(o.demand[s]) });
    }
}

/*!
 * Synthetic per-packet events: Poisson arrivals at a rate, each for a random
 * destination (a stream, one of its links), half RTT probes (10-15 us), half NAK
 * counts (the destination's running count); as the engines would post them.
 */
class event_source
{
public:
    event_source(const options& o, double rate) : d_rate(rate), d_rand{ o.seed }
    {
        for (unsigned s = 0; s < streams(o); s++)
            for (unsigned l = 0; l < ctrl_max_links; l++)
                if (o.links[s] >> l & 1)
                    d_dst[d_n++] = { uint8_t(s), uint8_t(l) };
        d_next_s = rate > 0 ? d_rand.gap(rate) : 1e300;
    }
    //! Post every event that arrives up to \p t_s; returns how many.
    uint64_t post_until(double t_s, rate_controller& c)
    {
        uint64_t n = 0;
        for (; d_next_s <= t_s; d_next_s += d_rand.gap(d_rate), n++) {
            const uint64_t r = d_rand.next();
            const auto& d = d_dst[(r >> 8) % d_n];
            if (r & 1)
                c.post({ ctrl_kind::rtt, d.first, d.second, 10000 + (r >> 40) % 5000 });
            else
                c.post(
                    { ctrl_kind::nak, d.first, d.second, ++d_naks[d.first][d.second] });
        }
        return n;
    }

private:
    double d_rate;
    bench_ctrl::random d_rand;
    std::array<std::pair<uint8_t, uint8_t>, ctrl_max_queues> d_dst{};
    unsigned d_n = 0;
    uint64_t d_naks[ctrl_max_streams][ctrl_max_links] = {};
    double d_next_s;
};

using steady = std::chrono::steady_clock;

int64_t ns_since(steady::time_point t0)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now() - t0)
        .count();
}

int64_t thread_cpu_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

//! What timing one interval costs by itself (the median of many empty ones), so the
//! reader can tell it from the runs' own time.
int64_t clock_pair_ns()
{
    std::vector<int64_t> v(1001);
    for (int64_t& x : v) {
        const auto t0 = steady::now();
        x = ns_since(t0);
    }
    std::nth_element(v.begin(), v.begin() + 500, v.end());
    return v[500];
}

int64_t quantile(std::vector<int64_t>& v, double q)
{
    if (v.empty())
        return 0;
    const auto at = v.begin() + std::ptrdiff_t(q * double(v.size() - 1));
    std::nth_element(v.begin(), at, v.end());
    return *at;
}

std::string load1()
{
    std::ifstream f("/proc/loadavg");
    std::string s;
    f >> s;
    return s;
}

void work(const options& o)
{
    const double seconds = o.seconds > 0 ? o.seconds : 2;
    const std::string path = o.out + "/work.csv";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        throw std::runtime_error("cannot write " + path);
    std::fprintf(
        f,
        "rate_eps,rep,seconds,streams,links,queues,period_us,step_us,events,"
        "coalesced,processed,pending,runs,computations,run_wall_ns,run_median_ns,"
        "run_p99_ns,loop_cpu_ns,clock_pair_ns,load1\n");
    for (int rep = 0; rep < o.reps; rep++)
        for (double rate : o.rates) {
            rate_controller c;
            configure(c, o);
            event_source events(o, rate);
            int64_t run_ns = 0;
            const int64_t end_ns = int64_t(seconds * 1e9);
            // Each run's own time too: a preemption inside one run (milliseconds on a
            // busy machine) swamps the sum, not the median.
            std::vector<int64_t> each;
            each.reserve(size_t(end_ns / (int64_t(o.period_us) * 1000) + 2));
            const int64_t cpu0 = thread_cpu_ns();
            for (int64_t t = 0; t < end_ns; t += o.step_ns) {
                events.post_until(t * 1e-9, c);
                // Only the runs are timed: the emulator sleeps until due().
                if (c.due(t)) {
                    const auto t0 = steady::now();
                    c.tick(t);
                    each.push_back(ns_since(t0));
                    run_ns += each.back();
                }
            }
            const int64_t cpu = thread_cpu_ns() - cpu0;
            const int64_t median = quantile(each, 0.5), p99 = quantile(each, 0.99);
            const auto& q = c.queue();
            std::fprintf(
                f,
                "%g,%d,%g,%u,%u,%u,%u,%g,%llu,%llu,%llu,%zu,%llu,%llu,%lld,%lld,%lld,"
                "%lld,%lld,%s\n",
                rate,
                rep,
                seconds,
                streams(o),
                links(o),
                queues(o),
                o.period_us,
                o.step_ns / 1000.0,
                (unsigned long long)q.events(),
                (unsigned long long)q.coalesced(),
                (unsigned long long)q.processed(),
                q.pending(),
                (unsigned long long)c.runs(),
                (unsigned long long)c.computations(),
                (long long)run_ns,
                (long long)median,
                (long long)p99,
                (long long)cpu,
                (long long)clock_pair_ns(),
                load1().c_str());
            std::fflush(f);
        }
    std::fclose(f);
    if (!o.post_bench)
        return;
    // The collector's side: post() back to back over the scenario's destinations,
    // the queues taken every 1000 posts (as runs would), per post.
    const std::string post_path = o.out + "/post.csv";
    FILE* p = std::fopen(post_path.c_str(), "w");
    if (!p)
        throw std::runtime_error("cannot write " + post_path);
    std::fprintf(p, "rep,posts,wall_ns,ns_per_post,load1\n");
    std::vector<ctrl_record> room(ctrl_max_queues);
    for (int rep = 0; rep < o.reps; rep++) {
        ctrl_event_queue q;
        constexpr uint64_t posts = 10000000;
        const auto t0 = steady::now();
        for (uint64_t i = 0; i < posts; i++) {
            q.post({ ctrl_kind(i & 1), uint8_t(i % streams(o)), uint8_t(i >> 3 & 1), i });
            if (i % 1000 == 999)
                q.take(room.data());
        }
        const int64_t ns = ns_since(t0);
        std::fprintf(p,
                     "%d,%llu,%lld,%.3f,%s\n",
                     rep,
                     (unsigned long long)posts,
                     (long long)ns,
                     double(ns) / double(posts),
                     load1().c_str());
    }
    std::fclose(p);
}

// ---- fluid -------------------------------------------------------------------------

//! The max-min fair share of each stream at the given demands (the reference each
//! policy's throughput is judged against).
std::array<double, ctrl_max_streams> fair_shares(const options& o,
                                                 const std::vector<double>& demand)
{
    water_filling_input in;
    // parse() keeps both within the controller's sizes; the compiler cannot know.
    in.links = std::min(links(o), ctrl_max_links);
    in.streams = std::min(streams(o), ctrl_max_streams);
    for (unsigned l = 0; l < in.links; l++)
        in.capacity[l] = o.capacity[l];
    for (unsigned s = 0; s < in.streams; s++) {
        in.demand[s] = demand[s];
        in.links_of[s] = uint8_t(o.links[s]);
    }
    water_filling_result r;
    water_filling::compute(in, r);
    return r.rate;
}

struct window_sum {
    std::array<double, ctrl_max_streams> offered{}, dequeued{}, delivered{}, fair{};
};

void fluid(const options& o)
{
    const double seconds = o.seconds > 0 ? o.seconds : 10;
    const unsigned S = streams(o), L = links(o);
    const char* names[2] = { "water_filling", "round_robin" };
    rate_controller c;
    configure(c, o);
    event_source events(o, o.event_rate);
    std::vector<double> demand = o.demand;
    auto fair = fair_shares(o, demand);
    const int windows = int(seconds);
    std::vector<std::array<window_sum, 2>> sum(size_t(std::max(windows, 1)));
    std::array<std::array<double, ctrl_max_streams>, 2> free_s{};
    for (auto& p : free_s)
        p.fill(-1);
    bool dropped = false;
    const double dt = o.step_ns * 1e-9;
    for (int64_t t = 0; t < int64_t(seconds * 1e9); t += o.step_ns) {
        const double ts = t * 1e-9;
        if (!dropped && ts >= o.drop_at) {
            // The converter slows down: the engine posts the new demand.
            dropped = true;
            demand[o.drop_stream] = o.drop_to;
            fair = fair_shares(o, demand);
            c.post({ ctrl_kind::demand, uint8_t(o.drop_stream), 0, uint64_t(o.drop_to) });
        }
        events.post_until(ts, c);
        c.tick(t);
        // Water filling: the device dequeues at most the limit, split by the weights.
        // Round robin: every stream at its converter's rate, equal weights.
        std::array<fluid_offer, 2> offer;
        for (unsigned s = 0; s < S; s++) {
            const ctrl_output& out = c.output(s);
            offer[0].rate[s] = out.limited ? std::min(demand[s], out.rate) : demand[s];
            const unsigned n = unsigned(__builtin_popcount(o.links[s]));
            offer[1].rate[s] = demand[s];
            for (unsigned l = 0; l < L; l++) {
                offer[0].part[s][l] = out.weight[l] / double(ctrl_weights::total);
                offer[1].part[s][l] = (o.links[s] >> l & 1) ? 1.0 / n : 0.0;
            }
        }
        const int w = std::min(int(ts), windows - 1);
        for (int p = 0; p < 2; p++) {
            const auto got = bench_ctrl::fluid_serve(S, L, offer[p], o.capacity.data());
            window_sum& ws = sum[size_t(w)][size_t(p)];
            for (unsigned s = 0; s < S; s++) {
                ws.offered[s] += demand[s] * dt;
                ws.dequeued[s] += offer[p].rate[s] * dt;
                ws.delivered[s] += got[s] * dt;
                ws.fair[s] += fair[s] * dt;
                if (dropped && s != o.drop_stream && free_s[p][s] < 0 &&
                    got[s] >= 0.99 * fair[s])
                    free_s[p][s] = ts;
            }
        }
    }
    const std::string path = o.out + "/fluid.csv";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        throw std::runtime_error("cannot write " + path);
    std::fprintf(f,
                 "policy,window,t0_s,t1_s,stream,links,capacity,offered_bytes,"
                 "dequeued_bytes,delivered_bytes,fair_bytes\n");
    std::string caps;
    for (unsigned l = 0; l < L; l++)
        caps += (l ? ":" : "") + std::to_string(int64_t(o.capacity[l]));
    for (int p = 0; p < 2; p++)
        for (int w = 0; w < windows; w++)
            for (unsigned s = 0; s < S; s++) {
                const window_sum& ws = sum[size_t(w)][size_t(p)];
                std::fprintf(f,
                             "%s,%d,%d,%d,%u,%u,%s,%.1f,%.1f,%.1f,%.1f\n",
                             names[p],
                             w,
                             w,
                             w + 1,
                             s,
                             o.links[s],
                             caps.c_str(),
                             ws.offered[s],
                             ws.dequeued[s],
                             ws.delivered[s],
                             ws.fair[s]);
            }
    std::fclose(f);
    const std::string free_path = o.out + "/free.csv";
    FILE* g = std::fopen(free_path.c_str(), "w");
    if (!g)
        throw std::runtime_error("cannot write " + free_path);
    std::fprintf(g,
                 "policy,stream,drop_stream,drop_at_s,drop_to,fair_after,free_ms,"
                 "period_us,step_us,event_rate,events,coalesced,runs\n");
    const auto& q = c.queue();
    for (int p = 0; p < 2; p++)
        for (unsigned s = 0; s < S; s++) {
            if (s == o.drop_stream)
                continue;
            char ms[32] = "";
            if (free_s[p][s] >= 0)
                std::snprintf(ms, sizeof ms, "%.3f", (free_s[p][s] - o.drop_at) * 1e3);
            std::fprintf(g,
                         "%s,%u,%u,%g,%g,%.1f,%s,%u,%g,%g,%llu,%llu,%llu\n",
                         names[p],
                         s,
                         o.drop_stream,
                         o.drop_at,
                         o.drop_to,
                         fair[s],
                         ms,
                         o.period_us,
                         o.step_ns / 1000.0,
                         o.event_rate,
                         (unsigned long long)(p == 0 ? q.events() : 0),
                         (unsigned long long)(p == 0 ? q.coalesced() : 0),
                         (unsigned long long)(p == 0 ? c.runs() : 0));
        }
    std::fclose(g);
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    try {
        if (!parse(argc, argv, o)) {
            usage();
            return 2;
        }
        if (o.mode == "work")
            work(o);
        else
            fluid(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ctrl: %s\n", e.what());
        return 1;
    }
    return 0;
}
