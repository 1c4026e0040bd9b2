/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_WATER_FILLING_H
#define INCLUDED_RDMA_EMU_WATER_FILLING_H

#include "ctrl_event_queue.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

struct water_filling_input {
    unsigned links = 0;   //!< links 0 .. links-1 exist (<= ctrl_max_links)
    unsigned streams = 0; //!< streams 0 .. streams-1 exist (<= ctrl_max_streams)
    //! bytes/s; +infinity: no known limit; below 0 or NaN counts as 0
    std::array<double, ctrl_max_links> capacity{};
    //! bytes/s (the converter's rate); not finite or below 0 counts as 0
    std::array<double, ctrl_max_streams> demand{};
    std::array<uint8_t, ctrl_max_streams>
        links_of{}; //!< bit l: the stream may use link l
};

struct water_filling_result {
    //! The stream's max-min fair rate, bytes/s: the rate limit to apply.
    std::array<double, ctrl_max_streams> rate{};
    //! rate < demand: a saturated set of links holds the stream back.
    std::array<bool, ctrl_max_streams> limited{};
    //! flow[s][l]: bytes/s of stream s on link l; sums to rate[s] over l.
    std::array<std::array<double, ctrl_max_links>, ctrl_max_streams> flow{};
    //! Per link: the sum of its flows, <= its capacity.
    std::array<double, ctrl_max_links> load{};
    //! Progressive filling rounds (each freezes at least one stream).
    unsigned rounds = 0;
};

/*!
 * Max-min fair rates of streams that share links (seed 001, SCR, "water filling"),
 * with multipath: a stream's rate may be split over every link it may use, and
 * fairness is between streams (their total rates), not between (stream, link) flows.
 *
 * Model. The rates a set of links can carry are those of a bipartite flow network:
 * stream s sends r_s, split freely over its links, link l carries at most c_l. By max
 * flow / min cut (Gale's theorem) the rates are feasible if and only if, for every set
 * L of links, the streams that use only links of L fit: sum of r_s over
 * {s : links(s) within L} <= c(L). Progressive filling on that: raise every unfrozen
 * stream's rate equally until a stream's demand is met (freeze it at its demand) or a
 * set L becomes tight (freeze every unfrozen stream within L at the level); repeat.
 * The feasible rates form a polymatroid, so this is the max-min fair allocation, and a
 * stream not within any tight set can always still grow. Only unions of the streams'
 * link sets are checked: any other L holds the same streams as the union of their
 * link sets within it, with more capacity.
 *
 * Why not per-link fair shares added up per stream: a stream on two links would take
 * a share of each, twice a one-link stream's. Why not progressive filling over
 * (stream, link) flows with a stream's increase split over its links: on links of 3
 * and 1 with a two-link stream, a stream on each alone, that gives 4/3, 5/3, 2/3,
 * where the fair answer is 1.5, 1.5, 1 (the two-link stream leaves the small link).
 *
 * Split: after the rates, one feasible flow (augmenting paths, Edmonds-Karp, streams
 * and links in index order: deterministic). Any feasible split gives the same rates
 * and keeps every link within capacity; the split becomes the stream's link weights.
 *
 * Cost: O(rounds x unions x streams) with unions <= 2^links - 1 (255) and rounds <=
 * streams, then the flow; no allocation (the scratch lives on the stack).
 */
class water_filling
{
public:
    static void compute(const water_filling_input& in, water_filling_result& out);
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
