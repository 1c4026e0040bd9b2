/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Water filling (docs/links.md, "Software control of the data path"): max-min fair
// rates of streams over shared links, multipath, against allocations computed by hand
// in the comments, edge cases, and random instances against an independent oracle
// (progressive filling by bisection on a max-flow feasibility test).

#include "water_filling.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace gr::rdma::emu;

namespace {

constexpr unsigned A = 1, B = 2; // link masks
constexpr double M = 1e6;

water_filling_input problem(std::vector<double> capacity,
                            std::vector<double> demand,
                            std::vector<uint8_t> links_of)
{
    water_filling_input in;
    in.links = unsigned(capacity.size());
    in.streams = unsigned(demand.size());
    std::copy(capacity.begin(), capacity.end(), in.capacity.begin());
    std::copy(demand.begin(), demand.end(), in.demand.begin());
    std::copy(links_of.begin(), links_of.end(), in.links_of.begin());
    return in;
}

water_filling_result fill(const water_filling_input& in)
{
    water_filling_result r;
    water_filling::compute(in, r);
    return r;
}

double jain(const std::vector<double>& x)
{
    double sum = 0, squares = 0;
    for (double v : x) {
        sum += v;
        squares += v * v;
    }
    return sum * sum / (double(x.size()) * squares);
}

// What every allocation must be, whatever the instance: flows on allowed links only,
// adding up to the rate, links within capacity, rate within demand, limited exactly
// when below demand, and a limited stream's links all full (else it could grow).
void check_feasible(const water_filling_input& in, const water_filling_result& r)
{
    double scale = 1;
    for (unsigned l = 0; l < in.links; l++)
        if (std::isfinite(in.capacity[l]))
            scale = std::max(scale, in.capacity[l]);
    for (unsigned s = 0; s < in.streams; s++)
        scale = std::max(scale, in.demand[s]);
    const double tol = scale * 1e-7;
    for (unsigned l = 0; l < in.links; l++) {
        double load = 0;
        for (unsigned s = 0; s < in.streams; s++)
            load += r.flow[s][l];
        CPPUNIT_ASSERT_DOUBLES_EQUAL(load, r.load[l], tol);
        CPPUNIT_ASSERT(load <= std::max(in.capacity[l], 0.0) + tol);
    }
    for (unsigned s = 0; s < in.streams; s++) {
        double sum = 0;
        for (unsigned l = 0; l < in.links; l++) {
            CPPUNIT_ASSERT(r.flow[s][l] >= -tol);
            if (!(in.links_of[s] >> l & 1))
                CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, r.flow[s][l], tol);
            sum += r.flow[s][l];
        }
        CPPUNIT_ASSERT_DOUBLES_EQUAL(r.rate[s], sum, tol);
        const double demand = std::max(in.demand[s], 0.0);
        CPPUNIT_ASSERT(r.rate[s] <= demand + tol);
        CPPUNIT_ASSERT_EQUAL(demand - r.rate[s] > tol, bool(r.limited[s]));
        if (!r.limited[s])
            continue;
        for (unsigned l = 0; l < in.links; l++)
            if (in.links_of[s] >> l & 1)
                CPPUNIT_ASSERT(r.load[l] >= std::max(in.capacity[l], 0.0) - tol);
    }
}

// ---- the oracle: a different algorithm for the same allocation ----------------------

// Max flow source -> streams (rate) -> links (unbounded) -> sink (capacity), dense
// Ford-Fulkerson with BFS; nodes: 0 source, 1..S streams, S+1..S+L links, S+L+1 sink.
double max_flow(const water_filling_input& in, const std::vector<double>& rate)
{
    const unsigned S = in.streams, L = in.links, N = S + L + 2, sink = N - 1;
    std::vector<std::vector<double>> c(N, std::vector<double>(N, 0));
    for (unsigned s = 0; s < S; s++) {
        c[0][1 + s] = rate[s];
        for (unsigned l = 0; l < L; l++)
            if (in.links_of[s] >> l & 1)
                c[1 + s][1 + S + l] = std::numeric_limits<double>::infinity();
    }
    for (unsigned l = 0; l < L; l++)
        c[1 + S + l][sink] = std::max(in.capacity[l], 0.0);
    double total = 0;
    for (;;) {
        std::vector<int> parent(N, -1);
        parent[0] = 0;
        std::vector<unsigned> queue{ 0 };
        for (size_t i = 0; i < queue.size() && parent[sink] < 0; i++)
            for (unsigned v = 0; v < N; v++)
                if (parent[v] < 0 && c[queue[i]][v] > 1e-12) {
                    parent[v] = int(queue[i]);
                    queue.push_back(v);
                }
        if (parent[sink] < 0)
            return total;
        double amount = std::numeric_limits<double>::infinity();
        for (unsigned v = sink; v != 0; v = unsigned(parent[v]))
            amount = std::min(amount, c[unsigned(parent[v])][v]);
        for (unsigned v = sink; v != 0; v = unsigned(parent[v])) {
            c[unsigned(parent[v])][v] -= amount;
            c[v][unsigned(parent[v])] += amount;
        }
        total += amount;
    }
}

