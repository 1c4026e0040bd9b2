/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "water_filling.h"
#include <algorithm>
#include <cmath>
#include <limits>

namespace gr {
namespace rdma {
namespace emu {

namespace {

constexpr unsigned max_sets = 1u << ctrl_max_links;

//! A demand: finite and positive, else 0.
double clean(double v) { return std::isfinite(v) && v > 0 ? v : 0.0; }
//! A capacity: positive or +infinity (a link without a known limit), else 0.
double clean_capacity(double v) { return v > 0 ? v : 0.0; }

bool within(uint32_t inner, uint32_t outer) { return (inner & ~outer) == 0; }

//! Every union of the streams' link sets, each once: the only sets L whose
//! constraint can be the tightest (see the header).
unsigned link_set_unions(const uint32_t* mask, unsigned streams, uint16_t* sets)
{
    std::array<bool, max_sets> seen{};
    unsigned n = 0;
    for (unsigned s = 0; s < streams; s++) {
        if (mask[s] == 0)
            continue;
        const unsigned before = n;
        for (unsigned i = 0; i < before; i++) {
            const uint32_t u = sets[i] | mask[s];
            if (!seen[u]) {
                seen[u] = true;
                sets[n++] = uint16_t(u);
            }
        }
        if (!seen[mask[s]]) {
            seen[mask[s]] = true;
            sets[n++] = uint16_t(mask[s]);
        }
    }
    return n;
}

//! Route the rates over the links: augmenting paths (BFS, so Edmonds-Karp) in the
//! network source -> stream -> link -> sink, where a path may go back from a link to
//! a stream that already sends on it, so that stream moves traffic elsewhere.
void route(const water_filling_input& in,
           unsigned S,
           unsigned L,
           const uint32_t* mask,
           double eps,
           water_filling_result& out)
{
    std::array<double, ctrl_max_streams> sent{};
    // BFS nodes: streams 0..S-1, links S..S+L-1; parent of a node, -1 for none.
    std::array<int, ctrl_max_streams + ctrl_max_links> parent;
    std::array<unsigned, ctrl_max_streams + ctrl_max_links> queue;
    for (;;) {
        parent.fill(-1);
        unsigned head = 0, tail = 0;
        for (unsigned s = 0; s < S; s++)
            if (out.rate[s] - sent[s] > eps) {
                parent[s] = int(s); // a root: fed by the source
                queue[tail++] = s;
            }
        int end = -1;
        while (head < tail && end < 0) {
            const unsigned v = queue[head++];
            if (v < S) {
                for (unsigned l = 0; l < L; l++)
                    if ((mask[v] >> l & 1) && parent[S + l] < 0) {
                        parent[S + l] = int(v);
                        queue[tail++] = S + l;
                    }
                continue;
            }
            const unsigned l = v - S;
            if (clean_capacity(in.capacity[l]) - out.load[l] > eps) {
                end = int(l);
                break;
            }
            for (unsigned s = 0; s < S; s++)
                if (parent[s] < 0 && out.flow[s][l] > eps) {
                    parent[s] = int(v);
                    queue[tail++] = s;
                }
        }
        if (end < 0)
            return;
        // The path's bottleneck: the sink edge, every backward edge, the source edge.
        double amount = clean_capacity(in.capacity[end]) - out.load[end];
        unsigned l = unsigned(end), s = unsigned(parent[S + l]);
        for (;;) {
            if (parent[s] == int(s)) {
                amount = std::min(amount, out.rate[s] - sent[s]);
                break;
            }
            const unsigned back = unsigned(parent[s]) - S;
            amount = std::min(amount, out.flow[s][back]);
            l = back;
            s = unsigned(parent[S + l]);
        }
        l = unsigned(end);
        s = unsigned(parent[S + l]);
        out.load[l] += amount;
        for (;;) {
            out.flow[s][l] += amount;
            if (parent[s] == int(s)) {
                sent[s] += amount;
                break;
            }
            const unsigned back = unsigned(parent[s]) - S;
            out.flow[s][back] -= amount;
            l = back;
            s = unsigned(parent[S + l]);
        }
    }
}

} // namespace

void water_filling::compute(const water_filling_input& in, water_filling_result& out)
{
    out = water_filling_result();
    const unsigned S = std::min(in.streams, ctrl_max_streams);
    const unsigned L = std::min(in.links, ctrl_max_links);
    const uint32_t all = (1u << L) - 1;
    std::array<uint32_t, ctrl_max_streams> mask{};
    std::array<double, ctrl_max_streams> demand{};
    std::array<double, max_sets> cap_of{}; // capacity of each link set, by bits
    double scale = 0;
    for (unsigned l = 0; l < L; l++)
        scale = std::max(scale, clean(in.capacity[l])); // the finite ones
    for (unsigned set = 1; set <= all; set++) {
        const unsigned low = unsigned(__builtin_ctz(set));
        cap_of[set] = cap_of[set & (set - 1)] + clean_capacity(in.capacity[low]);
    }
    for (unsigned s = 0; s < S; s++) {
        mask[s] = in.links_of[s] & all;
        demand[s] = clean(in.demand[s]);
        scale = std::max(scale, demand[s]);
    }
    // Rates are compared to within a part in 10^9 of the largest number given.
    const double eps = scale * 1e-9;

    std::array<bool, ctrl_max_streams> frozen{};
    unsigned unfrozen = 0;
    for (unsigned s = 0; s < S; s++) {
        // No link or no demand: rate 0 from the start; limited only if it wanted some.
        frozen[s] = mask[s] == 0 || demand[s] <= eps;
        out.limited[s] = frozen[s] && demand[s] > eps;
        unfrozen += !frozen[s];
    }
    std::array<uint16_t, max_sets> sets;
    const unsigned n_sets = link_set_unions(mask.data(), S, sets.data());

    double level = 0;
    while (unfrozen > 0) {
        out.rounds++;
        // How far every unfrozen stream can rise together, and what stops it first.
        double delta = std::numeric_limits<double>::infinity();
        int stop_stream = -1, stop_set = -1;
        for (unsigned s = 0; s < S; s++)
            if (!frozen[s] && demand[s] - level < delta) {
                delta = demand[s] - level;
                stop_stream = int(s);
            }
        for (unsigned i = 0; i < n_sets; i++) {
            unsigned inside = 0;
            double used = 0;
            for (unsigned s = 0; s < S; s++)
                if (mask[s] && within(mask[s], sets[i])) {
                    inside += !frozen[s];
                    used += frozen[s] ? out.rate[s] : level;
                }
            if (inside > 0 && (cap_of[sets[i]] - used) / inside < delta) {
                delta = (cap_of[sets[i]] - used) / inside;
                stop_set = int(i);
                stop_stream = -1;
            }
        }
        level += std::max(delta, 0.0);
        for (unsigned s = 0; s < S; s++)
            if (!frozen[s])
                out.rate[s] = level;
        // Freeze what met its demand, then every stream within a tight set; what
        // stopped the rise is frozen whatever the rounding, so every round progresses.
        for (unsigned s = 0; s < S; s++)
            if (!frozen[s] && (demand[s] - level <= eps || int(s) == stop_stream)) {
                frozen[s] = true;
                unfrozen--;
                out.rate[s] = demand[s];
            }
        for (unsigned i = 0; i < n_sets; i++) {
            double used = 0;
            for (unsigned s = 0; s < S; s++)
                if (mask[s] && within(mask[s], sets[i]))
                    used += out.rate[s];
            if (cap_of[sets[i]] - used > eps && int(i) != stop_set)
                continue;
            for (unsigned s = 0; s < S; s++)
                if (!frozen[s] && mask[s] && within(mask[s], sets[i])) {
                    frozen[s] = true;
                    unfrozen--;
                    out.limited[s] = true;
                }
        }
    }
    route(in, S, L, mask.data(), eps, out);
}

} // namespace emu
} // namespace rdma
} // namespace gr