bool feasible(const water_filling_input& in, const std::vector<double>& rate, double tol)
{
    double sum = 0;
    for (double r : rate)
        sum += r;
    return max_flow(in, rate) >= sum - tol;
}

// Progressive filling by bisection: the highest common level the unfrozen streams
// can reach together, then freeze each that cannot rise a little above it alone.
std::vector<double> oracle(const water_filling_input& in, double scale)
{
    const unsigned S = in.streams;
    std::vector<double> rate(S, 0);
    std::vector<bool> frozen(S);
    for (unsigned s = 0; s < S; s++)
        frozen[s] = in.links_of[s] == 0 || in.demand[s] <= 0;
    double level = 0;
    auto at = [&](double t) {
        std::vector<double> r = rate;
        for (unsigned s = 0; s < S; s++)
            if (!frozen[s])
                r[s] = std::min(t, in.demand[s]);
        return r;
    };
    // A stream frozen by a tight set is put a margin below the level bisection found,
    // so that the rounding of the bisection never makes a later level infeasible; the
    // margin is far below the comparison's tolerance and far above bisection's.
    const double tol = scale * 1e-11, margin = scale * 1e-8, nudge = scale * 1e-6;
    while (std::count(frozen.begin(), frozen.end(), false) > 0) {
        double hi = std::numeric_limits<double>::infinity();
        for (unsigned s = 0; s < S; s++)
            if (!frozen[s])
                hi = std::min(hi, in.demand[s]);
        double lo = level;
        if (feasible(in, at(hi), tol)) {
            lo = hi;
        } else {
            for (int i = 0; i < 200; i++) {
                const double mid = (lo + hi) / 2;
                (feasible(in, at(mid), tol) ? lo : hi) = mid;
            }
        }
        level = lo;
        const std::vector<double> base = at(level);
        // Whether a stream can rise alone: does the max flow grow with it? (Against
        // the flow at the level, not the sum, which bisection may overshoot.)
        const double carried = max_flow(in, base);
        std::vector<bool> freeze(S);
        for (unsigned s = 0; s < S; s++) {
            if (frozen[s])
                continue;
            std::vector<double> up = base;
            up[s] += nudge;
            freeze[s] =
                in.demand[s] <= level + tol || max_flow(in, up) < carried + nudge / 2;
        }
        CPPUNIT_ASSERT(std::count(freeze.begin(), freeze.end(), true) > 0);
        for (unsigned s = 0; s < S; s++)
            if (freeze[s]) {
                frozen[s] = true;
                rate[s] = in.demand[s] <= level + tol ? in.demand[s]
                                                      : std::max(0.0, level - margin);
            }
    }
    return rate;
}

} // namespace

class qa_water_filling : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_water_filling);
    CPPUNIT_TEST(test_three_streams_two_links_two_thirds);
    CPPUNIT_TEST(test_demand_drop_frees_share);
    CPPUNIT_TEST(test_unequal_demands);
    CPPUNIT_TEST(test_multipath_leaves_the_small_link);
    CPPUNIT_TEST(test_one_link_several_rounds);
    CPPUNIT_TEST(test_zero_capacity);
    CPPUNIT_TEST(test_zero_demand);
    CPPUNIT_TEST(test_one_stream);
    CPPUNIT_TEST(test_stream_on_no_link);
    CPPUNIT_TEST(test_unlimited_and_nonsense_inputs);
    CPPUNIT_TEST(test_random_against_oracle);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_three_streams_two_links_two_thirds()
    {
        // Offered 3 x 100 MB/s, links 80 + 120 = 200 (2/3 of it). Stream 0 on link A
        // only, 1 and 2 on both. Sets: {A} holds stream 0 (0.8 for one), {A,B} all
        // three (2.0 for three): the level stops at 200/3 for everyone, {A,B} tight.
        const auto in = problem(
            { 80 * M, 120 * M }, { 100 * M, 100 * M, 100 * M }, { A, A | B, A | B });
        const auto r = fill(in);
        check_feasible(in, r);
        for (unsigned s = 0; s < 3; s++) {
            CPPUNIT_ASSERT_DOUBLES_EQUAL(200 * M / 3, r.rate[s], 1.0);
            CPPUNIT_ASSERT(r.limited[s]);
        }
        CPPUNIT_ASSERT_DOUBLES_EQUAL(80 * M, r.load[0], 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(120 * M, r.load[1], 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(200 * M / 3, r.flow[0][0], 1.0);
        CPPUNIT_ASSERT(jain({ r.rate[0], r.rate[1], r.rate[2] }) >= 0.99);
        CPPUNIT_ASSERT_EQUAL(1u, r.rounds);

        // The same on two equal links with every stream on both.
        const auto sym =
            problem({ 100 * M, 100 * M }, { 100 * M, 100 * M, 100 * M }, { 3, 3, 3 });
        const auto rs = fill(sym);
        check_feasible(sym, rs);
        for (unsigned s = 0; s < 3; s++)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(200 * M / 3, rs.rate[s], 1.0);
        CPPUNIT_ASSERT(jain({ rs.rate[0], rs.rate[1], rs.rate[2] }) >= 0.99);
    }

    void test_demand_drop_frees_share()
    {
        // Stream 0 drops to 25: it freezes there; 1 and 2 share {A,B}'s 200 - 25.
        auto in = problem(
            { 80 * M, 120 * M }, { 100 * M, 100 * M, 100 * M }, { A, A | B, A | B });
        in.demand[0] = 25 * M;
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(25 * M, r.rate[0], 1.0);
        CPPUNIT_ASSERT(!r.limited[0]);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(87.5 * M, r.rate[1], 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(87.5 * M, r.rate[2], 1.0);
        CPPUNIT_ASSERT_EQUAL(2u, r.rounds);
    }

    void test_unequal_demands()
    {
        // Demands 100, 200, 300 on two links of 200, all on both: stream 0 meets its
        // demand at level 100; 1 and 2 then share 400 - 100: 150 each.
        const auto in =
            problem({ 200 * M, 200 * M }, { 100 * M, 200 * M, 300 * M }, { 3, 3, 3 });
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100 * M, r.rate[0], 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(150 * M, r.rate[1], 1.0);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(150 * M, r.rate[2], 1.0);
        CPPUNIT_ASSERT(!r.limited[0] && r.limited[1] && r.limited[2]);
    }

    void test_multipath_leaves_the_small_link()
    {
        // Links A = 3, B = 1; stream 0 on both, 1 on A, 2 on B; demands unbounded.
        // {B} holds stream 2 alone: it reaches 1. Then {A,B} = 4 for all: 0 and 1
        // reach 1.5, and stream 0 sends nothing on B. (Splitting each stream's
        // increase over its links instead would give 4/3, 5/3, 2/3.)
        const auto in = problem({ 3, 1 }, { 10, 10, 10 }, { A | B, A, B });
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.5, r.rate[0], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.5, r.rate[1], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, r.rate[2], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, r.flow[0][1], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.5, r.flow[0][0], 1e-9);
    }

    void test_one_link_several_rounds()
    {
        // One link of 10, demands 1, 2, 10, 10: 1 and 2 met, the rest share 7.
        const auto in = problem({ 10 }, { 1, 2, 10, 10 }, { A, A, A, A });
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, r.rate[0], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(2.0, r.rate[1], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(3.5, r.rate[2], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(3.5, r.rate[3], 1e-9);
        CPPUNIT_ASSERT_EQUAL(3u, r.rounds);
    }

    void test_zero_capacity()
    {
        // A carries nothing: stream 0 (A only) gets 0, limited; stream 1 goes by B
        // alone and shares it with stream 2.
        const auto in = problem({ 0, 100 }, { 50, 80, 80 }, { A, A | B, B });
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, r.rate[0], 1e-9);
        CPPUNIT_ASSERT(r.limited[0]);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50.0, r.rate[1], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, r.flow[1][0], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50.0, r.rate[2], 1e-9);
        // Every link at 0.
        const auto none = problem({ 0, 0 }, { 5, 5 }, { A, A | B });
        const auto rn = fill(none);
        check_feasible(none, rn);
        CPPUNIT_ASSERT_EQUAL(0.0, rn.rate[0] + rn.rate[1]);
        CPPUNIT_ASSERT(rn.limited[0] && rn.limited[1]);
    }

    void test_zero_demand()
    {
        // A stream that wants nothing takes nothing and is not limited; the other
        // gets the whole link.
        const auto in = problem({ 60 }, { 0, 100 }, { A, A });
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_EQUAL(0.0, r.rate[0]);
        CPPUNIT_ASSERT(!r.limited[0]);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(60.0, r.rate[1], 1e-9);
        const auto all = fill(problem({ 60 }, { 0, 0 }, { A, A }));
        CPPUNIT_ASSERT_EQUAL(0.0, all.rate[0] + all.rate[1]);
        CPPUNIT_ASSERT_EQUAL(0u, all.rounds);
    }

    void test_one_stream()
    {
        // Over two links of 30 and 40: both full if it wants more, else its demand.
        const auto more = problem({ 30, 40 }, { 100 }, { A | B });
        const auto r = fill(more);
        check_feasible(more, r);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(70.0, r.rate[0], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(30.0, r.flow[0][0], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(40.0, r.flow[0][1], 1e-9);
        CPPUNIT_ASSERT(r.limited[0]);
        const auto less = problem({ 30, 40 }, { 50 }, { A | B });
        const auto q = fill(less);
        check_feasible(less, q);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50.0, q.rate[0], 1e-9);
        CPPUNIT_ASSERT(!q.limited[0]);
    }

    void test_stream_on_no_link()
    {
        const auto in = problem({ 100 }, { 100, 60 }, { 0, A });
        const auto r = fill(in);
        check_feasible(in, r);
        CPPUNIT_ASSERT_EQUAL(0.0, r.rate[0]);
        CPPUNIT_ASSERT(r.limited[0]);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(60.0, r.rate[1], 1e-9);
        CPPUNIT_ASSERT(!r.limited[1]);
        // A link bit beyond the links that exist counts as no link.
        const auto beyond = fill(problem({ 100 }, { 10 }, { B }));
        CPPUNIT_ASSERT_EQUAL(0.0, beyond.rate[0]);
    }

    void test_unlimited_and_nonsense_inputs()
    {
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        // An unlimited link meets every demand on it.
        const auto in = problem({ inf, 10 }, { 100, 50, 40 }, { A, A | B, B });
        const auto r = fill(in);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(100.0, r.rate[0], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50.0, r.rate[1], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.0, r.rate[2], 1e-9);
        // NaN and negative capacities carry nothing; NaN, negative, infinite demands
        // want nothing.
        const auto bad =
            fill(problem({ nan, -5, 10 }, { nan, -1, inf, 20 }, { 1, 2, 4, 7 }));
        for (unsigned s = 0; s < 3; s++)
            CPPUNIT_ASSERT_EQUAL(0.0, bad.rate[s]);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.0, bad.rate[3], 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(10.0, bad.flow[3][2], 1e-9);
    }

    void test_random_against_oracle()
    {
        uint64_t x = 88172645463325252ull;
        auto next = [&] {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            return x;
        };
        for (int trial = 0; trial < 300; trial++) {
            water_filling_input in;
            in.links = 1 + unsigned(next() % 4);
            in.streams = 1 + unsigned(next() % 7);
            for (unsigned l = 0; l < in.links; l++)
                in.capacity[l] = next() % 8 == 0 ? 0 : double(next() % 1000) + 1;
            for (unsigned s = 0; s < in.streams; s++) {
                in.demand[s] = next() % 8 == 0 ? 0 : double(next() % 1000) + 1;
                in.links_of[s] = uint8_t(next() % (1u << in.links));
            }
            const auto r = fill(in);
            check_feasible(in, r);
            const auto want = oracle(in, 1000);
            for (unsigned s = 0; s < in.streams; s++)
                CPPUNIT_ASSERT_DOUBLES_EQUAL(want[s], r.rate[s], 1e-4);
            CPPUNIT_ASSERT(r.rounds <= in.streams);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_water_filling);
